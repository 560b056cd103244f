"""Sales journey, first half: narrow the request, search, present, take the selection.

The options shown are exactly catalog_search's results (at most six, priced from its
output); the deep link replaces them under the SPEC §5.2 rules (`show_link`). Once an
item is chosen, `checkout` takes over (variant, quantity, order, payment).
"""

from __future__ import annotations

from typing import Any

from journeys.context import RunContext
from journeys.flows import checkout, lexicon, parse
from journeys.flows.common import FlowTurn, deep_link, open_order
from journeys.flows.narrow import narrow
from journeys.flows.replies import unknown_response
from journeys.flows.state import FlowState
from journeys.llm.gateway import LLMGateway
from journeys.nodes.deps import EngineDeps
from journeys.state import CatalogFilters, ItemRef, PendingItem
from journeys.templates.text_nodes import (
    MAX_OPTIONS,
    OptionFact,
    catalog_present_options,
    not_stocked,
)
from journeys.tooling import CATALOG_SEARCH, STOCK_REQUEST_CREATE
from tools.catalog_search import CatalogSearchOutput, ItemSummary
from tulia.storefront.codes import find_code

MANY_MATCHES = 50
LOW_CONFIDENCE = 0.5
MAX_REJECTIONS = 2
# The step after "X is out of stock, want a message when it's back?".
RESTOCK = "restock"


def show_link(
    *, total: int, vague: bool, confidence: float, rejections: int, see_all: bool
) -> bool:
    """SPEC §5.2: ≥ 50 matches and vague, "see all", low confidence, or 2 rejections."""
    return (
        see_all
        or rejections >= MAX_REJECTIONS
        or confidence < LOW_CONFIDENCE
        or (total >= MANY_MATCHES and vague)
    )


def answers_step(state: FlowState) -> bool:
    """Is this message an answer to the question the sale is waiting on?"""
    step, text = state["sale"]["step"], state.get("inbound_text", "")
    if not step:
        return False
    if step == RESTOCK:
        return parse.is_yes(text) or parse.is_no(text)
    if parse.short_answer(text, lexicon.CONTINUE, 5):
        return True
    if step == "choose":
        names = [o["name"] for o in state["sale"]["results"]]
        return (
            parse.number_choice(text, len(names)) is not None
            or parse.short_answer(text, lexicon.REJECT, 6)
            or parse.short_answer(text, lexicon.SEE_ALL, 6)
            or (len(parse.words(text)) <= 4 and parse.name_choice(text, names) is not None)
        )
    return checkout.answers_step(state, step, text)


def picks_by_code(state: FlowState) -> bool:
    """A product code from the shop page ("… #P12V34"): the customer's own selection."""
    return find_code(state.get("inbound_text", "")) is not None


def route(state: FlowState) -> str:
    """Which step of the sale this message is for (the subgraph's conditional edge)."""
    if picks_by_code(state):
        return "pick"
    step = state["sale"]["step"]
    if step == RESTOCK and answers_step(state):
        return "restock"
    if step and parse.short_answer(state.get("inbound_text", ""), lexicon.CONTINUE, 5):
        return "represent" if step == "choose" else "reprompt"
    if step and answers_step(state):
        return "choose" if step == "choose" else "checkout"
    if state.get("intent") == "payment_help" and open_order(state):
        return "payment_help"
    return "discover"


def _turn(state: FlowState, ctx: RunContext) -> FlowTurn:
    turn = FlowTurn(state, ctx)
    turn.set(journey="sales")
    return turn


def discover_step(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    return discover(_turn(state, ctx), deps.gateway)


def choose_step(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    return _choose(_turn(state, ctx))


def checkout_step(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    return checkout.advance(_turn(state, ctx), str(state["sale"]["step"]))


def represent_step(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    return _represent(_turn(state, ctx))


def reprompt_step(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    return checkout.reprompt(_turn(state, ctx), str(state["sale"]["step"]))


def payment_help_step(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    return checkout.payment_help(_turn(state, ctx))


def pick_step(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """The item (and variant) the code names, selected explicitly (Property 5): straight
    on to its variant or quantity question, with nothing searched or guessed."""
    turn = _turn(state, ctx)
    code = find_code(turn.text)
    assert code is not None  # route() sent the message here for its code
    turn.set(journey_step="sales.pick", sale={"rejections": 0, "filters": {}})
    return checkout.select_item(turn, code.item_id, variant_id=code.variant_id, source=code.source)


def restock_step(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """YES to "tell me when it's back": the shop's back-in-stock request (campaigns'
    StockRequest, which the back-in-stock nudge reads), confirmed; no just moves on."""
    turn = _turn(state, ctx)
    item: PendingItem | None = turn.sale["pending_item"]
    turn.set(journey_step="sales.restock", sale={"step": None, "pending_item": None})
    if parse.is_no(turn.text) or not item:
        return turn.reply(turn.say("restock_declined"))
    # Routine: a recorded wish is no sign the sale's tools work again (error streak).
    turn.tool(STOCK_REQUEST_CREATE, routine=True, item_id=int(item["item_id"]))
    return turn.reply(turn.say("restock_noted", item=item["name"]))


STEPS = {
    "pick": pick_step,
    "restock": restock_step,
    "discover": discover_step,
    "choose": choose_step,
    "checkout": checkout_step,
    "represent": represent_step,
    "reprompt": reprompt_step,
    "payment_help": payment_help_step,
}


def sales(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """The whole journey as one call (the graph runs it as a subgraph of these steps)."""
    return STEPS[route(state)](state, ctx, deps)


def unknown_or_catalog(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """The unknown handler, but a product name the classifier never saw ("Pool Slide
    Navy", "sukuma wiki") is looked up first: confident catalog hits start a sale."""
    if parse.acknowledges(state.get("inbound_text", "")):
        # "ok", "sawa", "noted" after an answer: nothing was misunderstood, so no "sorry,
        # I didn't catch that" (and escalation counts no clarification loop either).
        turn = FlowTurn(state, ctx)
        return turn.reply(turn.say("acknowledged"))
    found = catalog_answer(state, ctx)
    if found is not None:
        return found
    return unknown_response(state, ctx, deps)


def catalog_answer(state: FlowState, ctx: RunContext) -> FlowState | None:
    """The shop's products matching the message, presented, if the catalog is confident."""
    want = parse.wanted(state.get("inbound_text", ""))
    if not want.query:
        return None
    turn = FlowTurn(state, ctx)
    found = turn.tool(CATALOG_SEARCH, customer=False, query=want.query, **want.filters)
    if not (found.ok and found.output.results and found.output.confidence >= LOW_CONFIDENCE):
        return None
    turn.set(journey="sales", support={"clarify_loops": 0}, sale={"query": want.query})
    turn.set(sale={"filters": want.filters, "rejections": 0})
    out = found.output
    available = _available(out.results)
    if not available:
        return _offer_restock(turn, out.results[0])
    link = deep_link(out.catalog_link or None, want.query, want.filters)
    return _present(turn, want.query, available, out.total_estimate, link)


def _available(results: list[ItemSummary]) -> list[ItemSummary]:
    """Only what can be bought now is offered as an option."""
    return [r for r in results if r.in_stock]


def _offer_restock(turn: FlowTurn, item: ItemSummary) -> FlowState:
    """Everything that matched is sold out: say so, and offer a message when it is back."""
    pending: PendingItem = {"item_id": item.item_id, "name": item.name}
    turn.set(sale={"step": RESTOCK, "pending_item": pending})
    turn.set(journey_step="sales.sold_out", sale={"results": []})
    return turn.reply(turn.say("restock_offer", item=item.name))


def _not_stocked(turn: FlowTurn, query: str, out: CatalogSearchOutput) -> FlowState:
    """Nothing the shop sells matches: said plainly, with the closest in-stock items to
    choose from (by number, as any shortlist), else the shop's whole catalog."""
    alternatives = _available(out.alternatives)[:MAX_OPTIONS]
    options = [OptionFact(name=r.name, price=r.price_from) for r in alternatives]
    remembered: list[ItemRef] = [{"item_id": r.item_id, "name": r.name} for r in alternatives]
    turn.set(sale={"results": remembered, "step": "choose" if remembered else None})
    turn.set(journey_step="sales.not_stocked")
    link = out.catalog_link or turn.get("catalog_link_base") or None
    text = not_stocked(turn.key, turn.language, query=query, alternatives=options, link=link)
    return turn.reply(text)


def discover(turn: FlowTurn, gateway: LLMGateway | None = None) -> FlowState:
    want, llm_called = narrow(turn.text, gateway)
    turn.set(llm_calls=turn.get("llm_calls", 0) + int(llm_called))
    see_all = parse.short_answer(turn.text, lexicon.SEE_ALL, 6)
    if want.empty and not see_all:
        turn.set(journey_step="sales.narrow", sale={"step": turn.sale["step"]})
        return turn.reply(turn.say("narrow_clarify"))
    if see_all:
        want = _see_all_of(turn, want)
    turn.set(sale={"rejections": 0, "query": want.query, "filters": want.filters})
    if want.size:
        turn.set(sale={"filters": {**want.filters, "size": want.size}})
    return _search(turn, want, vague=parse.is_vague(want), see_all=see_all)


_SEE_ALL_WORDS = frozenset(word for phrase in lexicon.SEE_ALL for word in parse.words(phrase))


def _see_all_of(turn: FlowTurn, want: parse.Wanted) -> parse.Wanted:
    """ "see all": everything of the last search ("see all" is no product to look for);
    "see all sambas": everything of that."""
    rest = [word for word in want.query.split() if word not in _SEE_ALL_WORDS]
    if rest:
        return parse.Wanted(" ".join(rest), want.filters, want.size)
    last: CatalogFilters = turn.sale["filters"] or CatalogFilters()
    return parse.Wanted(turn.sale["query"] or "", {**last, **want.filters})


def _search(turn: FlowTurn, want: parse.Wanted, *, vague: bool, see_all: bool) -> FlowState:
    filters: dict[str, Any] = {
        k: v for k, v in want.filters.items() if k in ("min_price", "max_price")
    }
    found = turn.tool(CATALOG_SEARCH, customer=False, query=want.query, **filters)
    if not found.ok:
        return turn.reply(turn.say("tool_failed"))
    out = found.output
    turn.set(journey_step="sales.search", sale={"total_estimate": out.total_estimate})
    available = _available(out.results)
    if want.query and not available:
        sold_out = out.results
        return (
            _offer_restock(turn, sold_out[0]) if sold_out else _not_stocked(turn, want.query, out)
        )
    link = deep_link(out.catalog_link or turn.get("catalog_link_base"), want.query, filters)
    linked = show_link(
        total=out.total_estimate,
        vague=vague,
        confidence=out.confidence,
        rejections=turn.sale["rejections"],
        see_all=see_all,
    )
    if linked and available and (link or see_all):
        return _link_only(turn, link)
    # Without a catalog page the shortlist is the best the customer can get.
    return _present(turn, want.query, available, out.total_estimate, link)


def _link_only(turn: FlowTurn, link: str | None) -> FlowState:
    if link is None:
        return turn.reply(turn.say("no_link_narrow"))
    return turn.reply(turn.say("catalog_link_only", link=link))


def _present(
    turn: FlowTurn, query: str, results: list[ItemSummary], total: int, link: str | None
) -> FlowState:
    shown = results[:MAX_OPTIONS]
    options = [OptionFact(name=r.name, price=r.price_from) for r in shown]
    text = catalog_present_options(
        turn.key, turn.language, query=query or "…", options=options, total=total, link=link
    )
    remembered: list[ItemRef] = [{"item_id": r.item_id, "name": r.name} for r in shown]
    turn.set(sale={"results": remembered, "step": "choose" if shown else None})
    turn.set(journey_step="sales.present")
    return turn.reply(text)


def _represent(turn: FlowTurn) -> FlowState:
    """Show the last options again (after a detour) by searching again: prices stay fresh."""
    query = turn.sale["query"] or ""
    want = parse.Wanted(query, turn.sale["filters"] or CatalogFilters())
    return _search(turn, want, vague=False, see_all=False)


def _choose(turn: FlowTurn) -> FlowState:
    options: list[ItemRef] = turn.sale["results"]
    if parse.short_answer(turn.text, lexicon.SEE_ALL, 6):
        return discover(turn)
    if parse.short_answer(turn.text, lexicon.REJECT, 6):
        return _rejected(turn)
    names = [o["name"] for o in options]
    picked = parse.number_choice(turn.text, len(names)) or parse.name_choice(turn.text, names)
    if picked is None:
        return turn.reply(turn.say("not_an_option", count=len(names)))
    turn.set(sale={"rejections": 0})
    return checkout.select_item(turn, int(options[picked - 1]["item_id"]))


def _rejected(turn: FlowTurn) -> FlowState:
    rejections = turn.sale["rejections"] + 1
    turn.set(journey_step="sales.rejected", sale={"rejections": rejections})
    query = turn.sale["query"] or ""
    filters: CatalogFilters = turn.sale["filters"] or CatalogFilters()
    if rejections >= MAX_REJECTIONS:
        link = deep_link(turn.get("catalog_link_base"), query, filters)
        return _link_only(turn, link)
    return turn.reply(turn.say("no_link_narrow"))
