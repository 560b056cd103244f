"""The soak's accounting, read from PostgreSQL after the drain.

- lost: a MessageSid the web accepted (200) that is not stored, or stored but never
  handled (still received/processing) — must be 0;
- duplicate replies: the same reply (first part) sent twice for one inbound turn, or more
  than one outcome message for one payment — must be 0;
- cross-tenant reads: a reply to shop k's customer that names another shop's marker
  (`Soak<j>`), or a tool call audited under one tenant for another tenant's
  conversation — must be 0.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.db import connection

from tenants.context import operator_context

MARKER = re.compile(r"Soak(\d{2})")


def query(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with operator_context("soak accounting"), connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def pending(sids: list[str]) -> int:
    """Accepted messages not yet handled (or not stored at all)."""
    handled = query(
        "SELECT count(*) FROM conversations_inboundmessage WHERE message_sid = ANY(%s)"
        " AND status IN ('processed', 'rate_limited', 'failed')",
        [sids],
    )[0][0]
    return len(sids) - int(handled)


def unsent_replies(tenant_ids: list[str], since: float) -> int:
    return int(
        query(
            "SELECT count(*) FROM conversations_outboundmessage WHERE tenant_id = ANY(%s::uuid[])"
            " AND created_at >= to_timestamp(%s) AND status IN ('pending', 'sending')",
            [tenant_ids, since],
        )[0][0]
    )


def drain(sids: list[str], tenant_ids: list[str], since: float, timeout: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if pending(sids) == 0 and unsent_replies(tenant_ids, since) == 0:
            break
        time.sleep(2.0)
    return time.monotonic() - started


@dataclass
class Accounts:
    accepted: int
    stored: int
    statuses: dict[str, int]
    lost: int
    replies_per_turn: dict[int, int]
    duplicate_replies: int
    duplicate_payment_messages: int
    cross_tenant_replies: int
    cross_tenant_tool_calls: int
    turn_ms: list[float]
    payments: dict[str, int]
    tickets: int
    agent_replies: int


def _inbound(sids: list[str]) -> list[tuple[Any, ...]]:
    return query(
        "SELECT i.status, i.request_id, i.tenant_id,"
        " extract(epoch FROM i.processed_at - i.received_at) * 1000"
        " FROM conversations_inboundmessage i WHERE i.message_sid = ANY(%s)",
        [sids],
    )


def _replies_per_turn(sids: list[str]) -> tuple[Counter[int], int]:
    """Replies (first parts) per inbound turn, and how many of them repeat a reply the
    same turn already sent. A turn may rightly send two different messages (its answer
    and, on first contact, the privacy notice); the same text twice is the duplicate."""
    rows = query(
        "SELECT i.id, count(o.id) FILTER (WHERE o.part_index = 0),"
        " count(DISTINCT o.body) FILTER (WHERE o.part_index = 0)"
        " FROM conversations_inboundmessage i LEFT JOIN conversations_outboundmessage o"
        " ON o.request_id = i.request_id AND o.tenant_id = i.tenant_id"
        " WHERE i.message_sid = ANY(%s) GROUP BY i.id",
        [sids],
    )
    per_turn = Counter(int(count) for _, count, _ in rows)
    return per_turn, sum(int(count) - int(distinct) for _, count, distinct in rows)


def _payment_messages(tenant_ids: list[str]) -> int:
    rows = query(
        "SELECT request_id, count(*) FROM conversations_outboundmessage"
        " WHERE tenant_id = ANY(%s::uuid[]) AND request_id LIKE 'payment-%%' AND part_index = 0"
        " GROUP BY tenant_id, request_id HAVING count(*) > 1",
        [tenant_ids],
    )
    return len(rows)


def _cross_tenant_replies(numbers: dict[str, int], since: float) -> int:
    rows = query(
        "SELECT tenant_id::text, body FROM conversations_outboundmessage"
        " WHERE tenant_id = ANY(%s::uuid[]) AND created_at >= to_timestamp(%s)",
        [list(numbers), since],
    )
    return sum(
        1
        for tenant_id, body in rows
        if any(int(found) != numbers[tenant_id] for found in MARKER.findall(body))
    )


def _cross_tenant_tool_calls(tenant_ids: list[str], since: float) -> int:
    return int(
        query(
            "SELECT count(*) FROM tools_toolcall t JOIN conversations_conversation c"
            " ON c.id = t.conversation_id WHERE t.tenant_id = ANY(%s::uuid[])"
            " AND t.created_at >= to_timestamp(%s) AND c.tenant_id <> t.tenant_id",
            [tenant_ids, since],
        )[0][0]
    )


def _payments(tenant_ids: list[str], since: float) -> dict[str, int]:
    rows = query(
        "SELECT status, count(*) FROM payments_paymentrequest WHERE tenant_id = ANY(%s::uuid[])"
        " AND created_at >= to_timestamp(%s) GROUP BY status",
        [tenant_ids, since],
    )
    return {status: int(count) for status, count in rows}


def _count(table: str, tenant_ids: list[str], since: float, column: str, extra: str = "") -> int:
    return int(
        query(
            f"SELECT count(*) FROM {table} WHERE tenant_id = ANY(%s::uuid[])"
            f" AND {column} >= to_timestamp(%s) {extra}",
            [tenant_ids, since],
        )[0][0]
    )


def settle(sids: list[str], numbers: dict[str, int], since: float) -> Accounts:
    tenant_ids = list(numbers)
    inbound = _inbound(sids)
    statuses = Counter(row[0] for row in inbound)
    per_turn, repeated = _replies_per_turn(sids)
    return Accounts(
        accepted=len(sids),
        stored=len(inbound),
        statuses=dict(statuses),
        lost=len(sids) - statuses["processed"] - statuses["rate_limited"] - statuses["failed"],
        replies_per_turn=dict(sorted(per_turn.items())),
        duplicate_replies=repeated,
        duplicate_payment_messages=_payment_messages(tenant_ids),
        cross_tenant_replies=_cross_tenant_replies(numbers, since),
        cross_tenant_tool_calls=_cross_tenant_tool_calls(tenant_ids, since),
        turn_ms=[float(row[3]) for row in inbound if row[3] is not None],
        payments=_payments(tenant_ids, since),
        tickets=_count("handoff_handoffticket", tenant_ids, since, "opened_at"),
        agent_replies=_count(
            "conversations_outboundmessage",
            tenant_ids,
            since,
            "created_at",
            "AND request_id LIKE 'soak-agent-%%'",
        ),
    )
