"""Opt-outs that arrive while a batch is sending.

A batch judges consent when it claims its recipients and then spends a second or two
calling Twilio; a STOP in between must still be honoured. Reading the ledger before
every call would double the statements per send, so each withdrawal bumps a counter
per shop in Redis, and a batch reads that counter before each call (in the same Redis
call as its rate grant when it has one, rate.py; else one GET): only when it moved
are the batch's remaining customers judged again, in one statement, by the same SQL
rule as the claim (whatsapp/consent.py).

The counter moves when the withdrawal is saved and again when it commits: a batch that
looked between the two judged the ledger without it, and the second bump sends it back
to look again.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any
from uuid import UUID

from django.db import connection, transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from tenants.accessors import get_tenant
from tenants.context import tenant_context
from tenants.keys import tenant_key
from tenants.models import ConsentEvent, Customer
from tulia.redis_client import get_redis
from tulia.whatsapp import consent

COUNTER_SECONDS = 7 * 24 * 3600  # outlives any batch; a lost counter reads as 0


def key(tenant_id: UUID | str) -> str:
    return tenant_key(tenant_id, "campaign-optouts")


def version(tenant_id: UUID | str) -> int:
    """The shop's withdrawal counter: compare two readings, never the value."""
    return int(get_redis().get(key(tenant_id)) or 0)


def _bump(tenant_id: UUID | str) -> None:
    pipe = get_redis().pipeline()
    pipe.incr(key(tenant_id))
    pipe.expire(key(tenant_id), COUNTER_SECONDS)
    pipe.execute()


@receiver(post_save, sender=ConsentEvent, dispatch_uid="campaigns_optout_counter")
def _withdrawn(sender: type[ConsentEvent], instance: ConsentEvent, created: bool, **_: Any) -> None:
    if not created or instance.action != ConsentEvent.Action.WITHDRAWN:
        return
    tenant_id = instance.tenant_id
    _bump(tenant_id)
    transaction.on_commit(lambda: _bump(tenant_id))


def still_allowed(tenant_id: UUID, customer_ids: Collection[int]) -> set[int]:
    """Those of `customer_ids` the ledger allows marketing now (the claim's rule)."""
    if not customer_ids:
        return set()
    sql = (
        f"SELECT c.id FROM {Customer._meta.db_table} c "  # noqa: S608 - table name only
        "WHERE c.tenant_id = %(consent_tenant)s AND c.id = ANY(%(ids)s) "
        f"AND {consent.marketing_allowed_sql('c.id')}"
    )
    with tenant_context(tenant_id) as tid, connection.cursor() as cursor:
        cursor.execute(sql, {
            "consent_tenant": tid,
            "ids": list(customer_ids),
            "opt_in_required": get_tenant(tid).compliance_settings.marketing_requires_opt_in,
        })  # fmt: skip
        return {row[0] for row in cursor.fetchall()}
