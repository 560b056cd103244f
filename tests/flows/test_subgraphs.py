"""Journeys run as compiled LangGraph subgraphs whose nodes are the journey's steps."""

from __future__ import annotations

import pytest
from langgraph.graph.state import CompiledStateGraph

from journeys.flows import offers, orders, sales
from journeys.flows.state import FlowState
from journeys.graph import JOURNEYS, compiled
from journeys.state import new_state
from tenants.models import Tenant
from tests.flows.chat import start_chat


def test_every_journey_is_a_compiled_subgraph_of_the_main_graph() -> None:
    nodes = compiled().nodes
    for journey in JOURNEYS:
        assert isinstance(nodes[journey].bound, CompiledStateGraph), journey


def test_the_sales_subgraph_has_one_node_per_step() -> None:
    inner = compiled().nodes["sales"].bound
    assert isinstance(inner, CompiledStateGraph)
    assert {f"sales.{step}" for step in sales.STEPS} <= set(inner.nodes)


def _state(**fields: object) -> FlowState:
    """A whole state (every nested part present) with these fields."""
    whole = {**new_state(tenant_id="t", conversation_id="c", request_id="r"), **fields}
    return FlowState(**whole)  # type: ignore[typeddict-item]


@pytest.mark.parametrize(
    ("fields", "sale", "step"),
    [
        ({"inbound_text": "I want sneakers"}, {}, "discover"),
        (
            {"inbound_text": "2"},
            {"step": "choose", "results": [{"name": "A"}, {"name": "B"}]},
            "choose",
        ),
        ({"inbound_text": "continue"}, {"step": "choose"}, "represent"),
        ({"inbound_text": "continue"}, {"step": "variant"}, "reprompt"),
        ({"inbound_text": "yes"}, {"step": "confirm"}, "checkout"),
        ({"inbound_text": "paid?", "intent": "payment_help", "order_id": "4"}, {}, "payment_help"),
    ],
)
def test_sales_route_picks_the_step(
    fields: dict[str, object], sale: dict[str, object], step: str
) -> None:
    state = _state(**fields)
    state["sale"].update(sale)  # type: ignore[typeddict-item]
    assert sales.route(state) == step


def test_orders_and_offers_routes() -> None:
    assert orders.route(_state(inbound_text="where is my order?")) == "ask_reference"
    assert orders.route(_state(inbound_text="order KI-ABC234")) == "status"
    assert orders.route(_state(inbound_text="where is it?", order_id="3")) == "status"
    assert offers.route(_state(inbound_text="any offers?")) == "list"
    assert offers.route(_state(inbound_text="use code SAVE10")) == "no_order"
    with_order = _state(inbound_text="use code SAVE10", order_id="3", payment_status=None)
    assert offers.route(with_order) == "apply_coupon"


@pytest.mark.django_db
def test_the_path_shows_the_journey_and_the_step_taken(shop: Tenant) -> None:
    chat = start_chat(shop)
    chat.send("I want sneakers")
    path = chat.state["graph_path"]
    assert path[path.index("sales") + 1] == "sales.discover"
    chat.send("1")
    assert "sales.choose" in chat.state["graph_path"]
    chat.send("where is my order?")
    path = chat.state["graph_path"]
    assert path[path.index("orders") + 1].startswith("orders.")
    assert (path[0], path[-1], path.count("begin")) == ("begin", "finish", 1)
