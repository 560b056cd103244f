"""One batch of a campaign: claimed in one transaction, sent over one connection.

Sending a recipient at a time cost about forty queries (a dozen transactions) and a new
Twilio client per message. The facts the gate checks are per campaign or can be judged
in bulk, so a batch asks them once and keeps every guarantee:

1. **Claim** (one transaction, holding the sender's limit row as the gate does): the
   template is read (not approved: the campaign pauses, nothing is claimed); the tier's
   marketing allowance is counted once and bounds the batch; one statement takes the
   next queued recipients (SKIP LOCKED) and marks each `sending` if the consent ledger
   allows marketing *now*, `skipped` otherwise (so an opt-out recorded after the audience
   was written is honoured, judged by the same rule as the gate); the customers' open
   conversations are found or created together; their send leases are taken together
   (send_leases.py; a conversation another deliverer holds goes back to the queue); and
   one outbound row per recipient is written `sending`. Then it commits.
2. **Send** each over the backend's kept-alive connection, within the sender's
   per-second rate (rate.py: exact over any rolling second).
3. **Record** Twilio's answers in groups (one statement for the outbound rows, one for
   the recipients). A worker that dies before recording leaves rows `sending` under
   leases that run out; they are looked up in Twilio's Message list before anything is
   sent again (sending.settle_in_doubt, the sweeper).

Twilio codes that mean WhatsApp is unhappy with the number or the template stop the
batch at once: the part not yet sent goes back to the queue and the campaign pauses.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from django.db import connection
from django.db.models import Count
from django.utils import timezone

from tenants.accessors import get_tenant
from tenants.context import tenant_context
from tenants.models import Customer, WhatsAppSender
from tulia.campaigns import optouts
from tulia.campaigns.models import Campaign, CampaignRecipient
from tulia.campaigns.notices import TWILIO_STOPS, Reason
from tulia.campaigns.rate import RateGate
from tulia.conversations.models import Conversation, OutboundMessage
from tulia.observability import metrics
from tulia.whatsapp import consent, delivery, dispatch, limits, send_leases
from tulia.whatsapp.backends import OutgoingMessage, SendError, WhatsAppBackend
from tulia.whatsapp.gate import TEMPLATE_REFUSALS
from tulia.whatsapp.models import MessageTemplate
from tulia.whatsapp.status import release_held

Recipient = CampaignRecipient
OutStatus = OutboundMessage.Status
CLAIM_BATCH = 100
RECORD_EVERY = 50
# Meta's per-user marketing limit: one refusal is one customer; many mean the audience
# is tired of marketing, and the campaign pauses for the owner to look.
PER_USER_LIMIT = 63049
OPTED_OUT_MID_BATCH = "the customer opted out while the batch was sending"
PER_USER_PAUSE_SHARE = 0.05
PER_USER_PAUSE_MIN = 5


@dataclass
class BatchOutcome:
    claimed: int = 0
    sent: int = 0
    skipped: int = 0
    failed: int = 0
    tier_full: bool = False
    stop: Reason | None = None  # why the campaign must pause
    handed: set[int] = field(default_factory=set)  # conversations left to the delivery task


@dataclass(frozen=True)
class Claimed:
    recipient_id: int
    outbound_id: int
    conversation_id: int
    to_address: str
    customer_id: int


@dataclass(frozen=True)
class Answer:
    """Twilio's answer for one claimed recipient, waiting to be recorded."""

    claimed: Claimed
    status: str  # the outbound row's new status
    sid: str | None = None
    at: datetime | None = None
    code: int | None = None
    error: str = ""


@dataclass(frozen=True)
class Claim:
    """What a claim committed: the recipients to send, how, and the leases held."""

    items: list[Claimed]
    sender: WhatsAppSender
    template: MessageTemplate
    lease: send_leases.BatchLease
    optouts_seen: int  # the shop's opt-out counter before consent was judged


def send_batch(
    tenant_id: UUID,
    campaign: Campaign,
    rate: RateGate,
    backend: WhatsAppBackend,
    size: int = CLAIM_BATCH,
) -> BatchOutcome:
    """Claim, send and record up to `size` recipients (see the module doc)."""
    outcome = BatchOutcome()
    with ExitStack() as stack:  # the send leases, released when the batch is recorded
        claim = _claim(tenant_id, campaign, size, stack, outcome)
        if claim is not None:
            _send(tenant_id, campaign, claim, rate=rate, backend=backend, outcome=outcome)
    for conversation_id in outcome.handed:  # leases released: the task may take them
        dispatch.enqueue_delivery(tenant_id, conversation_id)
    return outcome


# --- claim ------------------------------------------------------------------------------
_CLAIM_SQL = """
WITH picked AS (
    SELECT r.id, r.customer_id FROM {recipient} r
    WHERE r.tenant_id = %(tenant)s AND r.campaign_id = %(campaign)s AND r.status = 'queued'
    ORDER BY r.id LIMIT %(size)s FOR UPDATE SKIP LOCKED
), judged AS (
    SELECT p.id, c.id AS customer_id, c.phone_e164, {allowed} AS allowed
    FROM picked p JOIN {customer} c ON c.id = p.customer_id
)
UPDATE {recipient} r
SET status = CASE WHEN j.allowed THEN 'sending' ELSE 'skipped' END, claimed_at = %(now)s
FROM judged j WHERE r.id = j.id
RETURNING r.id, j.customer_id, j.phone_e164, j.allowed
"""


def _claim(
    tenant_id: UUID, campaign: Campaign, size: int, stack: ExitStack, outcome: BatchOutcome
) -> Claim | None:
    """The claim transaction (module doc, step 1); None when nothing is to be sent."""
    seen = optouts.version(tenant_id)  # read before the ledger is: none slips between
    with tenant_context(tenant_id) as tid:
        limit = limits.limit_for(tid, campaign.sender_id, lock=True)  # as the gate does
        if limit.capacity is not None:  # counting 24 hours' customers is not free: only
            usage = limits.usage(limit)  # when there is a ceiling to count against
            size = min(size, max(0, (usage.marketing_capacity or 0) - usage.used))
            if size == 0:
                outcome.tier_full = True
                return None
        template = MessageTemplate.objects.get(tenant_id=tid, pk=campaign.template_id)
        if template.status != MessageTemplate.Status.APPROVED or not template.content_sid:
            outcome.stop = Reason("template", {"name": template.name, "status": template.status})
            return None
        rows = _claim_rows(tid, campaign.pk, size)
        outcome.claimed = len(rows)
        refused = [customer for _, customer, _, allowed in rows if not allowed]
        _explain_skips(tid, campaign.pk, refused)
        outcome.skipped += len(refused)
        wanted = {pk: (customer, phone) for pk, customer, phone, allowed in rows if allowed}
        if not wanted:
            return None
        threads = _open_conversations(tid, campaign.sender_id, [c for c, _ in wanted.values()])
        lease = stack.enter_context(send_leases.hold_many(tid, threads.values()))
        busy = [pk for pk, (customer, _) in wanted.items() if threads[customer] not in lease.held]
        if busy:  # another deliverer has the conversation: left for the next batch
            Recipient.objects.filter(tenant_id=tid, pk__in=busy).update(
                status=Recipient.Status.QUEUED, claimed_at=None
            )
        go = [(pk, customer, phone) for pk, (customer, phone) in wanted.items() if pk not in busy]
        if not go:
            return None
        outbound = _write_outbound(tid, campaign, template, {pk: threads[c] for pk, c, _ in go})
        sender = WhatsAppSender.objects.get(tenant_id=tid, pk=campaign.sender_id)
    items = [
        Claimed(pk, outbound[pk], threads[customer], f"whatsapp:{phone}", customer)
        for pk, customer, phone in go
    ]
    return Claim(items, sender, template, lease, optouts_seen=seen)


def _claim_rows(tenant_id: UUID, campaign_id: int, size: int) -> list[tuple[int, int, str, bool]]:
    sql = _CLAIM_SQL.format(
        recipient=Recipient._meta.db_table,
        customer=Customer._meta.db_table,
        allowed=consent.marketing_allowed_sql("c.id"),
    )
    params: dict[str, Any] = {
        "tenant": tenant_id,
        "campaign": campaign_id,
        "size": size,
        "now": timezone.now(),
        "consent_tenant": tenant_id,
        "opt_in_required": get_tenant(tenant_id).compliance_settings.marketing_requires_opt_in,
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return sorted(cursor.fetchall())  # in id order, as the queue is


def _explain_skips(tenant_id: UUID, campaign_id: int, customers: list[int]) -> None:
    """The ledger's own words for each refused customer (few: read one by one)."""
    for customer_id in customers:
        reason = consent.refusal(tenant_id, customer_id, "marketing") or (
            "consent changed while the batch was claimed"
        )
        Recipient.objects.filter(
            tenant_id=tenant_id, campaign_id=campaign_id, customer_id=customer_id
        ).update(reason=f"marketing template not sent: {reason}"[:300])


def _open_conversations(tenant_id: UUID, sender_id: int, customers: list[int]) -> dict[int, int]:
    """customer → its open conversation on the sender, created where there is none."""

    def existing() -> dict[int, int]:
        return dict(
            Conversation.objects.filter(
                tenant_id=tenant_id,
                sender_id=sender_id,
                customer_id__in=customers,
                status__in=Conversation.OPEN_STATUSES,
            ).values_list("customer_id", "pk")
        )

    found = existing()
    missing = [c for c in customers if c not in found]
    if missing:  # a conversation opened meanwhile wins; ours is then not written
        with connection.cursor() as cursor:
            cursor.execute(
                _CONVERSATIONS_SQL.format(table=Conversation._meta.db_table),
                {"tenant": tenant_id, "sender": sender_id, "customers": missing,
                 "status": Conversation.Status.AI_ACTIVE.value, "now": timezone.now()},
            )  # fmt: skip
        found = existing()
    return found


# One statement for the batch, not a model instance per row: Django's bulk_create
# prepared every field of every row in Python (the claim's largest cost). Columns with
# Django-side defaults are written here, so these must follow the models' fields.
_CONVERSATIONS_SQL = """
INSERT INTO {table} (tenant_id, customer_id, sender_id, status, state, turn_count,
                     created_at, updated_at)
SELECT %(tenant)s, c, %(sender)s, %(status)s, '{{}}'::jsonb, 0, %(now)s, %(now)s
FROM unnest(%(customers)s::bigint[]) AS c
ON CONFLICT DO NOTHING
"""
_OUTBOUND_SQL = """
WITH v AS (
    SELECT * FROM unnest(%(recipients)s::bigint[], %(conversations)s::bigint[])
        AS v(recipient_id, conversation_id)
), made AS (
    INSERT INTO {outbound} (tenant_id, conversation_id, body, purpose, content_sid,
        content_variables, category, part_index, part_count, request_id, status, backend,
        error_message, attempts, created_at, status_updated_at)
    SELECT %(tenant)s, v.conversation_id, %(body)s, 'campaign', %(content_sid)s,
        %(variables)s::jsonb, %(category)s, 0, 1, %(prefix)s::text || v.recipient_id::text,
        %(status)s, '', '', 1, %(now)s, %(now)s
    FROM v
    RETURNING id, conversation_id
)
UPDATE {recipient} r SET outbound_id = made.id
FROM made JOIN v USING (conversation_id)
WHERE r.id = v.recipient_id AND r.tenant_id = %(tenant)s
RETURNING r.id, made.id
"""


def _write_outbound(
    tenant_id: UUID, campaign: Campaign, template: MessageTemplate, threads: dict[int, int]
) -> dict[int, int]:
    """One outbound row per recipient (recipient → conversation), committed `sending`
    before Twilio is called, and linked to its recipient: recipient → outbound row.
    A batch holds one recipient per customer, so the conversation pairs them."""
    params: dict[str, Any] = {
        "tenant": tenant_id,
        "recipients": list(threads),
        "conversations": list(threads.values()),
        "body": template.render(campaign.variables),
        "content_sid": template.content_sid,
        "variables": json.dumps(campaign.variables),
        "category": template.category,
        "prefix": f"campaign-{campaign.pk}-",
        "status": OutStatus.SENDING.value,  # committed before Twilio is called
        "now": timezone.now(),
    }
    sql = _OUTBOUND_SQL.format(
        outbound=OutboundMessage._meta.db_table, recipient=Recipient._meta.db_table
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return dict(cursor.fetchall())


# --- send -------------------------------------------------------------------------------
def _send(
    tenant_id: UUID,
    campaign: Campaign,
    claim: Claim,
    *,
    rate: RateGate,
    backend: WhatsAppBackend,
    outcome: BatchOutcome,
) -> None:
    callback = delivery.status_callback_url()
    sender = claim.sender
    token = sender.twilio_auth_token.reveal()
    waiting: list[Answer] = []
    seen, withdrawn = claim.optouts_seen, set[int]()
    for index, item in enumerate(claim.items):
        if claim.lease.lost:
            break  # the rest stays `sending`: looked up at Twilio before any resend
        rate.take(len(claim.items) - index)
        now_seen = rate.watched if rate.watched is not None else optouts.version(tenant_id)
        if now_seen != seen:  # a STOP since we judged
            seen, rest = now_seen, claim.items[index:]
            allowed = optouts.still_allowed(tenant_id, {i.customer_id for i in rest})
            withdrawn |= {i.customer_id for i in rest if i.customer_id not in allowed}
        if item.customer_id in withdrawn:
            waiting.append(Answer(item, OutStatus.NOT_SENT, error=OPTED_OUT_MID_BATCH))
            continue
        outgoing = OutgoingMessage(
            account_sid=sender.twilio_account_sid,
            auth_token=token,
            from_address=sender.whatsapp_address,
            to_address=item.to_address,
            body="",
            content_sid=claim.template.content_sid,
            content_variables=campaign.variables,
            status_callback=callback,
            request_id=f"campaign-{campaign.pk}-{item.recipient_id}",
        )
        answer = _ask(item, outgoing, backend)
        waiting.append(answer)
        if answer.status == OutStatus.PENDING:
            outcome.handed.add(item.conversation_id)
        stop = Reason("twilio", {"code": answer.code}) if answer.code in TWILIO_STOPS else None
        if answer.code == PER_USER_LIMIT or stop or len(waiting) >= RECORD_EVERY:
            _record(tenant_id, backend.name, waiting, outcome)
            waiting = []
        if answer.code == PER_USER_LIMIT:
            stop = _tired_audience(tenant_id, campaign.pk)
        if stop:
            outcome.stop = stop
            _unclaim(tenant_id, claim.items[index + 1 :])
            return
    _record(tenant_id, backend.name, waiting, outcome)


def _ask(item: Claimed, outgoing: OutgoingMessage, backend: WhatsAppBackend) -> Answer:
    try:
        result = backend.send(outgoing)
    except SendError as exc:
        error = str(exc)[:500]
        if exc.in_doubt:  # Twilio may have it: stays `sending`, looked up before a resend
            return Answer(item, OutStatus.SENDING, code=exc.code, error=error)
        if exc.retryable:  # the delivery task retries it, with its back-off
            return Answer(item, OutStatus.PENDING, code=exc.code, error=error)
        final = OutStatus.NOT_SENT if exc.code in TEMPLATE_REFUSALS else OutStatus.FAILED
        return Answer(item, final, code=exc.code, error=error)
    status = result.status if result.status in _KNOWN else OutStatus.QUEUED
    return Answer(item, status, sid=result.sid, at=timezone.now())


_KNOWN = frozenset(OutStatus.values)
_RECIPIENT_STATUS: dict[str, str] = {
    OutStatus.NOT_SENT: Recipient.Status.SKIPPED,
    OutStatus.FAILED: Recipient.Status.FAILED,
}


def _record(
    tenant_id: UUID, backend_name: str, answers: list[Answer], outcome: BatchOutcome
) -> None:
    """Twilio's answers onto the outbound rows and recipients (two statements), then
    the status callbacks that beat their sid (whatsapp/status.py)."""
    if not answers:
        return
    write_answers(tenant_id, backend_name, answers, outcome)
    # Committed: callbacks that beat their sid here are applied now.
    release_held(tenant_id, [a.sid for a in answers if a.sid is not None])
    for status in {a.status for a in answers}:
        count = sum(1 for a in answers if a.status == status)
        metrics.MESSAGES_OUT.labels(tenant=str(tenant_id), status=status).inc(count)


def write_answers(
    tenant_id: UUID, backend_name: str, answers: list[Answer], outcome: BatchOutcome
) -> None:
    """The two statements of `_record`, committed when they return."""
    out_values = ", ".join(
        ["(%s::bigint, %s, %s, %s::timestamptz, %s::integer, %s)"] * len(answers)
    )
    out_params: list[Any] = []
    settled: list[tuple[int, str, datetime | None, str]] = []
    for a in answers:
        out_params += [a.claimed.outbound_id, a.status, a.sid, a.at, a.code, a.error]
        if a.sid is not None:
            settled.append((a.claimed.recipient_id, Recipient.Status.SENT, a.at, ""))
            outcome.sent += 1
        elif a.status in _RECIPIENT_STATUS:
            reason = f"{a.code or ''} {a.error}".strip()[:300]
            settled.append((a.claimed.recipient_id, _RECIPIENT_STATUS[a.status], None, reason))
            if a.status == OutStatus.NOT_SENT:
                outcome.skipped += 1
            else:
                outcome.failed += 1
    outbound, recipient = OutboundMessage._meta.db_table, Recipient._meta.db_table
    with tenant_context(tenant_id) as tid, connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {outbound} o SET status = v.status, twilio_sid = v.sid, backend = %s, "  # noqa: S608 - table names only
            "sent_at = v.at, status_updated_at = now(), error_code = v.code, "
            f"error_message = v.error FROM (VALUES {out_values}) "
            "AS v(id, status, sid, at, code, error) "
            "WHERE o.id = v.id AND o.tenant_id = %s AND o.status = 'sending'",
            [backend_name, *out_params, tid],
        )
        if settled:
            values = ", ".join(["(%s::bigint, %s, %s::timestamptz, %s)"] * len(settled))
            cursor.execute(
                f"UPDATE {recipient} r SET status = v.status, sent_at = v.at, reason = v.reason "  # noqa: S608 - table names only
                f"FROM (VALUES {values}) AS v(id, status, at, reason) "
                "WHERE r.id = v.id AND r.tenant_id = %s AND r.status = 'sending'",
                [*(x for row in settled for x in row), tid],
            )


def _unclaim(tenant_id: UUID, items: list[Claimed]) -> None:
    """Back to the queue: recipients claimed but never sent (we still hold the leases,
    so nobody else sent them either)."""
    if not items:
        return
    with tenant_context(tenant_id) as tid:
        Recipient.objects.filter(
            tenant_id=tid, pk__in=[i.recipient_id for i in items], status=Recipient.Status.SENDING
        ).update(status=Recipient.Status.QUEUED, outbound=None, claimed_at=None)
        OutboundMessage.objects.filter(
            tenant_id=tid, pk__in=[i.outbound_id for i in items], status=OutStatus.SENDING
        ).delete()


def _tired_audience(tenant_id: UUID, campaign_id: int) -> Reason | None:
    """Pause once WhatsApp's per-user marketing refusals are a real share of attempts."""
    with tenant_context(tenant_id) as tid:
        counts = dict(
            Recipient.objects.filter(tenant_id=tid, campaign_id=campaign_id)
            .exclude(status__in=(Recipient.Status.QUEUED, Recipient.Status.SENDING))
            .values_list("outbound__error_code")
            .annotate(n=Count("id"))
            .values_list("outbound__error_code", "n")
        )
    refused, tried = counts.get(PER_USER_LIMIT, 0), sum(counts.values())
    if refused >= PER_USER_PAUSE_MIN and refused >= tried * PER_USER_PAUSE_SHARE:
        return Reason("tired", {"refused": refused, "tried": tried})
    return None
