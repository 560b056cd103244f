"""Bulk statement check: the shop uploads its M-Pesa statement (CSV) and every held
Paybill/Till payment whose receipt is on it, for the same amount, is confirmed.

Each confirmation is `payments.statement.decide_from_statement`, the one-at-a-time
staff decision: it settles through the ledger and answers None for a payment that is
no longer held, so uploading the same statement twice confirms nothing twice.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from uuid import UUID

from payments.models import PaymentMethod, PaymentRequest, PaymentStatus
from payments.statement import decide_from_statement
from tenants.context import tenant_context
from tulia.errors import DomainError

# Safaricom's statement export names; lower-cased, without dots, for matching.
RECEIPT_COLUMNS = ("receipt no", "receipt", "receipt number", "transaction id")
PAID_IN_COLUMNS = ("paid in", "paid_in", "amount")
STATUS_COLUMNS = ("transaction status", "status")
MAX_STATEMENT_ROWS = 50_000


class StatementError(DomainError):
    """The file is not a statement we can read (no receipt or paid-in column)."""

    code = "unreadable_statement"


@dataclass
class StatementCheck:
    confirmed: list[str] = field(default_factory=list)
    amount_differs: list[str] = field(default_factory=list)
    rows_read: int = 0


def _column(header: list[str], names: tuple[str, ...]) -> int | None:
    cleaned = [name.strip().lower().replace(".", "") for name in header]
    for name in names:
        if name in cleaned:
            return cleaned.index(name)
    return None


def paid_in_rows(text: str) -> dict[str, Decimal]:
    """Receipt → amount paid in, for completed rows with money in."""
    rows = csv.reader(io.StringIO(text))
    header = next(rows, None)
    if header is None:
        raise StatementError("the file is empty")
    receipt_at, paid_at = _column(header, RECEIPT_COLUMNS), _column(header, PAID_IN_COLUMNS)
    status_at = _column(header, STATUS_COLUMNS)
    if receipt_at is None or paid_at is None:
        raise StatementError(
            "no 'Receipt No.' and 'Paid In' columns: is this the M-Pesa statement?"
        )
    found: dict[str, Decimal] = {}
    for number, row in enumerate(rows, start=1):
        if number > MAX_STATEMENT_ROWS:
            raise StatementError(f"at most {MAX_STATEMENT_ROWS} rows per statement")
        if len(row) <= max(receipt_at, paid_at):
            continue
        if (
            status_at is not None
            and len(row) > status_at
            and row[status_at].strip().lower() not in ("", "completed")
        ):
            continue
        amount = _amount(row[paid_at])
        if amount:
            found[row[receipt_at].strip().upper()] = amount
    return found


def _amount(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", "").strip() or "0")
    except InvalidOperation:
        return None


def confirm_from_statement(tenant_id: UUID | str, text: str, *, staff: str) -> StatementCheck:
    paid_in = paid_in_rows(text)
    check = StatementCheck(rows_read=len(paid_in))
    with tenant_context(tenant_id) as tid:
        held = list(
            PaymentRequest.objects.filter(
                tenant_id=tid,
                method=PaymentMethod.MPESA_C2B,
                status=PaymentStatus.PENDING_VERIFICATION,
                provider_reference__in=list(paid_in),
            ).values_list("pk", "provider_reference", "amount")
        )
    for payment_id, receipt, amount in held:
        if paid_in[receipt] != amount:
            check.amount_differs.append(receipt)
            continue
        if decide_from_statement(tid, payment_id, on_statement=True, staff=staff) is not None:
            check.confirmed.append(receipt)
    return check
