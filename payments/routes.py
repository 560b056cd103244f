"""Per-purpose callback secrets: the unguessable part of every callback URL.

Each tenant has one secret per purpose (STK, C2B, Transaction Status, PesaPal IPN,
card return). The newest is the one handed out; rotation adds a new one while the old
keeps working, until the owner confirms the switch (`confirm_rotation`). C2B URLs are
registered once per shortcode in production, so for C2B the owner moves them in the
Daraja portal before confirming.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.urls import reverse

from payments.models import CallbackPurpose, CallbackSecret

# Callback URL name → the purpose whose secret it carries.
PURPOSE_OF: dict[str, str] = {
    "stk_callback": CallbackPurpose.STK,
    "c2b_validation": CallbackPurpose.C2B,
    "c2b_confirmation": CallbackPurpose.C2B,
    "txn_status_result": CallbackPurpose.TXN_STATUS,
    "txn_status_timeout": CallbackPurpose.TXN_STATUS,
    "pesapal_ipn": CallbackPurpose.PESAPAL_IPN,
    "pesapal_return": CallbackPurpose.CARD_RETURN,
    "refund_result": CallbackPurpose.REFUND,
    "refund_timeout": CallbackPurpose.REFUND,
}
_MAX_SECRET_LENGTH = 64


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _issue(tenant_id: UUID | str, purpose: str) -> str:
    secret = secrets.token_urlsafe(32)
    CallbackSecret.objects.create(
        tenant_id=tenant_id, purpose=purpose, digest=_digest(secret), secret=secret
    )
    return secret


def current_secret(tenant_id: UUID | str, purpose: str) -> str:
    """The secret handed out for `purpose` now, issued on first use."""
    with transaction.atomic():
        row = (
            CallbackSecret.objects.filter(tenant_id=tenant_id, purpose=purpose)
            .order_by("-created_at", "-pk")
            .first()
        )
        return row.secret.reveal() if row and row.secret else _issue(tenant_id, purpose)


def tenant_for_secret(secret: str, purpose: str) -> UUID | None:
    """The tenant whose still-valid `purpose` secret this is; None answers 404."""
    if not secret or len(secret) > _MAX_SECRET_LENGTH:
        return None
    row = (
        CallbackSecret.objects.filter(digest=_digest(secret), purpose=purpose)
        .only("tenant_id")
        .first()
    )
    return row.tenant_id if row else None


def callback_path(tenant_id: UUID | str, name: str) -> str:
    return reverse(
        f"payments:{name}", kwargs={"token": current_secret(tenant_id, PURPOSE_OF[name])}
    )


def callback_url(tenant_id: UUID | str, name: str) -> str:
    """Absolute URL of callback `name` for the tenant, on the public base URL."""
    return f"{settings.PUBLIC_BASE_URL}{callback_path(tenant_id, name)}"


def ensure_secrets(tenant_id: UUID | str) -> None:
    for purpose in CallbackPurpose.values:
        current_secret(tenant_id, purpose)


@dataclass(frozen=True)
class RotationState:
    # Purposes for which an older secret is still accepted next to the current one.
    pending: tuple[str, ...]

    @property
    def in_progress(self) -> bool:
        return bool(self.pending)


def rotation_state(tenant_id: UUID | str) -> RotationState:
    purposes = CallbackSecret.objects.filter(tenant_id=tenant_id).values_list("purpose", flat=True)
    seen: dict[str, int] = {}
    for purpose in purposes:
        seen[purpose] = seen.get(purpose, 0) + 1
    return RotationState(tuple(sorted(p for p, n in seen.items() if n > 1)))


def start_rotation(tenant_id: UUID | str) -> None:
    """Issue a new secret per purpose; the old ones stay valid until confirmed."""
    with transaction.atomic():
        for purpose in CallbackPurpose.values:
            _issue(tenant_id, purpose)


def confirm_rotation(tenant_id: UUID | str) -> int:
    """Retire every secret but the newest per purpose; returns how many stopped working."""
    retired = 0
    with transaction.atomic():
        for purpose in CallbackPurpose.values:
            rows = CallbackSecret.objects.filter(tenant_id=tenant_id, purpose=purpose)
            newest = rows.order_by("-created_at", "-pk").values_list("pk", flat=True).first()
            if newest is not None:
                retired += rows.exclude(pk=newest).delete()[0]
    return retired
