"""How much of what a shop owner reads is in Kiswahili, measured on the rendered pages
rather than on the catalog (which holds only the strings marked for translation):
every label, column heading, button, menu entry, help text and title
of the owner's pages, read once in English and once in Kiswahili. A piece that reads
the same in both is untranslated (the shop's own data, names and amounts, is not among
these pieces). The issue's target is 95 %; `pytest -k mostly_in_swahili` with the
floor raised to 1 prints the figure and what is still English."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from tenants.context import tenant_context
from tenants.models import Customer, WhatsAppSender
from tests.console.conftest import login, paid_order, sized_shoe
from tulia.commerce.models import CatalogItem
from tulia.console.site import SECTIONS

pytestmark = pytest.mark.django_db
# Elements whose text is the console's own wording, not the shop's data.
WORDING = {"th", "label", "button", "h1", "h2", "h3", "legend", "caption", "option"}
# The same in both languages by nature: brand and method names, units, codes.
# Language names are written in their own language on purpose.
# Menu sections, "Add ..." buttons and help texts under fields are wording too.
_CLASSED = {("a", "section"), ("a", "addlink")}
SAME_IN_BOTH = {
    "KES", "M-Pesa", "PesaPal", "WhatsApp", "Tulia", "CSV", "SKU", "---------",
    "English", "Kiswahili", "Sheng",
}  # fmt: skip
# Measured 2026-11-27 on the pages below: 100 % (70.8 % on nine pages before the field
# names of models outside the console were marked). The issue asks 95 %; the floor leaves
# room for one new label while its translation is written, no more.
FLOOR = 0.99


SHOP_DATA: set[str] = set()  # the shop's own names, filled as the pages are made


class _Wording(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.pieces: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = dict(attrs).get("class") or ""
        if tag in WORDING or (tag, classes) in _CLASSED or (tag == "div" and "help" in classes):
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
    with tenant_context(tenant.id):
        customer = Customer.objects.get(pk=order.customer_id)
        # Forms offer the shop's products and WhatsApp numbers by name in their lists.
        products = list(CatalogItem.objects.values_list("name", flat=True))
        senders = [str(sender) for sender in WhatsAppSender.objects.all()]
    SHOP_DATA.update({tenant.name, order.reference, "owner_words", *products, *senders})
    SHOP_DATA.update({customer.display_name, customer.phone_e164})
    changed = [
        reverse("admin:commerce_order_change", args=[order.pk]),
        reverse("admin:commerce_catalogitem_change", args=[shoe.pk]),
        reverse("admin:tenants_customer_change", args=[order.customer_id]),
        reverse("admin:tenants_tenant_change", args=[tenant.pk]),
    ]
    # Every page of the owner's menu, as the menu lists it, and the forms an owner fills.
    lists = [reverse(f"admin:{label.replace('.', '_').lower()}_changelist") for label in MENU]
    added = [reverse(f"admin:{label.replace('.', '_').lower()}_add") for label in ADD_FORMS]
    return [reverse("admin:index"), *changed, *lists, *added]


MENU = [label for _key, _title, models in SECTIONS for label, _name in models] + ["payments.Refund"]
ADD_FORMS = ["commerce.Offer", "commerce.Category", "handoff.CannedReply", "campaigns.Campaign"]


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
    # A form label ends in a colon: "SKU:" is the code's name as much as "SKU" is.
    return any(c.isalpha() for c in piece) and piece.rstrip(":") not in SAME_IN_BOTH | SHOP_DATA


def test_what_an_owner_reads_is_mostly_in_swahili(tenant, stranger) -> None:
    share, untranslated = _translated_share(tenant)
    assert share >= FLOOR, f"{share:.1%} in Kiswahili; still English: {untranslated}"
