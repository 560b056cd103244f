"""Journeys as compiled LangGraph subgraphs (issue 8, seed 002 subgraph diagrams).

Each journey is a small StateGraph over the same `FlowState`: a conditional entry from
the journey's pure `route(state)` to one step node ("sales.discover",
"sales.checkout", ...), then the end. The main graph adds the compiled subgraph as the
journey's node, and the step records both the journey and itself in `graph_path`
(["sales", "sales.discover"]). No separate entry node: each superstep costs about a
tenth of a millisecond on the hot path, and the route needs no node of its own.

`GraphContext` and `node` live here rather than in graph.py because the subgraphs and
the main graph adapt their `(state, ctx, deps)` functions the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from journeys.context import RunContext
from journeys.flows import offers, orders, prefs, sales, support
from journeys.flows.state import FlowState
from journeys.nodes.deps import EngineDeps

NodeFn = Callable[[Any, RunContext, EngineDeps], Any]
Compiled = CompiledStateGraph[FlowState, "GraphContext", FlowState, FlowState]


@dataclass(frozen=True, slots=True)
class GraphContext:
    run: RunContext
    deps: EngineDeps


def node(
    name: str, fn: NodeFn, *, within: str | None = None
) -> Callable[[FlowState, Runtime[GraphContext]], FlowState]:
    """A `(state, ctx, deps)` function as a LangGraph node that records itself (after
    the journey it belongs to, `within`)."""
    recorded = [within, name] if within else [name]

    def run(state: FlowState, runtime: Runtime[GraphContext]) -> FlowState:
        update = dict(fn(state, runtime.context.run, runtime.context.deps) or {})
        # Only the steps this node adds: the state's reducer appends them.
        update["graph_path"] = [*update.get("graph_path", []), *recorded]
        return cast(FlowState, update)

    run.__name__ = name
    return run


@dataclass(frozen=True, slots=True)
class Journey:
    name: str
    route: Callable[[FlowState], str]
    steps: Mapping[str, NodeFn]


def _only(step: str) -> Callable[[FlowState], str]:
    """A journey with one step so far: the route always leads to it."""
    return lambda state: step


JOURNEYS = (
    Journey("sales", sales.route, sales.STEPS),
    Journey("support", _only("answer"), {"answer": support.support}),
    Journey("orders", orders.route, orders.STEPS),
    Journey("offers", offers.route, offers.STEPS),
    Journey("prefs", _only("update"), {"update": prefs.prefs}),
)


def build(journey: Journey) -> StateGraph[FlowState, GraphContext, FlowState, FlowState]:
    graph: StateGraph[FlowState, GraphContext, FlowState, FlowState] = StateGraph(
        FlowState, context_schema=GraphContext
    )
    targets: dict[Hashable, str] = {}
    for step, fn in journey.steps.items():
        name = f"{journey.name}.{step}"
        graph.add_node(name, node(name, fn, within=journey.name))  # type: ignore[call-overload]
        graph.add_edge(name, END)
        targets[step] = name
    graph.add_conditional_edges(START, journey.route, targets)
    return graph


def compiled_journeys() -> dict[str, Compiled]:
    return {journey.name: build(journey).compile(name=journey.name) for journey in JOURNEYS}
