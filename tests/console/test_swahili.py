"""The admin in Kiswahili, chosen per staff member and kept for their login."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tests.console.conftest import PASSWORD, login, paid_order
from tulia.console.models import StaffPreference

pytestmark = pytest.mark.django_db
CATALOG = Path(__file__).parents[2] / "tulia" / "console" / "locale" / "sw" / "LC_MESSAGES"


def _choose(client, language: str, back: str = "/admin/") -> None:
    url = reverse("admin:console_language")
    response = client.post(url, {"language": language, "next": back})
    assert response.status_code == 302


def test_a_swahili_owner_reads_the_day_and_menu_in_swahili(tenant, stranger) -> None:
    paid_order(tenant)
    owner = login(tenant, "mama_sw")
    _choose(owner, "sw")
    page = owner.get(reverse("admin:index")).content.decode()
    assert "Kicks Nairobi leo" in page
    assert "oda zilizolipwa za kuthibitisha" in page
    assert "Bidhaa" in page
    assert "Mipangilio ya duka" in page
    assert 'lang="sw"' in page


def test_the_choice_is_per_staff_member(tenant, stranger) -> None:
    swahili, english = login(tenant, "owner_sw"), login(tenant, "agent_en", "agent")
    _choose(swahili, "sw")
    orders = reverse("admin:commerce_order_changelist")
    assert "Kikasha" in swahili.get(orders).content.decode()
    assert "Kikasha" not in english.get(orders).content.decode()


def test_the_choice_survives_a_new_sign_in(tenant, stranger) -> None:
    _choose(login(tenant, "owner_again"), "sw")
    assert StaffPreference.objects.get(user__username="owner_again").language == "sw"
    again = Client()
    assert again.login(username="owner_again", password=PASSWORD)
    assert "Oda" in again.get(reverse("admin:commerce_order_changelist")).content.decode()


def test_an_order_page_in_swahili(tenant, stranger) -> None:
    order = paid_order(tenant)
    owner = login(tenant, "owner_o_sw")
    _choose(owner, "sw")
    page = owner.get(reverse("admin:commerce_order_change", args=[order.pk])).content.decode()
    for words in ("Thibitisha oda", "Kilichonunuliwa", "Imelipwa", "KES 9,800"):
        assert words in page


def test_an_outside_address_is_not_followed(tenant, stranger) -> None:
    owner = login(tenant, "owner_next")
    response = owner.post(
        reverse("admin:console_language"), {"language": "sw", "next": "https://evil.example/"}
    )
    assert response["Location"] == "/admin/"


def test_every_entry_of_the_swahili_catalog_is_translated() -> None:
    text = (CATALOG / "django.po").read_text(encoding="utf-8")
    entries = [e for e in text.split("\n\n")[1:] if "msgid" in e]
    untranslated = [e for e in entries if re.search(r'msgstr(\[\d\])? ""\s*$', e)]
    assert "fuzzy" not in text
    assert len(untranslated) / len(entries) <= 0.05, untranslated
    with translation.override("sw"):  # the compiled catalog is the one committed
        assert translation.gettext("Payments to check") == "Malipo ya kukagua"
