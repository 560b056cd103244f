"""Conversation benchmark: scripted WhatsApp conversations through the turn handler.

    TULIA_DATA_DIR=var/turns-bench .venv/bin/python bench/turns.py \
        [--conversations 320] [--workers 2] [--seed 11] [--mode both|deterministic|cascade]

Seeds the demo shops (Kicks Nairobi: 221 products and knowledge-base documents; Mama
Mboga, Swahili first), points their M-Pesa accounts at a local Daraja emulator, and
generates reproducible conversations from per-journey, per-language line templates:
sales through to a paid order, support questions answered from the documents, order
status and "did my payment go through?", offers and coupons, preferences and consent,
clarifying questions, messages the bot cannot place, and escalation to a person, in
English, Swahili and Sheng. Sales answers follow the bot (the step it is on, the sizes
it offers), so conversations reach payment whatever the phrasing of the replies.

`--workers` OS processes, each with its own Django setup, drive their share of the
conversations through `journeys.handler.handle_turn` as the pipeline does (state from
the last turn in, state stored back after it), against the embedded PostgreSQL and
Redis of the bench profile. When a payment is pending the customer "pays": a Daraja
callback is stored and processed by the payments code, as the callback view and its
task would. Per turn it records wall and CPU time, database queries and LLM calls.

Deterministic mode runs without an LLM key; cascade mode points OPENAI_BASE_URL at the
OpenAI-compatible emulator (journeys/llm_emulator.py), which answers like a model that
knows what the script meant, so every LLM call the cascade makes is counted.
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing as mp
import os
import random
import re
import statistics
import sys
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tulia.settings")
os.environ.setdefault("TULIA_PROFILE", "bench")

TARGETS = {"p50_ms": 30.0, "p99_ms": 100.0, "median_queries": 15, "llm_calls_per_turn": 0.35}
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

# --- line templates -----------------------------------------------------------------
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
# What an ideal model would answer for each kind of line (cascade mode's emulator).
INTENT_OF = {"sales": "sales_discovery", "support": "support_question",
             "status": "order_status", "offers": "discounts_offers", "coupon": "discounts_offers",
             "prefs": "preferences_consent", "human": "human_request", "casual": "spam_casual",
             "returns": "order_status", "unknown": "unknown", "vague": "unknown",
             "step": "sales_discovery"}  # fmt: skip


# --- conversation plans -------------------------------------------------------------
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
    for step_table in (CHOOSE, QUANTITY, METHOD, CONFIRM):
        for lang, answers in step_table.items():
            for answer in answers:
                labels.add(answer, "step", lang)
    return plans


# --- setup (parent process) -----------------------------------------------------------
def share_servers() -> None:
    """Workers connect to the servers started here rather than each managing them."""
    from django.conf import settings

    os.environ.setdefault("DATABASE_URL", settings.DATABASE_URL)
    os.environ.setdefault("REDIS_URL", settings.REDIS_URL)


def prepare_database() -> None:
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("seed_demo", stdout=io.StringIO())


@contextmanager
def daraja_for_demo_shops() -> Iterator[None]:
    """A Daraja emulator the demo shops' M-Pesa accounts point at, for this run."""
    from payments.demo import SANDBOX_PASSKEY, SHORTCODES, demo_credentials
    from payments.emulators.daraja import DarajaEmulator, StkScript
    from tenants.models import Tenant

    emulator = DarajaEmulator(*demo_credentials(SHOPS[0]), SANDBOX_PASSKEY)
    emulator.default_script = StkScript(deliver=False)  # the bench delivers callbacks itself
    for slug in SHOPS[1:]:
        emulator.add_app(*demo_credentials(slug))
    with emulator:
        for tenant in Tenant.objects.filter(slug__in=SHOPS):
            point_mpesa_at(tenant.pk, tenant.slug, emulator.base_url, SHORTCODES, SANDBOX_PASSKEY)
        yield


def point_mpesa_at(
    tenant_id: Any, slug: str, url: str, shortcodes: dict[str, str], passkey: str
) -> None:
    from payments.accounts import configure_mpesa
    from payments.demo import demo_credentials

    key, secret = demo_credentials(slug)
    configure_mpesa(
        tenant_id,
        base_url=url,
        shortcode=shortcodes[slug],
        consumer_key=key,
        consumer_secret=secret,
        passkey=passkey,
        source_ip_check="off",
        stk_query_after_seconds=60,
    )


# --- the cascade's model --------------------------------------------------------------
def oracle(labels: Labels) -> Callable[[dict[str, Any]], Any]:
    """An emulator responder answering each JSON node as a well-informed model would."""
    from journeys.llm_emulator import Reply

    def answer(request: dict[str, Any]) -> Reply:
        text = fenced_text(request)
        intent, lang = labels.by_text.get(text.strip().casefold(), ("unknown", "en"))
        return Reply(oracle_payload(schema_name(request), intent, lang, text))

    return answer


def oracle_payload(schema: str, intent: str, lang: str, text: str) -> dict[str, Any]:
    if schema == "LanguageOutput":
        return {"language": lang, "confidence": 0.9}
    if schema == "GovernorOutput":
        casual = intent == "spam_casual"
        return {"classification": "casual" if casual else "business", "confidence": 0.9}
    if schema == "NarrowOutput":
        wanted = intent == "sales_discovery"
        return {"action": "search" if wanted else "clarify", "query": text[:60] if wanted else "",
                "max_price": None, "min_price": None, "confidence": 0.8}  # fmt: skip
    return {"intent": intent, "confidence": 0.9}


# --- the worker: one OS process driving its share of the conversations ----------------
@dataclass
class TurnRecord:
    journey: str
    lang: str
    shop: str
    wall_ms: float
    cpu_ms: float
    queries: int
    llm_calls: int
    replied: bool


@dataclass
class WorkerResult:
    records: list[TurnRecord]
    started: float
    finished: float
    payments: int
    paid: int


class QueryCounter:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        self.count += 1
        return execute(sql, params, many, context)


@dataclass
class Customer:
    """One bench customer's conversation, stored after each turn as the pipeline does."""

    plan: Plan
    tenant_id: Any
    customer_id: int
    conversation_id: int
    sender_id: int
    state: dict[str, Any] = field(default_factory=dict)
    turn_number: int = 0
    open: bool = True  # False once a person has the conversation (no bot replies)

    def turn_input(self, text: str, kind: str) -> Any:
        from tulia.conversations.turns import TurnInput
        from tulia.whatsapp.schemas import InboundContent

        return TurnInput(
            tenant_id=self.tenant_id,
            conversation_id=self.conversation_id,
            customer_id=self.customer_id,
            sender_id=self.sender_id,
            request_id=f"bench-{uuid.uuid4().hex[:16]}",
            messages=[InboundContent(kind=kind, text=text)],
            inbound_message_ids=[self.turn_number + 1],
            state=self.state,
            turn_number=self.turn_number + 1,
        )

    def store(self) -> None:
        from tenants.context import tenant_context
        from tulia.conversations.models import Conversation

        with tenant_context(self.tenant_id) as tid:
            Conversation.objects.filter(tenant_id=tid, pk=self.conversation_id).update(
                state=self.state, turn_count=self.turn_number
            )


def start_customer(plan: Plan, senders: dict[str, tuple[Any, int]]) -> Customer:
    from tenants.services import get_or_create_customer
    from tulia.conversations.services import open_conversation

    tenant_id, sender_id = senders[plan.shop]
    customer, _ = get_or_create_customer(tenant_id, plan.phone)
    conversation = open_conversation(tenant_id, customer.pk, sender_id)
    return Customer(plan, tenant_id, customer.pk, conversation.pk, sender_id)


class Driver:
    def __init__(self) -> None:
        from django.db import connection

        from journeys.handler import handle_turn

        self.handle_turn = handle_turn
        self.connection = connection
        self.records: list[TurnRecord] = []
        self.payments = self.paid = 0

    def send(self, who: Customer, text: str, kind: str = "text") -> None:
        """One timed turn: the handler and the state write, as the pipeline runs them."""
        counter = QueryCounter()
        wall, cpu = time.perf_counter(), time.process_time()
        with self.connection.execute_wrapper(counter):
            output = self.handle_turn(who.turn_input(text, kind))
            who.turn_number += 1
            if output.state is not None:
                who.state = output.state
            who.store()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        who.open = output.state is not None and not who.state.get("handoff_ticket_id")
        plan = who.plan
        calls = int((output.state or {}).get("llm_calls", 0))
        self.records.append(
            TurnRecord(plan.journey, plan.lang, plan.shop, wall * 1000, cpu * 1000,
                       counter.count, calls, bool(output.replies))
        )  # fmt: skip

    def converse(self, who: Customer) -> None:
        rng = random.Random(who.plan.seed)
        for line in who.plan.lines:
            if not who.open:
                return
            if line == SALE:
                self.sell(who, rng)
            elif line == PAY:
                self.pay(who)
            elif line == IMAGE:
                self.send(who, "", kind="image")
            else:
                self.send(who, line)

    def sell(self, who: Customer, rng: random.Random) -> None:
        """Answer whatever the sale asks until the payment is on its way (or it stalls)."""
        for _ in range(MAX_SALE_TURNS):
            answer = step_answer(who.state, who.plan.lang, rng)
            if answer is None or not who.open:
                return
            self.send(who, answer)

    def pay(self, who: Customer) -> None:
        if who.state.get("sales_step") != "paying" or not who.state.get("payment_request_id"):
            return
        self.payments += 1
        self.paid += deliver_stk_callback(who.tenant_id, int(who.state["payment_request_id"]))


def step_answer(state: dict[str, Any], lang: str, rng: random.Random) -> str | None:
    step = state.get("sales_step")
    if step == "variant":
        choices = (state.get("pending_item") or {}).get("choices") or [{"label": "1"}]
        return VARIANT[lang].format(label=rng.choice(choices)["label"])
    table = {"choose": CHOOSE, "quantity": QUANTITY, "method": METHOD, "confirm": CONFIRM}
    return rng.choice(table[step][lang]) if step in table else None


def deliver_stk_callback(tenant_id: Any, payment_id: int) -> int:
    """The customer pays: Daraja's success callback, stored and processed (1 if paid)."""
    from payments.inbox import store_event
    from payments.models import PaymentEvent, PaymentMethod, PaymentRequest
    from payments.tasks import process_stk_callback
    from tenants.context import tenant_context

    with tenant_context(tenant_id) as tid:
        payment = PaymentRequest.objects.filter(tenant_id=tid, pk=payment_id).first()
    if payment is None or payment.method != PaymentMethod.MPESA_STK:
        return 0  # paybill: the customer pays by hand, nothing to call back
    body = stk_success_body(payment)
    event = store_event(
        tid, PaymentEvent.Kind.STK_CALLBACK, json.dumps(body), reference=payment.provider_reference
    )
    return int(process_stk_callback(str(tid), event.pk) == PaymentEvent.Outcome.APPLIED)


def stk_success_body(payment: Any) -> dict[str, Any]:
    items = [
        {"Name": "Amount", "Value": float(payment.amount)},
        {"Name": "MpesaReceiptNumber", "Value": f"BN{uuid.uuid4().hex[:8].upper()}"},
        {"Name": "TransactionDate", "Value": int(time.strftime("%Y%m%d%H%M%S"))},
        {"Name": "PhoneNumber", "Value": int(payment.phone_e164.lstrip("+"))},
    ]
    callback = {
        "MerchantRequestID": payment.merchant_request_id or "bench",
        "CheckoutRequestID": payment.provider_reference,
        "ResultCode": 0,
        "ResultDesc": "The service request is processed successfully.",
        "CallbackMetadata": {"Item": items},
    }
    return {"Body": {"stkCallback": callback}}


def demo_senders() -> dict[str, tuple[Any, int]]:
    from tenants.context import tenant_context
    from tenants.models import Tenant, WhatsAppSender

    senders = {}
    for tenant in Tenant.objects.filter(slug__in=SHOPS):
        with tenant_context(tenant.pk) as tid:
            sender = WhatsAppSender.objects.filter(tenant_id=tid).order_by("id").first()
        assert sender is not None, f"seed_demo registers a sender for {tenant.slug}"
        senders[tenant.slug] = (tenant.pk, sender.pk)
    return senders


def worker(plans: list[Plan], warmup: list[Plan]) -> WorkerResult:
    """Runs in a fresh process: Django set up here, warm-up turns not recorded."""
    import logging

    import django

    django.setup()
    logging.disable(logging.WARNING)  # tool and payment logs would swamp the figures
    senders = demo_senders()
    driver = Driver()
    for plan in warmup:
        driver.converse(start_customer(plan, senders))
    driver.records.clear()
    driver.payments = driver.paid = 0
    started = time.time()
    for plan in plans:
        driver.converse(start_customer(plan, senders))
    return WorkerResult(driver.records, started, time.time(), driver.payments, driver.paid)


def run_workers(plans: list[Plan], warmup: list[Plan], workers: int) -> list[WorkerResult]:
    shares = [plans[n::workers] for n in range(workers)]
    context = mp.get_context("spawn")  # a fresh interpreter and Django setup per process
    with context.Pool(workers) as pool:
        return pool.starmap(worker, [(share, warmup) for share in shares])


# --- figures ----------------------------------------------------------------------------
def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0


def group_table(records: list[TurnRecord], key: Callable[[TurnRecord], str]) -> None:
    groups: dict[str, list[TurnRecord]] = defaultdict(list)
    for record in records:
        groups[key(record)].append(record)
    print(f"  {'':12} {'turns':>6} {'p50 ms':>7} {'p99 ms':>7} {'cpu ms':>7} {'q med':>6} "
          f"{'q p99':>6} {'llm/t':>6}")  # fmt: skip
    for name, rows in sorted(groups.items()):
        wall = [r.wall_ms for r in rows]
        queries = [float(r.queries) for r in rows]
        print(
            f"  {name:12} {len(rows):>6} {percentile(wall, 0.5):>7.1f} "
            f"{percentile(wall, 0.99):>7.1f} {statistics.mean(r.cpu_ms for r in rows):>7.1f} "
            f"{statistics.median(queries):>6.0f} {percentile(queries, 0.99):>6.0f} "
            f"{statistics.mean(r.llm_calls for r in rows):>6.2f}"
        )


def figures(results: list[WorkerResult]) -> dict[str, float]:
    records = [r for result in results for r in result.records]
    wall = [r.wall_ms for r in records]
    cpu = [r.cpu_ms for r in records]
    queries = [float(r.queries) for r in records]
    elapsed = max(r.finished for r in results) - min(r.started for r in results)
    return {
        "turns": len(records),
        "replied": sum(r.replied for r in records),
        "p50_ms": round(percentile(wall, 0.5), 1),
        "p99_ms": round(percentile(wall, 0.99), 1),
        "cpu_p50_ms": round(percentile(cpu, 0.5), 1),
        "cpu_p99_ms": round(percentile(cpu, 0.99), 1),
        "cpu_mean_ms": round(statistics.mean(cpu), 1),
        "turns_per_s": round(len(records) / elapsed, 1),
        "median_queries": statistics.median(queries),
        "p99_queries": percentile(queries, 0.99),
        "llm_calls_per_turn": round(statistics.mean(r.llm_calls for r in records), 3),
        "payments": sum(r.payments for r in results),
        "paid": sum(r.paid for r in results),
    }


def report(mode: str, results: list[WorkerResult], workers: int) -> dict[str, float]:
    records = [r for result in results for r in result.records]
    shown = figures(results)
    print(f"\n--- {mode}: {shown['turns']} turns, {workers} worker processes")
    print("by journey:")
    group_table(records, lambda r: r.journey)
    print("by language:")
    group_table(records, lambda r: r.lang)
    print("by shop:")
    group_table(records, lambda r: r.shop)
    print(
        f"latency per turn: p50 {shown['p50_ms']} ms, p99 {shown['p99_ms']} ms "
        f"(targets {TARGETS['p50_ms']:.0f} / {TARGETS['p99_ms']:.0f})"
    )
    print(
        f"CPU per turn: p50 {shown['cpu_p50_ms']} ms, p99 {shown['cpu_p99_ms']} ms, "
        f"mean {shown['cpu_mean_ms']} ms"
    )
    print(f"throughput: {shown['turns_per_s']} turns/s")
    print(
        f"queries per turn: median {shown['median_queries']}, p99 {shown['p99_queries']} "
        f"(target median <= {TARGETS['median_queries']})"
    )
    print(f"LLM calls per turn: {shown['llm_calls_per_turn']}")
    print(f"replied turns: {shown['replied']}; STK payments {shown['payments']}, "
          f"paid by callback {shown['paid']}")  # fmt: skip
    return shown


def run_mode(mode: str, args: argparse.Namespace) -> dict[str, float]:
    labels = Labels()
    run = random.randrange(100_000)  # fresh customers every run: no state carried over
    plans = make_plans(args.conversations, args.seed, run, labels)
    warmup = make_plans(WARMUP, args.seed + 1, run, labels, first=WARMUP_FIRST)
    if mode == "cascade":
        with emulated_llm(labels):
            results = run_workers(plans, warmup, args.workers)
    else:
        results = run_workers(plans, warmup, args.workers)
    return report(mode, results, args.workers)


@contextmanager
def emulated_llm(labels: Labels) -> Iterator[None]:
    """OPENAI_* point at the emulator while the workers run (they read them at start).

    The emulator only speaks chat completions, and the catalog and documents were
    indexed with the offline embedder, so embeddings stay offline (TULIA_EMBEDDER).
    """
    from journeys.llm_emulator import LLMEmulator

    keys = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TULIA_EMBEDDER")
    saved = {k: os.environ.get(k) for k in keys}
    with LLMEmulator(default=oracle(labels)).running() as emulator:
        os.environ.update(
            OPENAI_API_KEY="sk-bench-emulator",
            OPENAI_BASE_URL=emulator.base_url,
            TULIA_EMBEDDER="offline",
        )
        try:
            yield
        finally:
            restore_environment(saved)
            print_llm_requests(emulator.requests)


def print_llm_requests(requests: list[dict[str, Any]]) -> None:
    """Which nodes asked the model, and about which lines: where the cascade spends."""
    nodes = Counter(schema_name(r) for r in requests)
    texts = Counter(f"{schema_name(r)}: {fenced_text(r)[:40]!r}" for r in requests)
    on_steps = sum(is_step_answer(fenced_text(r)) for r in requests)
    print(f"emulator: {len(requests)} chat completions; by output schema: {dict(nodes)}")
    print(f"  of which about answers to a sale step ('1', 'mpesa', 'sawa'...): {on_steps}")
    print("  most asked: " + "; ".join(f"{t} x{n}" for t, n in texts.most_common(12)))


def is_step_answer(text: str) -> bool:
    answers = {
        a.casefold() for t in (CHOOSE, QUANTITY, METHOD, CONFIRM) for v in t.values() for a in v
    }
    return text.strip().casefold() in answers or bool(re.fullmatch(r"(size |saizi )?\d{1,2}", text))


def schema_name(request: dict[str, Any]) -> str:
    return str(request.get("response_format", {}).get("json_schema", {}).get("name", "?"))


def fenced_text(request: dict[str, Any]) -> str:
    text = str(request["messages"][-1]["content"])
    return text.removeprefix("<<<\n").removesuffix("\n>>>")


def restore_environment(saved: dict[str, str | None]) -> None:
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--conversations", type=int, default=320)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--mode", choices=["both", "deterministic", "cascade"], default="both")
    args = parser.parse_args()
    if args.conversations >= WARMUP_FIRST:
        parser.error(f"at most {WARMUP_FIRST - 1} conversations")
    import django

    django.setup()
    share_servers()
    prepare_database()
    modes = ["deterministic", "cascade"] if args.mode == "both" else [args.mode]
    shown: dict[str, dict[str, float]] = {}
    with daraja_for_demo_shops():
        for mode in modes:
            shown[mode] = run_mode(mode, args)
    print("summary: " + json.dumps(summary(shown)))
    return 0


def summary(shown: dict[str, dict[str, float]]) -> dict[str, float]:
    """Headline figures: latency and queries from the deterministic run when there is one."""
    main_run = shown.get("deterministic") or shown["cascade"]
    keys = ("turns", "p50_ms", "p99_ms", "cpu_p50_ms", "turns_per_s", "median_queries",
            "p99_queries")  # fmt: skip
    headline = {key: main_run[key] for key in keys}
    if "cascade" in shown:
        headline["llm_calls_per_turn"] = shown["cascade"]["llm_calls_per_turn"]
        headline["cascade_p50_ms"] = shown["cascade"]["p50_ms"]
    headline["paid"] = main_run["paid"]
    return headline


if __name__ == "__main__":
    sys.exit(main())
