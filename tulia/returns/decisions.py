"""What staff do with a return request: approve or reject it, record the item back,
refund it by the method paid (payments.refunds). The customer is told each step in
their language through the outbound gate; a step already taken is not taken twice."""

from __future__ import annotations

import logging
import re
from decimal import Decimal
from uuid import UUID

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from payments.models import Refund
from payments.refunds import request_refund
from tenants.accessors import get_tenant
from tenants.context import tenant_context
from tenants.errors import NotFound
from tulia.commerce.errors import OrderStateError, OutOfStock
from tulia.commerce.models import Order, Variant
from tulia.conversations.services import notice_language
from tulia.returns.models import ReturnPolicy, ReturnRequest
from tulia.text import notice
from tulia.whatsapp import purposes

logger = logging.getLogger("tulia.returns")
# A size number, after "size"/"saizi" or alone (two digits, half sizes allowed).
SIZE = re.compile(r"(?:\b(?:size|saizi|sz)\s*)?\b(\d{1,2}(?:\.5)?)\b", re.IGNORECASE)


def _locked(tenant_id: UUID, request_id: int) -> ReturnRequest:
    found = (
        ReturnRequest.objects.select_for_update()
        .select_related("order", "customer")
        .filter(tenant_id=tenant_id, pk=request_id)
        .first()
    )
    if found is None:
        raise NotFound("return request not found")
    return found


def decide(tenant_id: UUID | str, request_id: int, *, approve: bool, actor: str) -> bool:
    """Approve or reject; False when it was already decided (nothing changes).

    Approving an exchange sets the wanted variant aside (its stock taken now); when
    it is not in stock the request stays undecided, the customer is told, and
    OutOfStock says so to the person deciding."""
    with transaction.atomic(), tenant_context(tenant_id) as tid:
        request = _locked(tid, request_id)
        if request.decision:
            return False
        exchange = request.action == ReturnRequest.Action.EXCHANGE
        if approve and exchange and not _set_aside(tid, request):
            _tell(request, "exchange_no_stock")
            short = True
        else:
            short = False
            request.decision = "approved" if approve else "rejected"
            request.decided_by, request.decided_at = actor[:80], timezone.now()
            request.save(update_fields=["decision", "decided_by", "decided_at", "replacement_sku"])
            approved = "exchange_approved" if exchange else "staff_approved"
            _tell(request, approved if approve else "staff_rejected")
    if short:  # after the notice committed
        raise OutOfStock(f"{request.wanted or 'the wanted size'} is not in stock", available=0)
    return True


def _set_aside(tid: UUID, request: ReturnRequest) -> bool:
    """Take one of the wanted size of the exchanged item out of stock, if there is one."""
    size = wanted_size(request.wanted)
    lines = [line for line in request.order.lines.all() if line.variant_id is not None]
    line = next((x for x in lines if x.sku in request.skus), lines[0] if lines else None)
    if size is None or line is None:
        return False
    for variant in Variant.objects.select_for_update().filter(
        tenant_id=tid, item_id=line.item_id, is_active=True, stock__gte=1
    ):
        if str(variant.attributes.get("size", "")).strip() == size:
            Variant.objects.filter(pk=variant.pk).update(stock=F("stock") - 1)
            request.replacement_sku = variant.sku
            return True
    return False


def wanted_size(text: str) -> str | None:
    """ "size 43", "saizi 43", "43": the size asked for (a shoe or clothing number)."""
    found = SIZE.search(text or "")
    return found.group(1) if found else None


def mark_received(tenant_id: UUID | str, request_id: int, *, actor: str) -> bool:
    """The returned item is back in the shop; only for an approved request, once."""
    with transaction.atomic(), tenant_context(tenant_id) as tid:
        request = _locked(tid, request_id)
        if request.decision != "approved" or request.received_at is not None:
            return False
        request.received_at = timezone.now()
        request.save(update_fields=["received_at"])
        logger.info("return %s received by %s", request.pk, actor)
        _tell(request, "staff_received")
        return True


def refund(tenant_id: UUID | str, request_id: int, *, actor: str) -> Refund:
    """Refund an approved request: its lines (all when none were named), at most once."""
    with tenant_context(tenant_id) as tid:
        request = ReturnRequest.objects.select_related("order").get(tenant_id=tid, pk=request_id)
        if request.decision != "approved":
            raise OrderStateError(f"return {request.pk} is not approved")
        amount = _lines_total(request.order, request.skus)
        policy = ReturnPolicy.objects.filter(tenant_id=tid).first()
        keeps_fee = policy is None or not policy.refund_delivery_fee
    return request_refund(
        tenant_id,
        request.order_id,
        amount,
        key=f"return:{request.pk}",
        actor=actor,
        reason=f"{request.action} {request.order.reference}",
        withhold=request.order.delivery_fee if keeps_fee else Decimal(0),
    )


def _lines_total(order: Order, skus: list[str]) -> Decimal | None:
    """The named lines' share of what was paid; None for the whole order (all that is
    left, less the delivery fee unless the shop's policy refunds it)."""
    if not skus:
        return None
    lines = [line for line in order.lines.all() if line.sku in skus]
    if len(lines) == order.lines.count():
        return None
    share = sum((line.line_total for line in lines), Decimal(0))
    if order.subtotal > 0 and order.discount_total > 0:  # the offer applied to every line
        share = (share * (order.subtotal - order.discount_total) / order.subtotal).quantize(
            Decimal(1)
        )
    return share


def _tell(request: ReturnRequest, key: str) -> None:
    from tulia.whatsapp.outbound import send_to_customer  # whatsapp imports commerce

    language = notice_language(request.tenant_id, request.customer_id)
    wanted = request.wanted or "-"
    tone = get_tenant(request.tenant_id).tone_style
    body = notice(
        f"returns.{key}", language, tone, reference=request.order.reference, wanted=wanted
    )
    try:
        send_to_customer(
            request.tenant_id,
            request.customer_id,
            [body],
            f"return-{request.pk}-{key}",
            purpose=purposes.RETURN_DECISION,
            facts={"order": request.order.reference, "decision": body[:200]},
        )
    except NotFound:
        logger.warning("return %s: customer has no conversation to tell", request.pk)
