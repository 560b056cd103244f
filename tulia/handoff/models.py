"""Handoff tickets, their activity log, agent presence and canned replies.

The queue is the set of open tickets; a conversation has at most one open ticket (a
partial unique constraint decides races), so repeated escalations of the same
conversation land on the same ticket.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from tenants.models import Customer, TenantOwnedModel
from tulia.conversations.models import Conversation


class Category(models.TextChoices):
    HUMAN_REQUEST = "human_request"
    PAYMENT_DISPUTE = "payment_dispute"
    REFUND = "refund"
    RETURN = "return"
    DELIVERY_COMPLAINT = "delivery_complaint"
    MISSING_INFO = "missing_info"
    TOOL_ERRORS = "tool_errors"
    SENSITIVE = "sensitive"
    FRUSTRATION = "frustration"
    KEYWORD = "keyword"


class Priority(models.TextChoices):
    LOW = "low"
    NORMAL = "normal"
    HIGH = "high"
    URGENT = "urgent"


class TicketStatus(models.TextChoices):
    OPEN = "open"  # in the queue, nobody has it yet
    ASSIGNED = "assigned"
    RESOLVED = "resolved"


OPEN_TICKET_STATUSES = (TicketStatus.OPEN, TicketStatus.ASSIGNED)


class HandoffTicket(TenantOwnedModel):
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="+")
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="+")
    category = models.CharField(max_length=24, choices=Category.choices, verbose_name=_("category"))
    priority = models.CharField(max_length=8, choices=Priority.choices, default=Priority.NORMAL)
    reason = models.CharField(max_length=300)
    status = models.CharField(
        max_length=12, choices=TicketStatus.choices, default="open", verbose_name=_("status")
    )
    # How the desk answered at opening time: reconnected, queued, after_hours, no_agents.
    outcome = models.CharField(max_length=16, blank=True)
    # Everything an agent needs without asking the customer again (TicketContext).
    context = models.JSONField(default=dict)
    assigned_to = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    request_id = models.CharField(max_length=64, blank=True)
    opened_at = models.DateTimeField(auto_now_add=True)
    assigned_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "conversation"],
                condition=models.Q(status__in=["open", "assigned"]),
                name="ticket_one_open_per_conversation",
            )
        ]
        indexes = [models.Index(fields=["tenant", "status", "opened_at"], name="ticket_queue")]

    def __str__(self) -> str:
        return f"ticket {self.pk} ({self.category}, {self.status})"


class TicketEvent(TenantOwnedModel):
    """Append-only activity: claims, replies, internal notes, transfers, hand-backs."""

    class Kind(models.TextChoices):
        OPENED = "opened"
        CLAIMED = "claimed"
        REPLY = "reply"
        NOTE = "note"
        TRANSFERRED = "transferred"
        HANDED_BACK = "handed_back"
        RESOLVED = "resolved"
        CLOSED = "closed"

    ticket = models.ForeignKey(HandoffTicket, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=16, choices=Kind.choices, verbose_name=_("kind"))
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    body = models.TextField(blank=True, verbose_name=_("body"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        indexes = [models.Index(fields=["tenant", "ticket", "id"], name="ticket_events")]

    def __str__(self) -> str:
        return f"{self.kind} on ticket {self.ticket_id}"


class AgentPresence(TenantOwnedModel):
    class Status(models.TextChoices):
        ONLINE = "online"
        AWAY = "away"
        OFFLINE = "offline"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="handoff_presence",
        verbose_name=_("user"),
    )
    status = models.CharField(
        max_length=8, choices=Status.choices, default=Status.OFFLINE, verbose_name=_("status")
    )
    # Blank uses the tenant's handoff agent_capacity.
    capacity = models.PositiveSmallIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    def __str__(self) -> str:
        return f"{self.user} ({self.status})"


class CannedReply(TenantOwnedModel):
    title = models.CharField(max_length=80, verbose_name=_("title"))
    body = models.TextField(max_length=1500, verbose_name=_("body"))

    class Meta:
        verbose_name_plural = "canned replies"
        constraints = [
            models.UniqueConstraint(fields=["tenant", "title"], name="canned_reply_unique_title")
        ]

    def __str__(self) -> str:
        return self.title
