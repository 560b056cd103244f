"""The admin home: an owner sees the shop's day, an agent lands on the inbox."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from kb.gaps import record_gap
from tests.console.conftest import login, paid_order
from tests.handoff.conftest import make_conversation
from tulia.console.today import shop_today
from tulia.handoff.escalation import HandoffRequest, escalate
from tulia.handoff.models import Category

pytestmark = pytest.mark.django_db


def _card(page: str, words: str) -> str:
    """The figure on the card whose caption starts with `words`."""
    found = re.search(r"<strong>([^<]*)</strong>\s*<span>" + re.escape(words), page)
    assert found, words
    return found.group(1)


def test_owner_home_shows_the_day_of_their_shop_only(tenant, stranger) -> None:
    paid_order(tenant)
    paid_order(stranger)  # the stranger's sale is not the tenant's
    escalate(tenant.id, make_conversation(tenant).pk, HandoffRequest("person", Category.KEYWORD))
    page = login(tenant, "owner_h").get(reverse("admin:index")).content.decode()
    assert "Kicks Nairobi today" in page
    assert "Mama Mboga" not in page
    assert _card(page, "customers waiting") == "1"
    assert _card(page, "paid orders to confirm") == "1"
    assert _card(page, "paid today") == "KES 9,800"


def test_agent_lands_on_the_inbox(tenant, stranger) -> None:
    response = login(tenant, "agent_h", "agent").get(reverse("admin:index"))
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:handoff_handoffticket_changelist")


def test_operator_sees_every_shop(tenant, stranger, admin_client) -> None:
    page = admin_client.get(reverse("admin:index")).content.decode()
    assert "Kicks Nairobi today" in page
    assert "Mama Mboga today" in page


def test_the_home_links_open_filtered_order_lists(tenant, stranger) -> None:
    order = paid_order(tenant)
    client = login(tenant, "owner_l")
    to_confirm = client.get(reverse("admin:commerce_order_changelist") + "?todo=confirm")
    assert order.reference in to_confirm.content.decode()
    to_ship = client.get(reverse("admin:commerce_order_changelist") + "?todo=ship")
    assert order.reference not in to_ship.content.decode()


def test_gaps_this_week_and_bot_share(tenant, stranger) -> None:
    record_gap(tenant.id, "Do you deliver to Kisumu?")
    record_gap(stranger.id, "Mna sukuma?")
    day = shop_today(tenant, timezone.now())
    assert day.gaps_this_week == 1
    assert day.bot_share is None  # no replies yet today
