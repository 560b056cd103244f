"""Per-source counters: which chats, broadcasts and links bring visits and order taps.

One row per tenant, day and source, bumped with a single INSERT … ON CONFLICT, so
counting costs one round trip and two visits at once never lose a count.
"""

from __future__ import annotations

import re
from uuid import UUID

from django.db import connection
from django.utils import timezone

from tenants.accessors import tenant_scope
from tulia.storefront.models import SourceVisits

DIRECT = "direct"
# Tags come from our own links (src=chat, a broadcast's name); anything else is "other".
_TAG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
_COLUMNS = {"visits", "order_taps"}


def source_tag(raw: str | None) -> str:
    if not raw:
        return DIRECT
    tag = raw.strip().lower()
    return tag if _TAG.match(tag) else "other"


def count(tenant_id: UUID | str, source: str, column: str) -> None:
    if column not in _COLUMNS:
        raise ValueError(f"not a counter: {column}")
    table = SourceVisits._meta.db_table
    sql = (
        f"INSERT INTO {table} (tenant_id, day, source, visits, order_taps) "  # noqa: S608 - fixed names
        f"VALUES (%s, %s, %s, %s, %s) ON CONFLICT (tenant_id, day, source) "
        f"DO UPDATE SET {column} = {table}.{column} + 1"
    )
    visits, taps = (1, 0) if column == "visits" else (0, 1)
    with tenant_scope(tenant_id) as tid, connection.cursor() as cursor:
        cursor.execute(sql, [str(tid), timezone.localdate(), source_tag(source), visits, taps])
