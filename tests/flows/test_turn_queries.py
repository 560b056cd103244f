"""Query counts of one whole graph turn per journey, pinned (issue 26, item 6).

Each turn runs through `handle_turn` after a greeting, so the customer and the shop's
persona are already known, as on most real turns. Inside the test's transaction every
tenant context is a savepoint with its settings read and restored, so these figures
sit above production's (bench/turns.py counts those); what matters is that they
cannot grow unnoticed. Lower a pin when a change earns it.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tenants.context import tenant_context
from tenants.models import Tenant
from tests.flows.chat import Chat
from tulia.handoff.models import HandoffTicket

pytestmark = pytest.mark.django_db

PINS = {
    "sales": ("I want sneakers", 24),
    "support": ("what is your return policy?", 23),
    "orders": ("where is my order?", 16),
    "offers": ("any offers?", 26),
    "prefs": ("send me offers and promotions", 31),
}


@pytest.mark.usefixtures("kb_docs", "save10_offer")
@pytest.mark.parametrize("journey", list(PINS))
def test_one_turn_of_each_journey_stays_within_its_queries(
    journey: str,
    shop: Tenant,
    chat_with: Callable[..., Chat],
    django_assert_max_num_queries: Callable[..., object],
) -> None:
    chat = chat_with(shop)
    chat.send("Habari")
    line, pinned = PINS[journey]
    with django_assert_max_num_queries(pinned):  # type: ignore[attr-defined]
        chat.send(line)
    path = chat.state["graph_path"]
    assert path[path.index("detect_escalation") + 1] == journey  # the journey pinned ran


# The turn that makes the order (quantity answered: order_create, then the shop's
# delivery options), among bench/turns.py's heaviest. Inside the test's transaction
# (every context a savepoint, see above) it takes 38; in the bench it went 26 -> 22.
ORDER_TURN_QUERIES = 38


@pytest.mark.usefixtures("delivery_settings")
def test_the_turn_that_creates_the_order_stays_within_its_queries(
    stk_only_shop: Tenant,
    chat_with: Callable[..., Chat],
    django_assert_max_num_queries: Callable[..., object],
) -> None:
    chat = chat_with(stk_only_shop)
    for line in ("I want sneakers", "1", "size 42"):
        chat.send(line)
    assert chat.state["sale"]["step"] == "quantity"
    with django_assert_max_num_queries(ORDER_TURN_QUERIES):  # type: ignore[attr-defined]
        chat.send("1")
    assert chat.state["sale"]["step"] == "fulfilment"  # the order was made


# The coupon turn (the applied order is the confirmation's total, not read back) and the
# "yes" that sends the M-Pesa prompt (the locked order marked pending without a second
# read). Here 46 -> 36 and 35 -> 33; in bench/turns.py they were the heaviest (26 and
# 22 queries) and are no longer among the turns above 20.
COUPON_TURN_QUERIES = 36
PAYMENT_TURN_QUERIES = 33


@pytest.mark.usefixtures("save10_offer")
def test_the_coupon_turn_and_the_payment_turn_stay_within_their_queries(
    stk_only_shop: Tenant,
    chat_with: Callable[..., Chat],
    django_assert_max_num_queries: Callable[..., object],
) -> None:
    chat = chat_with(stk_only_shop)
    for line in ("I want sneakers", "1", "41", "1"):
        chat.send(line)
    with django_assert_max_num_queries(COUPON_TURN_QUERIES):  # type: ignore[attr-defined]
        chat.send("use code SAVE10")
    assert chat.state["quoted_amount_kes"] == 4050  # the coupon was applied
    with django_assert_max_num_queries(PAYMENT_TURN_QUERIES):  # type: ignore[attr-defined]
        chat.send("yes")
    assert chat.state["sale"]["step"] == "paying"  # the prompt was sent


# The turn that opens a ticket for a person: the desk is read for the assignment
# policy (agents with their load in one query; the previous agent and the queue length
# in another) and the last messages for the ticket's context (one UNION): 32 -> 29 here.
HANDOFF_TURN_QUERIES = 29


def test_the_turn_that_hands_over_to_a_person_stays_within_its_queries(
    shop: Tenant,
    chat_with: Callable[..., Chat],
    django_assert_max_num_queries: Callable[..., object],
) -> None:
    chat = chat_with(shop)
    chat.send("Habari")
    with django_assert_max_num_queries(HANDOFF_TURN_QUERIES):  # type: ignore[attr-defined]
        chat.send("I want to talk to a person please")
    with tenant_context(shop.id):
        assert HandoffTicket.objects.filter(tenant_id=shop.id).count() == 1
