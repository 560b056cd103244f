"""Issuing, checking and revoking tenant API keys.

A key reads `tulia_<prefix>_<secret>`. The prefix finds the row; the secret is random
(256 bits), so a plain SHA-256 of it is enough: there is nothing to brute-force.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from tenants.context import tenant_context
from tenants.models import TenantMembership
from tulia.commerce.models import ApiKey
from tulia.commerce.models.api_keys import PREFIX_SETTING

KEY_PREFIX = "tulia_"


@dataclass(frozen=True)
class IssuedKey:
    key: ApiKey
    plaintext: str  # shown once, never stored


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _is_staff(tenant_id: UUID, user_id: int) -> bool:
    return TenantMembership.objects.filter(tenant_id=tenant_id, user_id=user_id).exists()


def issue_key(
    tenant_id: UUID | str,
    name: str,
    *,
    scopes: Sequence[str] = (),
    agent_id: int | None = None,
) -> IssuedKey:
    """A new key; with the conversations scope it must name the agent it speaks as."""
    prefix, secret = secrets.token_hex(6), secrets.token_urlsafe(32)
    with tenant_context(tenant_id) as tid:
        key = ApiKey(
            tenant_id=tid,
            name=name,
            prefix=prefix,
            secret_hash=_hash(secret),
            scopes=sorted(set(scopes)),
            agent_id=agent_id,
        )
        key.clean()
        if agent_id is not None and not _is_staff(tid, agent_id):
            raise ValidationError({"agent": "The agent must be staff of this shop."})
        key.save()
    return IssuedKey(key, f"{KEY_PREFIX}{prefix}_{secret}")


def revoke_key(tenant_id: UUID | str, key_id: int) -> None:
    with tenant_context(tenant_id) as tid:
        ApiKey.objects.filter(tenant_id=tid, pk=key_id, revoked_at=None).update(
            revoked_at=timezone.now()
        )


def _split(presented: str) -> tuple[str, str] | None:
    if not presented.startswith(KEY_PREFIX):
        return None
    prefix, _, secret = presented.removeprefix(KEY_PREFIX).partition("_")
    return (prefix, secret) if prefix and secret else None


def verify_key(presented: str) -> ApiKey | None:
    """The active key matching `presented`, or None. Constant-time secret comparison."""
    parts = _split(presented)
    if parts is None:
        return None
    prefix, secret = parts
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT set_config(%s, %s, true)", [PREFIX_SETTING, prefix])
        key = ApiKey.objects.filter(prefix=prefix, revoked_at=None).first()
        cursor.execute("SELECT set_config(%s, '', true)", [PREFIX_SETTING])
    if key is None or not hmac.compare_digest(key.secret_hash, _hash(secret)):
        return None
    with tenant_context(key.tenant_id):
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=timezone.now())
    return key
