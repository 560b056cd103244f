"""Sales checkout: how the goods reach the customer, and the sale's summary.

After the order is made, a shop with delivery settings asks: delivery (to which area:
the zone's fee from the shop, added to the total) or pickup (the shop's location and
hours). The shop's options come from fulfilment_get_options and are remembered in
`delivery_options`; the choice goes to order_set_fulfilment, whose output (the order
with its fee and total) is what the summary shows. A shop without such settings skips
the question. The summary (item, size, quantity, unit price, offer, delivery, total)
comes before the payment-method question.
"""

from __future__ import annotations

from decimal import Decimal

from journeys.flows import lexicon, parse
from journeys.flows.common import FlowTurn
from journeys.flows.state import FlowState
from journeys.nodes.routing import INTENT_ROUTE_THRESHOLD
from journeys.state import DeliveryOptions, Zone
from journeys.tooling import FULFILMENT_GET_OPTIONS, ORDER_SET_FULFILMENT
from tools.fulfilment_get_options import ZoneOut
from tools.schemas import OrderOut
from tulia.normalise import find_phrase
from tulia.text import format_money

STEPS = ("fulfilment", "area")
# Topics an area answer is not: the customer moved on (the question stays pending).
OTHER_INTENTS = ("sales_discovery", "product_question", "discounts_offers",
                 "preferences_consent", "human_request", "support_question")  # fmt: skip


def _zone_named(options: DeliveryOptions, text: str) -> Zone | None:
    for zone in options.get("zones", []):
        if find_phrase(text, (zone["name"], *zone.get("areas", []))):
            return zone.copy()
    return None


def _choice(state: FlowState, text: str) -> str | None:
    """ "delivery", "pickup", their numbers (as listed), or an area meaning delivery."""
    options = state.get("delivery_options") or {}
    listed = _listed(options)
    picked = parse.number_choice(text, len(listed))
    if picked is not None and len(parse.words(text)) <= 3:
        return listed[picked - 1]
    if parse.has(text, lexicon.PICKUP) and "pickup" in listed:
        return "pickup"
    if parse.has(text, lexicon.DELIVERY) or _zone_named(options, text):
        return "delivery" if "delivery" in listed else None
    return None


def _listed(options: DeliveryOptions) -> list[str]:
    offered = {"delivery": bool(options.get("zones")), "pickup": bool(options.get("pickup"))}
    return [method for method, yes in offered.items() if yes]


def answers_step(state: FlowState, step: str, text: str) -> bool:
    if step == "fulfilment":
        return _choice(state, text) is not None
    if step != "area":
        return False
    if _zone_named(state.get("delivery_options") or {}, text):
        return True
    # An area we have no zone for still answers, unless it is plainly another topic.
    if parse.is_no(text) or parse.short_answer(text, lexicon.PAY, 5):
        return False
    confident = state.get("intent_confidence", 0.0) >= INTENT_ROUTE_THRESHOLD
    elsewhere = confident and state.get("intent") in OTHER_INTENTS
    return bool(parse.words(text)) and len(parse.words(text)) <= 20 and not elsewhere


def _options(turn: FlowTurn) -> DeliveryOptions:
    """The shop's options, read through the tool on every turn that shows a fee: the
    reply guard lets a reply state only amounts a tool gave this turn."""
    found = turn.tool(FULFILMENT_GET_OPTIONS, customer=False)
    if not found.ok or not found.output.offered:
        return {}
    out = found.output
    options: DeliveryOptions = {
        "zones": [_zone(zone) for zone in out.zones],
        "pickup": out.pickup_location,
        "hours": out.pickup_hours,
    }
    turn.set(delivery_options=options)
    return options


def _zone(zone: ZoneOut) -> Zone:
    """A zone as the tool's JSON gives it (the fee a decimal as text), to remember."""
    return {
        "name": zone.name,
        "fee": str(zone.fee),
        "areas": list(zone.areas),
        "courier": zone.courier,
    }


def start(turn: FlowTurn, order: OrderOut) -> str | OrderOut:
    """The delivery question to ask, or the order to go on to payment with."""
    options = _options(turn)
    if not options:
        return order
    listed = _listed(options)
    if listed == ["pickup"]:
        set_to = _set(turn, "pickup", "")
        return set_to if set_to is not None else turn.say("tool_failed")
    step = "fulfilment" if len(listed) == 2 else "area"
    return question(turn, step, options)


def question(turn: FlowTurn, step: str, options: DeliveryOptions | None = None) -> str:
    """`options`: already read through the tool this turn (one call per turn is enough)."""
    options = options or _options(turn) or turn.get("delivery_options") or DeliveryOptions()
    turn.set(journey_step=f"sales.{step}", sale={"step": step})
    zones = _zones_text(options)
    if step == "area":
        return turn.say("ask_area", zones=zones)
    where = options.get("pickup") or ""
    hours = f" ({options['hours']})" if options.get("hours") else ""
    return turn.say("ask_fulfilment", zones=zones, location=f"{where}{hours}")


def _zones_text(options: DeliveryOptions) -> str:
    return ", ".join(
        f"{z['name']} *{format_money(Decimal(str(z['fee'])))}*" for z in options.get("zones", [])
    )


def choose(turn: FlowTurn, step: str) -> str | OrderOut:
    """The order with delivery or pickup set, or the next question / why not."""
    method = _choice(turn.state, turn.text) if step == "fulfilment" else "delivery"
    if method is None:
        return question(turn, step)
    options: DeliveryOptions = turn.get("delivery_options") or DeliveryOptions()
    if method == "delivery" and not _zone_named(options, turn.text):
        if step == "fulfilment":  # "delivery", without the area yet
            return question(turn, "area")
        turn.set(journey_step="sales.area", sale={"step": "area"})
        zones = _zones_text(_options(turn) or options)
        return turn.say("area_unknown", area=turn.text.strip()[:60], zones=zones)
    chosen = _set(turn, method, turn.text if method == "delivery" else "")
    return chosen if chosen is not None else turn.say("tool_failed")


def _set(turn: FlowTurn, method: str, area: str) -> OrderOut | None:
    called = turn.tool(
        ORDER_SET_FULFILMENT, order_id=int(turn.get("order_id")), method=method, area=area
    )
    return called.output if called.ok else None


def summary(turn: FlowTurn, order: OrderOut) -> str:
    """Every line, the offer, delivery or pickup, and the total, from the order tool."""
    currency = order.currency

    def money(value: object) -> str:
        return format_money(Decimal(str(value)), currency)

    lines = [turn.say("summary_head", reference=order.reference)]
    lines += [
        turn.say(
            "summary_line",
            name=line.name,
            quantity=line.quantity,
            unit_price=money(line.unit_price),
            line_total=money(line.line_total),
        )
        for line in order.lines
    ]
    if order.discount_total > 0:
        code = order.coupon_code or ""
        lines.append(turn.say("summary_offer", code=code, amount=money(order.discount_total)))
    if order.fulfilment == "delivery":
        area = order.delivery_area or ""
        lines.append(turn.say("summary_delivery", area=area, fee=money(order.delivery_fee)))
    elif order.fulfilment == "pickup":
        options: DeliveryOptions = turn.get("delivery_options") or DeliveryOptions()
        lines.append(turn.say("summary_pickup", location=options.get("pickup") or ""))
    lines.append(turn.say("summary_total", total=money(order.total)))
    return "\n".join(lines)
