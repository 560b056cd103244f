"""Automated nudges, each switched on per shop: abandoned cart, back in stock, Paybill
payment reminder, delivery follow-up.

A pass (Celery beat, per shop) finds who is due, outside the shop's quiet hours, and
for each customer: consent for the nudge's category, the per-customer cap (so many
nudges in so many days), then inside the 24-hour window the catalog's text, outside
it the shop's approved template for the nudge (its `purpose` is the nudge's key, its
variables the facts in the order listed below), through the outbound gate. A `Nudge`
row, unique per (kind, subject, customer), is written in the same transaction as the
message: a nudge never repeats, even when two passes overlap.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from uuid import UUID

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from tenants.accessors import get_customer, get_tenant
from tenants.context import operator_context, tenant_context
from tenants.models import Customer
from tulia.campaigns import schedule
from tulia.campaigns.models import MessagingSettings, Nudge, StockRequest
from tulia.commerce.models import CatalogItem, Order
from tulia.commerce.models.orders import OrderStatus
from tulia.conversations.models import OutboundMessage
from tulia.conversations.services import latest_conversation
from tulia.text import format_money, say
from tulia.whatsapp import consent, gate
from tulia.whatsapp.outbound import queue_reply, queue_template
from tulia.whatsapp.templates import approved_template

Kind = Nudge.Kind
LOOKBACK = timedelta(days=7)  # older carts and deliveries are left alone
PER_PASS = 500


@dataclass(frozen=True)
class NudgeSpec:
    kind: str
    category: str  # marketing or utility: which consent and template category applies
    facts: tuple[str, ...]  # variable order of the template: facts[0] is {{1}}


SPECS = {
    Kind.ABANDONED_CART: NudgeSpec(Kind.ABANDONED_CART, "marketing", ("order", "amount")),
    Kind.BACK_IN_STOCK: NudgeSpec(Kind.BACK_IN_STOCK, "marketing", ("item",)),
    Kind.PAYMENT_REMINDER: NudgeSpec(Kind.PAYMENT_REMINDER, "utility", ("order", "amount")),
    Kind.DELIVERY_FOLLOWUP: NudgeSpec(Kind.DELIVERY_FOLLOWUP, "marketing", ("order",)),
}


@dataclass(frozen=True)
class Due:
    kind: str
    subject: str
    customer_id: int
    facts: dict[str, str]


def tenants_with_nudges() -> list[UUID]:
    on = Q(abandoned_cart=True) | Q(back_in_stock=True) | Q(payment_reminder=True)
    with operator_context("nudges: find shops with a nudge switched on"):
        rows = MessagingSettings.objects.filter(on | Q(delivery_followup=True))
        return list(rows.values_list("tenant_id", flat=True))


def _not_nudged(tid: UUID, kind: str) -> Exists:
    return Exists(
        Nudge.objects.filter(
            tenant_id=tid,
            kind=kind,
            customer_id=OuterRef("customer_id"),
            subject=OuterRef("reference"),
        )
    )


def _paybill_pending(tid: UUID) -> Exists:
    from payments.models import PaymentMethod, PaymentRequest, PaymentStatus

    return Exists(
        PaymentRequest.objects.filter(
            tenant_id=tid, order_id=OuterRef("pk"), method=PaymentMethod.MPESA_C2B,
            status=PaymentStatus.PENDING,
        )
    )  # fmt: skip


def due_nudges(tenant_id: UUID, rules: MessagingSettings) -> Iterator[Due]:
    """Who is due for which nudge now (at most PER_PASS of each kind)."""
    now = timezone.now()
    with tenant_context(tenant_id) as tid:
        unpaid = Order.objects.filter(
            tenant_id=tid, status=OrderStatus.PENDING_PAYMENT, created_at__gte=now - LOOKBACK
        )
        batches: list[tuple[str, list[Order]]] = []
        if rules.abandoned_cart:
            carts = unpaid.filter(created_at__lte=now - timedelta(hours=rules.abandoned_cart_hours))
            carts = carts.exclude(_paybill_pending(tid)).exclude(
                _not_nudged(tid, Kind.ABANDONED_CART)
            )
            batches.append((Kind.ABANDONED_CART, list(carts.order_by("id")[:PER_PASS])))
        if rules.payment_reminder:
            waiting = unpaid.filter(
                _paybill_pending(tid),
                created_at__lte=now - timedelta(hours=rules.payment_reminder_hours),
            ).exclude(_not_nudged(tid, Kind.PAYMENT_REMINDER))
            batches.append((Kind.PAYMENT_REMINDER, list(waiting.order_by("id")[:PER_PASS])))
        if rules.delivery_followup:
            delivered = Order.objects.filter(
                tenant_id=tid, status=OrderStatus.DELIVERED, delivered_at__gte=now - LOOKBACK,
                delivered_at__lte=now - timedelta(hours=rules.delivery_followup_hours),
            ).exclude(_not_nudged(tid, Kind.DELIVERY_FOLLOWUP))  # fmt: skip
            batches.append((Kind.DELIVERY_FOLLOWUP, list(delivered.order_by("id")[:PER_PASS])))
        asks: list[tuple[int, int, str]] = []
        if rules.back_in_stock:
            asks = list(
                StockRequest.objects.filter(
                    tenant_id=tid,
                    notified_at__isnull=True,
                    item__in_stock=True,
                    item__is_active=True,
                )
                .order_by("id")
                .values_list("pk", "customer_id", "item__name")[:PER_PASS]
            )
    for kind, orders in batches:
        for order in orders:
            facts = {"order": order.reference, "amount": format_money(order.total)}
            yield Due(kind, order.reference, order.customer_id, facts)
    for pk, customer_id, name in asks:
        yield Due(Kind.BACK_IN_STOCK, f"ask-{pk}", customer_id, {"item": name})


def _capped(tid: UUID, customer_id: int, rules: MessagingSettings) -> bool:
    since = timezone.now() - timedelta(days=rules.nudge_cap_days)
    sent = Nudge.objects.filter(
        tenant_id=tid, customer_id=customer_id, created_at__gte=since, outbound__isnull=False
    ).count()
    return sent >= rules.nudges_per_customer


def send_nudge(tenant_id: UUID, due: Due, rules: MessagingSettings) -> str:
    """Send one nudge (or record why not); the outcome. One transaction with its row."""
    spec = SPECS[Kind(due.kind)]
    with tenant_context(tenant_id) as tid:
        if _capped(tid, due.customer_id, rules):
            return "capped"  # not recorded: it may go once the cap frees
        try:
            with transaction.atomic():
                nudge = Nudge.objects.create(
                    tenant_id=tid, kind=due.kind, subject=due.subject, customer_id=due.customer_id
                )
        except IntegrityError:
            return "already"
        outcome, message_id = _deliver(tid, spec, due)
        Nudge.objects.filter(pk=nudge.pk).update(outcome=outcome[:300], outbound_id=message_id)
        if due.kind == Kind.BACK_IN_STOCK:
            ask = int(due.subject.removeprefix("ask-"))
            StockRequest.objects.filter(tenant_id=tid, pk=ask).update(notified_at=timezone.now())
    return outcome


def _deliver(tid: UUID, spec: NudgeSpec, due: Due) -> tuple[str, int | None]:
    refused = consent.refusal(tid, due.customer_id, spec.category)
    if refused:
        return f"not sent: {refused}", None
    conversation = latest_conversation(tid, due.customer_id)
    request_id = f"nudge-{due.kind}-{due.subject}"[:64]
    if gate.in_window(conversation):
        customer = get_customer(tid, due.customer_id)
        language = customer.language_preference or get_tenant(tid).default_language
        text = say(f"nudges.{due.kind}", language, **due.facts)
        ids = queue_reply(tid, conversation.pk, [text], request_id, purpose=due.kind)
        return "sent in the window", ids[0]
    template = approved_template(tid, due.kind, gate.template_languages(conversation))
    if template is None or template.category != spec.category:
        return f"not sent: no approved {spec.category} '{due.kind}' template", None
    variables = {str(n): due.facts[name] for n, name in enumerate(spec.facts, start=1)}
    ids = queue_template(tid, conversation.pk, template.pk, variables, request_id, purpose=due.kind)
    row = OutboundMessage.objects.filter(pk=ids[0]).values_list("status", "error_message").get()
    if row[0] == OutboundMessage.Status.NOT_SENT:
        return f"not sent: {row[1]}", ids[0]
    return "template queued", ids[0]


def run_nudges(tenant_id: UUID | str) -> int:
    """One pass for the shop; how many nudges were queued."""
    tid = UUID(str(tenant_id))
    rules = schedule.messaging_settings(tid)
    if schedule.quiet_ends(tid, settings=rules) is not None:
        return 0
    queued = 0
    for due in due_nudges(tid, rules):
        outcome = send_nudge(tid, due, rules)
        queued += outcome in ("sent in the window", "template queued")
    return queued


def record_stock_request(tenant_id: UUID | str, customer_id: int, item_id: int) -> bool:
    """Remember that the customer asked for an out-of-stock item (once while open)."""
    with tenant_context(tenant_id) as tid:
        known = CatalogItem.objects.filter(tenant_id=tid, pk=item_id).exists()
        if not known or not Customer.objects.filter(tenant_id=tid, pk=customer_id).exists():
            return False
        try:
            with transaction.atomic():
                StockRequest.objects.create(tenant_id=tid, customer_id=customer_id, item_id=item_id)
        except IntegrityError:
            return False
    return True
