"""How much of what a shop owner reads is in Kiswahili, measured on the rendered pages
rather than on the catalog (which holds only the strings marked for translation):
every label, column heading, button, menu entry and title
of the owner's pages, read once in English and once in Kiswahili. A piece that reads
the same in both is untranslated (the shop's own data, names and amounts, is not among
these pieces). The issue's target is 95 %; `pytest -k mostly_in_swahili` with the
floor raised to 1 prints the figure and what is still English."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from tests.console.conftest import login, paid_order, sized_shoe

pytestmark = pytest.mark.django_db
# Elements whose text is the console's own wording, not the shop's data.
WORDING = {"th", "label", "button", "h1", "h2", "h3", "legend", "caption", "option"}
# The same in both languages by nature: brand and method names, units, codes.
# Language names are written in their own language on purpose.
SAME_IN_BOTH = {
    "KES", "M-Pesa", "PesaPal", "WhatsApp", "Tulia", "CSV", "SKU", "---------",
    "English", "Kiswahili", "Sheng",
}  # fmt: skip
# Measured 2026-11-25 (see docs/console.md); the issue asks 95 %. The floor keeps the
# share from sliding back while the rest (field names of models outside the console,
# not marked for translation) is done.
FLOOR = 0.70


SHOP_DATA: set[str] = set()  # the shop's own names, filled as the pages are made


class _Wording(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.pieces: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in WORDING or (tag == "a" and ("class", "section") in attrs):
            self.open.append(tag)
            self.pieces.append("")
        for name, value in attrs:
            if name == "value" and tag == "input" and ("type", "submit") in attrs and value:
                self.pieces.append(value)

    def handle_endtag(self, tag: str) -> None:
        if self.open and self.open[-1] == tag:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        if self.open:
            self.pieces[-1] += " ".join(data.split())


def _wording(client: Client, url: str) -> list[str]:
    parser = _Wording()
    parser.feed(client.get(url).content.decode())
    return [p.strip() for p in parser.pieces]


def _owner_pages(tenant) -> list[str]:
    order, shoe = paid_order(tenant), sized_shoe(tenant, "Jordan 1")
    SHOP_DATA.update({tenant.name, shoe.name, order.reference})
    return [
        reverse("admin:index"),
        reverse("admin:commerce_order_changelist"),
        reverse("admin:commerce_order_change", args=[order.pk]),
        reverse("admin:commerce_catalogitem_changelist"),
        reverse("admin:commerce_catalogitem_change", args=[shoe.pk]),
        reverse("admin:payments_paymenttoreconcile_changelist"),
        reverse("admin:tenants_tenant_change", args=[tenant.pk]),
        reverse("admin:handoff_handoffticket_changelist"),
        reverse("admin:kb_knowledgegap_changelist"),
    ]


def _translated_share(tenant) -> tuple[float, list[str]]:
    client = login(tenant, "owner_words")
    urls = _owner_pages(tenant)
    english = [piece for url in urls for piece in _wording(client, url)]
    client.post(reverse("admin:console_language"), {"language": "sw", "next": "/admin/"})
    swahili = [piece for url in urls for piece in _wording(client, url)]
    assert len(english) == len(swahili)  # the same pages, piece for piece
    pairs = [(en, sw) for en, sw in zip(english, swahili, strict=True) if _is_wording(en)]
    same = sorted({en for en, sw in pairs if en == sw})
    return 1 - sum(en == sw for en, sw in pairs) / len(pairs), same


def _is_wording(piece: str) -> bool:
    return any(c.isalpha() for c in piece) and piece not in SAME_IN_BOTH | SHOP_DATA


def test_what_an_owner_reads_is_mostly_in_swahili(tenant, stranger) -> None:
    share, untranslated = _translated_share(tenant)
    assert share >= FLOOR, f"{share:.1%} in Kiswahili; still English: {untranslated}"
