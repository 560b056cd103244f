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

from tenants.models import Tenant
from tests.flows.chat import Chat

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
    assert chat.state["sales_step"] == "quantity"
    with django_assert_max_num_queries(ORDER_TURN_QUERIES):  # type: ignore[attr-defined]
        chat.send("1")
    assert chat.state["sales_step"] == "fulfilment"  # the order was made
