"""Support-desk words in English, Kiswahili and Sheng that mean the same thing.

A lexical embedding relates "delivered" to "delivery" but not "tao" to "CBD" or
"kurudisha" to "return". Customers mix the three languages in one sentence, so a
question's words are widened with their equivalents before searching and when judging
how much of the question a passage covers. Shopping nouns (viatu, sukuma, …) live in
the commerce lexicon; these are the words of policies, delivery and payment.
"""

from __future__ import annotations

from functools import cache

_GROUPS: tuple[tuple[str, ...], ...] = (
    ("return", "returns", "returning", "rudisha", "kurudisha", "rudishwa", "zirudisha"),
    ("refund", "refunds", "refunded", "rejeshewa", "kurejeshewa", "rudishiwa"),
    ("exchange", "exchanges", "swap", "badilisha", "kubadilisha", "change"),
    ("delivery", "deliver", "delivered", "leta", "kuleta", "kuletewa", "letewa", "mnaleta"),
    ("ship", "shipping", "send", "sending", "tuma", "kutuma", "safirisha", "usafirishaji"),
    ("fee", "fees", "cost", "charge", "price", "ada", "bei", "gharama"),
    ("free", "bure"),
    ("today", "leo"),
    ("tomorrow", "kesho"),
    ("days", "day", "siku"),
    ("hours", "time", "saa", "masaa"),
    ("open", "opening", "fungua", "kufungua"),
    ("close", "closed", "closing", "funga", "kufunga"),
    ("monday", "jumatatu"),
    ("saturday", "jumamosi"),
    ("sunday", "jumapili"),
    ("weekday", "weekdays", "friday", "ijumaa"),
    ("holiday", "holidays", "sikukuu"),
    ("christmas", "krismasi"),
    ("shop", "store", "duka", "stall", "kibanda"),
    ("town", "tao", "cbd", "city"),
    ("rider", "mpeleka", "mizigo", "boda"),
    ("order", "oda"),
    ("pay", "paying", "payment", "lipa", "kulipa", "malipo", "lipe"),
    ("cash", "taslimu"),
    ("credit", "mkopo", "deni", "instalments", "installments", "kidogo"),
    ("card", "kadi", "visa", "mastercard"),
    ("prompt", "stk", "ombi"),
    ("twice", "double"),
    ("size", "sizes", "saizi"),
    ("choose", "choosing", "pick", "select", "chagua", "kuchagua", "chaguo", "chukua"),
    (
        "fit",
        "fits",
        "fitting",
        "faa",
        "kufaa",
        "tosha",
        "kutosha",
        "kaa",
        "inakaa",
        "vinakaa",
        "zinakaa",
    ),
    ("chart", "table", "chati", "jedwali"),
    ("small", "ndogo", "tight"),
    ("big", "bigger", "large", "kubwa"),
    ("wide", "pana", "mipana"),
    ("kids", "children", "watoto", "mtoto"),
    ("measure", "pima", "kupima", "vipimo"),
    ("foot", "feet", "mguu", "miguu"),
    ("shoes", "sneakers", "viatu", "kiatu", "pair", "jozi", "raba"),
    ("box", "boksi"),
    ("worn", "wear", "wore", "vaa", "kuvaliwa", "nimevaa", "vimevaliwa"),
    ("faulty", "defect", "kasoro"),
    ("sole", "soli"),
    ("wrong", "sahihi", "makosa"),
    ("track", "tracking", "fuatilia", "kufuatilia"),
    ("wait", "subiri", "kusubiri"),
    ("home", "nyumbani"),
    ("phone", "simu", "number", "namba"),
    ("talk", "chat", "ongea", "kuongea", "person", "staff", "mfanyakazi", "mtu"),
    ("complain", "complaint", "lalamika", "kulalamika", "report", "ripoti", "shida"),
    ("rotten", "spoilt", "spoiled", "oza", "zimeoza", "haribika", "zilizooza"),
    ("broken", "vunjika", "yamevunjika"),
    ("eggs", "mayai"),
    ("tray", "trei"),
    ("heap", "fungu"),
    ("bunch", "fungu"),
    ("plates", "sahani"),
    ("minimum", "smallest", "kabisa"),
    ("morning", "asubuhi"),
    ("evening", "jioni"),
    ("night", "usiku"),
)


@cache
def _equivalents() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for group in _GROUPS:
        for word in group:
            table.setdefault(word, set()).update(w for w in group if w != word)
    return {word: frozenset(others) for word, others in table.items()}


def equivalents(word: str) -> frozenset[str]:
    return _equivalents().get(word, frozenset())
