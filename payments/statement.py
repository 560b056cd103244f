"""Staff confirm or refuse a held C2B payment from the shop's M-Pesa statement.

For a shop with no Daraja API initiator, Transaction Status cannot be asked: a person
who sees (or does not see) the receipt on the M-Pesa statement decides. The decision
is stored as an event (who, what, when) next to the claim it answers.
"""

from __future__ import annotations

import json
from uuid import UUID

from payments.inbox import store_event
from payments.ledger import Evidence, close_claims, refuse_unconfirmed, settle
from payments.models import PaymentEvent, PaymentMethod, PaymentRequest, PaymentStatus
from payments.mpesa.schemas import C2BTransaction
from payments.outcomes import PAID
from tenants.context import tenant_context


def decide_from_statement(
    tenant_id: UUID | str, payment_id: int, *, on_statement: bool, staff: str
) -> str | None:
    """Settle a held C2B payment as staff found it; None if it is not held any more."""
    with tenant_context(tenant_id) as tid:
        payment = (
            PaymentRequest.objects.select_for_update()
            .filter(
                tenant_id=tid,
                pk=payment_id,
                method=PaymentMethod.MPESA_C2B,
                status=PaymentStatus.PENDING_VERIFICATION,
            )
            .first()
        )
        if payment is None:
            return None
        decision = "on_statement" if on_statement else "not_on_statement"
        record = {"decision": decision, "staff": staff, "receipt": payment.provider_reference}
        event = store_event(
            tid,
            PaymentEvent.Kind.STAFF_CONFIRMATION,
            json.dumps(record),
            reference=payment.provider_reference,
            note=f"{decision} by {staff}",
        )
        if not on_statement:
            return refuse_unconfirmed(payment, event, f"not on the M-Pesa statement ({staff})")
        outcome = settle(payment, event, PAID, _claimed(payment, staff))
        close_claims(payment, event)
        return outcome


def _claimed(payment: PaymentRequest, staff: str) -> Evidence:
    claim = (
        payment.events.filter(kind=PaymentEvent.Kind.C2B_CONFIRMATION)
        .order_by("received_at", "pk")
        .first()
    )
    amount = C2BTransaction.model_validate_json(claim.raw_body).trans_amount if claim else None
    return Evidence(
        result_code="0",
        result_desc=f"confirmed from the M-Pesa statement by {staff}"[:255],
        receipt=payment.provider_reference,
        amount=amount,
    )
