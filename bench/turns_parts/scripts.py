"""What the benchmark's customers say: line templates per journey and language,
reproducible conversation plans, and the answers to the bot's sale questions."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

SHOPS = ("kicks-nairobi", "mama-mboga")


LANGS = ("en", "sw", "sheng")


# Journey mix of the generated conversations (weights, not percentages).
JOURNEY_WEIGHTS = {
    "sales": 30,
    "support": 14,
    "orders": 10,
    "offers": 10,
    "prefs": 9,
    "clarify": 8,
    "unknown": 7,
    "escalation": 12,
}


WARMUP, WARMUP_FIRST = 4, 900  # warm-up conversations per process, numbered from 900


MAX_SALE_TURNS = 8  # a sale that has not reached payment by then is abandoned


SALE, PAY, IMAGE = "@sale", "@pay", "@image"  # directives among a conversation's lines


GREETINGS = {
    "en": ["hi", "hello", "good morning", "hey there"],
    "sw": ["habari", "hujambo", "salaam", "habari yako"],
    "sheng": ["niaje", "mambo", "vipi msee", "sasa"],
}


THANKS = {
    "en": ["thanks", "thank you", "great, thanks"],
    "sw": ["asante", "asante sana", "shukrani"],
    "sheng": ["poa sana", "asante boss", "fiti, thanks"],
}


PRODUCTS = {
    ("kicks-nairobi", "en"): ["I want sneakers", "do you have Nike Air Force 1?",
                              "looking for running shoes under 10000", "I need slides",
                              "show me Adidas Samba", "any jordans in size 42?",
                              "I want Vans Old Skool", "do you sell socks?"],
    ("kicks-nairobi", "sw"): ["nataka viatu vya raba", "mna viatu vya Nike?",
                              "natafuta ndala", "nataka viatu vya kukimbia",
                              "naomba Adidas Gazelle", "mnauza soksi?"],
    ("kicks-nairobi", "sheng"): ["niaje, niko na doh nataka ngori", "uko na raba za jordans?",
                                 "nipe sambas bana", "nataka airforce manze",
                                 "uko na ndala za adidas?", "nataka ngori za kukimbia"],
    ("mama-mboga", "en"): ["I want sukuma wiki", "do you have tomatoes?", "I need maize flour",
                           "eggs please", "I want cooking oil", "do you sell mangoes?"],
    ("mama-mboga", "sw"): ["nataka sukuma wiki", "mna nyanya?", "nataka unga wa mahindi",
                           "naomba mayai", "nataka mafuta ya kupikia", "mna maembe?"],
    ("mama-mboga", "sheng"): ["niaje, nataka sukuma", "uko na nyanya?", "nipe unga ya ugali",
                              "uko na mayai ya kienyeji?", "nataka avocado manze"],
}  # fmt: skip


SUPPORT = {
    "en": ["what is your return policy?", "do you deliver to Mombasa?",
           "what time do you open on Saturday?", "how do I pay with M-Pesa?",
           "how do I know my size?", "how long does delivery take?"],
    "sw": ["mnaleta mpaka Mombasa?", "mnafungua saa ngapi jumamosi?",
           "nalipaje kwa M-Pesa?", "nitajuaje saizi yangu?", "usafirishaji unachukua muda gani?",
           "sera yenu ya bidhaa zilizorudishwa ni ipi?"],
    "sheng": ["mnadeliver Rongai?", "mnafungua saa ngapi weekend?", "nalipa aje na mpesa?",
              "saizi yangu nitajua aje?", "delivery inachukua time gani?"],
}  # fmt: skip


STATUS = {
    "en": ["did my payment go through?", "where is my order?", "what is my order status?"],
    "sw": ["malipo yangu yamefika?", "oda yangu iko wapi?", "hali ya oda yangu ni gani?"],
    "sheng": ["doh yangu imeingia?", "order yangu iko wapi?", "oda yangu imefika wapi?"],
}


UNKNOWN_ORDER = {
    "en": ["my order is KI-ZZZZZZ"],
    "sw": ["oda yangu ni KI-ZZZZZZ"],
    "sheng": ["order yangu ni KI-ZZZZZZ"],
}


RETURNS = {
    "en": ["I want to return the shoes I bought", "I want a refund"],
    "sw": ["nataka kurudisha viatu nilinunua jana", "nataka nirudishiwe pesa"],
    "sheng": ["nataka kurudisha ngori nilinunua", "nirudishie pesa yangu"],
}


OFFERS = {
    "en": ["any offers?", "do you have discounts?", "what promotions do you have?"],
    "sw": ["mna ofa yoyote?", "kuna punguzo?", "mna ofa gani leo?"],
    "sheng": ["kuna ofa?", "kuna discount manze?", "mko na ofa gani?"],
}


COUPON = {
    "en": ["use code {code}", "apply coupon {code}", "I have a coupon {code}"],
    "sw": ["tumia kodi {code}", "nina kuponi {code}"],
    "sheng": ["weka code {code}", "niko na coupon {code}"],
}


COUPONS = {"kicks-nairobi": ["KICKS10", "FIRSTPAIR"], "mama-mboga": ["MBOGA50"]}


PREFS = {
    "en": ["please reply in English", "send me offers and promotions",
           "turn off notifications", "STOP", "reply in swahili please"],
    "sw": ["tafadhali nijibu kwa kiswahili", "nitumie ofa na matangazo", "acha",
           "sitaki matangazo", "zima arifa"],
    "sheng": ["nijibu kwa sheng", "nitumie ofa", "sitaki messages zenu", "acha",
              "UNSUBSCRIBE"],
}  # fmt: skip


VAGUE = {
    "en": ["hmm", "maybe", "the thing", "that one", "what about it?"],
    "sw": ["labda", "kile kitu", "hiyo", "je?"],
    "sheng": ["ile kitu", "hiyo ingine", "aje sasa", "eh?"],
}


GIBBERISH = ["qwzx plmk", "vbnq trsx", "jjjj kkkk", "zzxq wpt", "kfjq ploo"]


HUMAN = {
    "en": ["I want to talk to a human", "let me speak to an agent",
           "I was charged twice, sort this out", "I will take you to court"],
    "sw": ["nataka kuongea na mtu", "nimekatwa mara mbili", "naomba mhudumu"],
    "sheng": ["nataka kuongea na mtu manze", "nimekatwa mara mbili bana",
              "niunganishe na agent"],
}  # fmt: skip


# Answers to the step a sale is on. Variant answers come from the offered choices.
CHOOSE = {"en": ["1", "2", "the first one"], "sw": ["1", "ya kwanza", "2"],
          "sheng": ["ya kwanza", "1", "ya pili"]}  # fmt: skip


QUANTITY = {"en": ["1", "2", "just one"], "sw": ["moja", "1", "mbili"],
            "sheng": ["moja", "mbili", "1"]}  # fmt: skip


METHOD = {"en": ["M-Pesa", "mpesa please", "mpesa", "paybill"],
          "sw": ["mpesa", "lipa na mpesa", "mpesa", "paybill"],
          "sheng": ["mpesa", "nitalipa na mpesa", "mpesa"]}  # fmt: skip


CONFIRM = {"en": ["yes", "YES", "yes please"], "sw": ["ndio", "sawa", "ndiyo"],
           "sheng": ["sawa", "poa", "fiti"]}  # fmt: skip


VARIANT = {"en": "size {label}", "sw": "saizi {label}", "sheng": "{label}"}


# How the goods reach the customer (a shop with delivery settings asks after the order).
FULFIL = {"en": ["pickup", "delivery please", "I will collect"],
          "sw": ["nitakuja kuchukua", "niletee", "nitachukua"],
          "sheng": ["nitakam", "niletee", "pickup"]}  # fmt: skip


# What an ideal model would answer for each kind of line (cascade mode's emulator).
INTENT_OF = {"sales": "sales_discovery", "support": "support_question",
             "status": "order_status", "offers": "discounts_offers", "coupon": "discounts_offers",
             "prefs": "preferences_consent", "human": "human_request", "casual": "spam_casual",
             "returns": "order_status", "unknown": "unknown", "vague": "unknown",
             "step": "sales_discovery"}  # fmt: skip


@dataclass(frozen=True)
class Plan:
    number: int
    shop: str
    lang: str
    journey: str
    phone: str
    lines: tuple[str, ...]
    seed: int


@dataclass
class Labels:
    """text -> (intent, language) for the cascade emulator; built with the plans."""

    by_text: dict[str, tuple[str, str]] = field(default_factory=dict)

    def add(self, text: str, kind: str, lang: str) -> str:
        self.by_text[text.strip().casefold()] = (INTENT_OF[kind], lang)
        return text


class Writer:
    """Picks a conversation's lines reproducibly and labels them as it goes."""

    def __init__(self, rng: random.Random, shop: str, lang: str, labels: Labels) -> None:
        self.rng, self.shop, self.lang, self.labels = rng, shop, lang, labels

    def pick(self, table: dict[str, list[str]], kind: str) -> str:
        return self.labels.add(self.rng.choice(table[self.lang]), kind, self.lang)

    def product(self) -> str:
        return self.labels.add(self.rng.choice(PRODUCTS[self.shop, self.lang]), "sales", self.lang)

    def coupon(self) -> str:
        code = self.rng.choice(COUPONS[self.shop])
        return self.labels.add(self.pick(COUPON, "coupon").format(code=code), "coupon", self.lang)

    def maybe(self, share: float, line: str) -> list[str]:
        return [line] if self.rng.random() < share else []


def sales_lines(w: Writer) -> list[str]:
    start = [*w.maybe(0.5, w.pick(GREETINGS, "casual")), w.product(), SALE]
    return [*start, PAY, w.pick(STATUS, "status"), *w.maybe(0.5, w.pick(THANKS, "casual"))]


def support_lines(w: Writer) -> list[str]:
    asked = w.rng.sample(SUPPORT[w.lang], k=w.rng.randint(2, 4))
    questions = [w.labels.add(q, "support", w.lang) for q in asked]
    return [*w.maybe(0.5, w.pick(GREETINGS, "casual")), *questions, w.pick(THANKS, "casual")]


def orders_lines(w: Writer) -> list[str]:
    unknown = w.labels.add(w.rng.choice(UNKNOWN_ORDER[w.lang]), "status", w.lang)
    lines = [w.pick(STATUS, "status"), unknown, w.pick(STATUS, "status")]
    return [*lines, *w.maybe(0.4, w.pick(RETURNS, "returns"))]


def offers_lines(w: Writer) -> list[str]:
    lines = [w.pick(OFFERS, "offers"), w.product(), SALE, w.pick(OFFERS, "offers"), w.coupon()]
    return [*lines, SALE, PAY, w.pick(STATUS, "status")]


def prefs_lines(w: Writer) -> list[str]:
    asked = w.rng.sample(PREFS[w.lang], k=3)
    changes = [w.labels.add(line, "prefs", w.lang) for line in asked]
    return [w.pick(GREETINGS, "casual"), *changes, w.product()]


def clarify_lines(w: Writer) -> list[str]:
    vague = [w.labels.add(v, "vague", w.lang) for v in w.rng.sample(VAGUE[w.lang], k=2)]
    return [*vague, w.product(), SALE, *w.maybe(0.5, w.pick(THANKS, "casual"))]


def unknown_lines(w: Writer) -> list[str]:
    noise = [w.labels.add(g, "unknown", w.lang) for g in w.rng.sample(GIBBERISH, k=2)]
    return [IMAGE, *noise, w.pick(SUPPORT, "support"), w.product()]


def escalation_lines(w: Writer) -> list[str]:
    before = w.rng.choice([[w.product()], [w.pick(SUPPORT, "support")], [w.product(), SALE]])
    return [*w.maybe(0.5, w.pick(GREETINGS, "casual")), *before, w.pick(HUMAN, "human")]


JOURNEY_LINES: dict[str, Callable[[Writer], list[str]]] = {
    "sales": sales_lines,
    "support": support_lines,
    "orders": orders_lines,
    "offers": offers_lines,
    "prefs": prefs_lines,
    "clarify": clarify_lines,
    "unknown": unknown_lines,
    "escalation": escalation_lines,
}


def make_plans(count: int, seed: int, run: int, labels: Labels, *, first: int = 0) -> list[Plan]:
    """`count` conversations; the same seed gives the same lines (phones differ per run)."""
    rng = random.Random(seed)
    journeys = list(JOURNEY_WEIGHTS)
    weights = [JOURNEY_WEIGHTS[j] for j in journeys]
    plans = []
    for n in range(first, first + count):
        # Journeys in turn first, so even a small run covers every one of them.
        index = n - first
        journey = journeys[index] if index < len(journeys) else rng.choices(journeys, weights)[0]
        shop, lang = rng.choice(SHOPS), LANGS[n % len(LANGS)]
        lines = JOURNEY_LINES[journey](Writer(rng, shop, lang, labels))
        phone = f"07{run:05d}{n:03d}"
        plans.append(Plan(n, shop, lang, journey, phone, tuple(lines), rng.randrange(1 << 30)))
    for step_table in (CHOOSE, QUANTITY, FULFIL, METHOD, CONFIRM):
        for lang, answers in step_table.items():
            for answer in answers:
                labels.add(answer, "step", lang)
    return plans


def step_answer(state: dict[str, Any], lang: str, rng: random.Random) -> str | None:
    step = state.get("sale", {}).get("step")
    if step == "variant":
        choices = (state.get("sale", {}).get("pending_item") or {}).get("choices") or [
            {"label": "1"}
        ]
        return VARIANT[lang].format(label=rng.choice(choices)["label"])
    if step == "area":
        zones = (state.get("delivery_options") or {}).get("zones") or [{"name": "town"}]
        return str(rng.choice(zones)["name"])
    table = {"choose": CHOOSE, "quantity": QUANTITY, "fulfilment": FULFIL, "method": METHOD,
             "confirm": CONFIRM}  # fmt: skip
    return rng.choice(table[step][lang]) if step in table else None


def is_step_answer(text: str) -> bool:
    tables = (CHOOSE, QUANTITY, FULFIL, METHOD, CONFIRM)
    answers = {a.casefold() for t in tables for v in t.values() for a in v}
    return text.strip().casefold() in answers or bool(re.fullmatch(r"(size |saizi )?\d{1,2}", text))
