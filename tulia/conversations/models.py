"""Conversations and the WhatsApp messages in and out of them.

Inbound rows are stored before anything else happens (the webhook's only write), so a
message accepted from Twilio survives a broker outage or a worker crash; the turn
pipeline later attaches it to a conversation and marks it processed. Outbound rows are
stored before they are sent, one row per part, sent in id order.
"""

from __future__ import annotations

from django.db import models

from tenants.models import Customer, TenantOwnedModel, WhatsAppSender


class Conversation(TenantOwnedModel):
    """One thread between a customer and one of the tenant's WhatsApp numbers."""

    class Status(models.TextChoices):
        AI_ACTIVE = "ai_active"
        WAITING = "waiting"
        AGENT_ACTIVE = "agent_active"
        RESOLVED = "resolved"
        CLOSED = "closed"

    OPEN_STATUSES = (Status.AI_ACTIVE, Status.WAITING, Status.AGENT_ACTIVE)

    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="+")
    sender = models.ForeignKey(WhatsAppSender, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.AI_ACTIVE)
    # The conversation engine's state, written once per turn with the turn's replies.
    state = models.JSONField(default=dict, blank=True)
    turn_count = models.PositiveIntegerField(default=0)
    last_inbound_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "customer", "sender"],
                condition=models.Q(status__in=["ai_active", "waiting", "agent_active"]),
                name="conversation_one_open_per_thread",
            )
        ]
        indexes = [models.Index(fields=["tenant", "status", "updated_at"], name="conv_by_status")]

    def __str__(self) -> str:
        return f"conversation {self.pk} ({self.status})"


class InboundMessage(TenantOwnedModel):
    """A message Twilio delivered to our webhook; MessageSid is the idempotency key."""

    class Status(models.TextChoices):
        RECEIVED = "received"
        PROCESSING = "processing"
        PROCESSED = "processed"
        FAILED = "failed"
        # Stored over a rate limit: kept for the record, but no turn ever runs for it.
        RATE_LIMITED = "rate_limited"

    sender = models.ForeignKey(WhatsAppSender, on_delete=models.PROTECT, related_name="+")
    conversation = models.ForeignKey(
        Conversation, null=True, blank=True, on_delete=models.CASCADE, related_name="inbound"
    )
    message_sid = models.CharField(max_length=64)
    from_e164 = models.CharField(max_length=16)
    kind = models.CharField(max_length=16)
    body = models.TextField(blank=True)
    # The typed content (media metadata, location, button/list reply) as parsed.
    content = models.JSONField(default=dict)
    request_id = models.CharField(max_length=64)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RECEIVED)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=500, blank=True)
    received_at = models.DateTimeField()
    processing_started_at = models.DateTimeField(null=True, blank=True)
    # The fencing token of the lease under which the messages were last claimed: a turn
    # commits only while its messages still carry its token (conversations/locks.py).
    lease_token = models.CharField(max_length=32, blank=True, default="", db_default="")
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "message_sid"], name="inbound_unique_sid")
        ]
        indexes = [
            models.Index(
                fields=["tenant", "sender", "from_e164", "id"],
                condition=models.Q(status__in=["received", "processing"]),
                name="inbound_pending_thread",
            ),
            models.Index(
                fields=["received_at"],
                condition=models.Q(status__in=["received", "processing"]),
                name="inbound_pending_age",
            ),
        ]

    def __str__(self) -> str:
        return self.message_sid


class OutboundMessage(TenantOwnedModel):
    """One part of a reply; parts of a conversation are sent strictly in id order."""

    class Status(models.TextChoices):
        PENDING = "pending"  # stored, not yet handed to Twilio
        SENDING = "sending"  # claimed by a delivery task
        QUEUED = "queued"
        ACCEPTED = "accepted"
        SENT = "sent"
        DELIVERED = "delivered"
        READ = "read"
        UNDELIVERED = "undelivered"
        FAILED = "failed"
        # Refused by the outbound gate (outside the 24-hour window with no approved
        # template, no consent, over the messaging limit) or by Twilio for the same
        # reasons; error_message says why, for the agent and the owner.
        NOT_SENT = "not_sent"

    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="outbound"
    )
    body = models.TextField()
    # What the message is for (reply, agent_reply, payment_received…): picks the
    # template when the window is closed.
    purpose = models.CharField(max_length=40, blank=True)
    # Set when the message goes out as an approved template (ContentSid + variables);
    # `body` then holds the rendered text, for the record.
    content_sid = models.CharField(max_length=34, blank=True)
    content_variables = models.JSONField(default=dict, blank=True)
    category = models.CharField(max_length=16, blank=True)
    part_index = models.PositiveSmallIntegerField(default=0)
    part_count = models.PositiveSmallIntegerField(default=1)
    request_id = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    # NULL until sent: unique among sent messages, and many unsent rows may coexist.
    twilio_sid = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    backend = models.CharField(max_length=40, blank=True)
    error_code = models.PositiveIntegerField(null=True, blank=True)
    error_message = models.CharField(max_length=500, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    status_updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "twilio_sid"], name="outbound_unique_sid")
        ]
        indexes = [
            models.Index(
                fields=["tenant", "conversation", "id"],
                condition=models.Q(status__in=["pending", "sending"]),
                name="outbound_pending",
            ),
            models.Index(
                fields=["created_at"],
                condition=models.Q(status__in=["pending", "sending"]),
                name="outbound_pending_age",
            ),
        ]

    def __str__(self) -> str:
        return f"outbound {self.pk} ({self.status})"
