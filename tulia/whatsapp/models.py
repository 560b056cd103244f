"""WhatsApp templates (mirrors of Twilio Content resources) and per-sender messaging limits.

Outside the 24-hour customer service window WhatsApp accepts only templates Meta has
approved, sent by their Content SID. A template row is the shop's copy of one Twilio
Content resource in one language; its approval status is whatever the last sync with
Twilio said, and only `approved` rows are ever sent.
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from tenants.models import TenantOwnedModel, WhatsAppSender
from tulia.conversations.models import OutboundMessage

VARIABLE = re.compile(r"\{\{(\d+)\}\}")
TEMPLATE_LANGUAGES = (("en", "English"), ("sw", "Swahili"))


def numbered_variables(body: str) -> list[str]:
    """The variable numbers a body uses, in order of first appearance ("1", "2", …)."""
    seen: list[str] = []
    for number in VARIABLE.findall(body):
        if number not in seen:
            seen.append(number)
    return seen


def body_problems(body: str, examples: dict[str, str]) -> list[str]:
    """WhatsApp's rules for a template body (protocols.md §1.7), as messages for a form."""
    problems = []
    numbers = numbered_variables(body)
    if sorted(numbers, key=int) != [str(n) for n in range(1, len(numbers) + 1)]:
        problems.append("variables must be numbered {{1}}, {{2}}, … without gaps")
    stripped = body.strip()
    if VARIABLE.match(stripped) or re.search(r"\{\{\d+\}\}$", stripped):
        problems.append("the body may not start or end with a variable")
    if re.search(r"\}\}\s*\{\{", body):
        problems.append("two variables may not be next to each other")
    missing = [n for n in numbers if not str(examples.get(n, "")).strip()]
    if missing:
        problems.append(f"give an example value for {{{{{missing[0]}}}}}")
    if len(body) > 1024:
        problems.append("a template body is at most 1024 characters")
    return problems


class MessageTemplate(TenantOwnedModel):
    """One WhatsApp template in one language, as created in Twilio's Content API."""

    class Category(models.TextChoices):
        UTILITY = "utility"
        MARKETING = "marketing"
        AUTHENTICATION = "authentication"

    class Status(models.TextChoices):
        DRAFT = "draft"  # not yet created at Twilio
        UNSUBMITTED = "unsubmitted"  # a Content SID, not yet sent for approval
        PENDING = "pending"  # Meta is reviewing it
        APPROVED = "approved"
        REJECTED = "rejected"
        PAUSED = "paused"
        DISABLED = "disabled"

    purpose = models.SlugField(
        max_length=40,
        help_text=_("What the platform uses it for, e.g. payment_received (blank: a shop's own)"),
        blank=True,
    )
    name = models.CharField(
        max_length=64,
        help_text=_("WhatsApp template name: lowercase letters, digits, underscores"),
        verbose_name=_("name"),
    )
    language = models.CharField(max_length=8, choices=TEMPLATE_LANGUAGES)
    category = models.CharField(max_length=16, choices=Category.choices, verbose_name=_("category"))
    body = models.TextField(
        help_text=_("Text with numbered variables {{1}}, {{2}}, …"), verbose_name=_("body")
    )
    examples = models.JSONField(
        default=dict, blank=True, help_text=_('An example per variable, e.g. {"1": "KIC-1042"}')
    )
    content_sid = models.CharField(max_length=34, blank=True)
    account_sid = models.CharField(max_length=34, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.DRAFT, verbose_name=_("status")
    )
    rejection_reason = models.CharField(max_length=500, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    synced_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "name", "language"], name="template_unique_name_language"
            )
        ]
        indexes = [
            models.Index(fields=["tenant", "purpose", "language", "status"], name="template_pick")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.language}, {self.status})"

    def clean(self) -> None:
        super().clean()
        if not re.fullmatch(r"[a-z0-9_]{1,64}", self.name):
            raise ValidationError({"name": "lowercase letters, digits and underscores only"})
        problems = body_problems(self.body, {str(k): str(v) for k, v in self.examples.items()})
        if problems:
            raise ValidationError({"body": problems})

    def render(self, variables: dict[str, str]) -> str:
        """The text a customer reads, for our records (Twilio renders the real one)."""
        return VARIABLE.sub(lambda m: variables.get(m.group(1), m.group(0)), self.body)


class SenderLimit(TenantOwnedModel):
    """A sender's Meta messaging tier and how much of it only utility messages may use.

    Meta caps the unique customers a number may reach with business-initiated messages
    in a rolling 24 hours. Marketing and utility share that cap, so a broadcast that
    used all of it would block "your order shipped"; the reserve keeps the last
    `utility_reserve_percent` of the tier for utility and authentication templates.
    """

    class Tier(models.TextChoices):
        T250 = "250", "250 a day"
        T1K = "1000", "1,000 a day"
        T10K = "10000", "10,000 a day"
        T100K = "100000", "100,000 a day"
        UNLIMITED = "unlimited", "Unlimited"

    sender = models.OneToOneField(
        WhatsAppSender, on_delete=models.CASCADE, related_name="+", verbose_name=_("sender")
    )
    tier = models.CharField(max_length=10, choices=Tier.choices, default=Tier.T250)
    utility_reserve_percent = models.PositiveSmallIntegerField(
        default=20, help_text=_("Share of the tier that marketing may never use (0 to 90)")
    )
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(utility_reserve_percent__lte=90), name="sender_reserve_max_90"
            )
        ]

    def __str__(self) -> str:
        return f"{self.sender} tier {self.tier}"

    @property
    def capacity(self) -> int | None:
        return None if self.tier == self.Tier.UNLIMITED else int(self.tier)


class NotSentMessage(OutboundMessage):
    """Outbound messages the gate or Twilio refused: what an agent or owner must see."""

    class Meta:
        proxy = True
        verbose_name = "message not sent"
        verbose_name_plural = "messages not sent"
