"""The current tenant, made per transaction for PostgreSQL Row-Level Security.

Every tenant-owned table has a policy comparing `tenant_id` with the transaction-local
setting `tulia.tenant_id`. `tenant_context` opens a transaction (or savepoint), sets it,
and restores the previous value on the way out, so nothing leaks to the next unit of
work on a pooled connection. Outside any context the setting is empty and tenant-owned
tables look empty: a missing tenant means nothing, never "all".

`operator_context` is the one explicit way to see across tenants (superusers in admin,
platform maintenance); every use names its reason. The database believes it only with
a claim made from TULIA_OPERATOR_KEY for this very session and transaction (see
tenants/migrations/0004_operator_mode_needs_a_key.py), so SQL alone cannot forge it.
"""

from __future__ import annotations

import contextvars
import hashlib
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from uuid import UUID

from django.conf import settings
from django.db import connection, transaction

TENANT_SETTING = "tulia.tenant_id"
OPERATOR_SETTING = "tulia.operator"
STAFF_USER_SETTING = "tulia.user_id"

_current_tenant: contextvars.ContextVar[UUID | None] = contextvars.ContextVar(
    "tulia_current_tenant", default=None
)
logger = logging.getLogger("tulia.security")


class TenantContextError(RuntimeError):
    """Tenant context used wrongly: missing tenant, or switching tenant mid-transaction."""


def current_tenant_id() -> UUID | None:
    """The tenant of the innermost `tenant_context`, or None outside one."""
    return _current_tenant.get()


def _coerce(tenant_id: UUID | str) -> UUID:
    if tenant_id is None or tenant_id == "":
        raise TenantContextError("tenant_id is required")
    try:
        return tenant_id if isinstance(tenant_id, UUID) else UUID(str(tenant_id))
    except ValueError as exc:
        raise TenantContextError(f"not a tenant id: {tenant_id!r}") from exc


@contextmanager
def _local_setting(name: str, value: str) -> Iterator[None]:
    """Set a transaction-local setting inside an atomic block, restoring it after."""
    outermost = not connection.in_atomic_block and connection.get_autocommit()
    with transaction.atomic(), connection.cursor() as cursor:
        if outermost:
            # The setting ends with this very transaction: nothing to read back or restore
            # (a round trip saved on every top-level context, several per turn).
            cursor.execute("SELECT set_config(%s, %s, true)", [name, value])
            yield
            return
        cursor.execute(
            "SELECT current_setting(%s, true), set_config(%s, %s, true)", [name, name, value]
        )
        previous = cursor.fetchone()[0] or ""
        yield
        # Only reached on success; on error the (savepoint) rollback restores the value.
        cursor.execute("SELECT set_config(%s, %s, true)", [name, previous])


@contextmanager
def tenant_context(tenant_id: UUID | str) -> Iterator[UUID]:
    """Run the block as `tenant_id`: queries see and write only that tenant's rows."""
    wanted = _coerce(tenant_id)
    active = _current_tenant.get()
    if active is not None and active != wanted:
        raise TenantContextError("cannot switch tenant inside another tenant's context")
    if active == wanted and connection.in_atomic_block:
        # Inside this tenant's own open context the setting is already `wanted` for the
        # whole transaction: a savepoint (so a failing block still rolls back alone) is
        # all a nested context needs, not two settings round trips.
        with transaction.atomic():
            yield wanted
        return
    token = _current_tenant.set(wanted)
    try:
        with _local_setting(TENANT_SETTING, str(wanted)):
            yield wanted
    finally:
        _current_tenant.reset(token)


@contextmanager
def operator_context(reason: str) -> Iterator[None]:
    """See every tenant's rows, for platform operators only. `reason` is logged."""
    if not reason:
        raise TenantContextError("operator_context needs a reason")
    logger.info("operator context opened: %s", reason)
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT tulia_operator_nonce()")
            nonce = cursor.fetchone()[0]
        with _local_setting(OPERATOR_SETTING, operator_claim(nonce)):
            yield


def operator_claim(nonce: str) -> str:
    """What `tulia_operator()` recomputes from its stored key; valid for one transaction."""
    material = f"{settings.TULIA_OPERATOR_KEY}|{nonce}".encode()
    return hashlib.sha256(material).hexdigest()


@contextmanager
def staff_identity(user_id: int) -> Iterator[None]:
    """Let a signed-in staff user read their own memberships before a tenant is known."""
    with _local_setting(STAFF_USER_SETTING, str(int(user_id))):
        yield
