"""Broadcasts (a marketing template, an audience, a schedule), their recipients, and nudges.

A campaign's recipients are rows written from its audience before the first send, one
per customer (a unique constraint: never twice). A recipient moves queued → sending →
sent, or ends skipped (the gate refused: consent, limit) or failed; `sending` is
committed before Twilio is called, so a worker that dies mid-call leaves a row that is
reconciled against Twilio's message list before anything is sent again.
"""

from __future__ import annotations

from datetime import time
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from tenants.models import Customer, TenantOwnedModel, WhatsAppSender
from tulia.campaigns import notices
from tulia.conversations.models import OutboundMessage
from tulia.whatsapp.models import MessageTemplate


class MessagingSettings(TenantOwnedModel):
    """A shop's rules for messages it starts: quiet hours, prices, nudges and their cap."""

    quiet_from = models.TimeField(default=time(21, 0), help_text=_("Shop time; nothing starts"))
    quiet_until = models.TimeField(default=time(8, 0), help_text=_("…until this shop time"))
    marketing_price_kes = models.DecimalField(
        max_digits=8, decimal_places=4, default=Decimal("0.8600"),
        help_text=_("What one marketing message costs the shop (KES), for previews"),
    )  # fmt: skip
    utility_price_kes = models.DecimalField(
        max_digits=8, decimal_places=4, default=Decimal("0.2500")
    )
    abandoned_cart = models.BooleanField(default=False, help_text=_("Nudge unpaid orders"))
    abandoned_cart_hours = models.PositiveSmallIntegerField(
        default=4, validators=[MinValueValidator(1), MaxValueValidator(72)]
    )
    back_in_stock = models.BooleanField(default=False, help_text=_("Tell customers who asked"))
    payment_reminder = models.BooleanField(
        default=False, help_text=_("Remind pending Paybill orders")
    )
    payment_reminder_hours = models.PositiveSmallIntegerField(
        default=2, validators=[MinValueValidator(1), MaxValueValidator(72)]
    )
    delivery_followup = models.BooleanField(
        default=False, help_text=_("Ask delivered orders to rate")
    )
    delivery_followup_hours = models.PositiveSmallIntegerField(
        default=24, validators=[MinValueValidator(1), MaxValueValidator(168)]
    )
    nudges_per_customer = models.PositiveSmallIntegerField(
        default=2, validators=[MaxValueValidator(10)], help_text=_("At most this many nudges…")
    )
    nudge_cap_days = models.PositiveSmallIntegerField(
        default=7, validators=[MinValueValidator(1), MaxValueValidator(60)],
        help_text=_("…per customer in this many days"),
    )  # fmt: skip

    class Meta:
        verbose_name = "messaging settings"
        verbose_name_plural = "messaging settings"
        constraints = [
            models.UniqueConstraint(fields=["tenant"], name="messaging_settings_one_per_tenant")
        ]

    def __str__(self) -> str:
        return "Messaging settings"

    def price(self, category: str) -> Decimal:
        return self.marketing_price_kes if category == "marketing" else self.utility_price_kes


class Campaign(TenantOwnedModel):
    class Status(models.TextChoices):
        DRAFT = "draft"
        SCHEDULED = "scheduled"
        RUNNING = "running"
        PAUSED = "paused"
        CANCELLED = "cancelled"
        DONE = "done"

    name = models.CharField(max_length=120, verbose_name=_("name"))
    template = models.ForeignKey(
        MessageTemplate, on_delete=models.PROTECT, related_name="+", verbose_name=_("template")
    )
    sender = models.ForeignKey(
        WhatsAppSender, on_delete=models.PROTECT, related_name="+", verbose_name=_("sender")
    )
    variables = models.JSONField(
        default=dict,
        blank=True,
        help_text=_('The template\'s variables, e.g. {"1": "Friday"}'),
        verbose_name=_("variables"),
    )
    audience = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("Which customers receive it, by tag or language"),
        verbose_name=_("audience"),
    )
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.DRAFT, verbose_name=_("status")
    )
    scheduled_at = models.DateTimeField(null=True, blank=True, verbose_name=_("scheduled at"))
    rate_per_second = models.PositiveSmallIntegerField(
        default=20, validators=[MinValueValidator(1), MaxValueValidator(80)],
        help_text=_("Messages sent per second (WhatsApp takes up to 80 per number)"),
    verbose_name=_("rate per second"),)  # fmt: skip
    attribution_days = models.PositiveSmallIntegerField(
        default=3, validators=[MinValueValidator(1), MaxValueValidator(30)],
        help_text=_("Orders within this many days of the message count for the campaign"),
    verbose_name=_("attribution days"),)  # fmt: skip
    audience_built = models.BooleanField(default=False, editable=False)
    next_run_at = models.DateTimeField(null=True, blank=True, editable=False)
    pause_reason = models.CharField(
        max_length=300, blank=True, editable=False, verbose_name=_("pause reason")
    )
    started_at = models.DateTimeField(null=True, blank=True, editable=False)
    finished_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        indexes = [models.Index(fields=["status", "next_run_at"], name="campaign_due")]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        template = self.template if self.template_id else None
        if template is not None and template.tenant_id != self.tenant_id:
            raise ValidationError({"template": "not one of this shop's templates"})
        if template is not None and template.category != MessageTemplate.Category.MARKETING:
            raise ValidationError({"template": "a broadcast uses a marketing template"})
        if self.sender_id and self.sender.tenant_id != self.tenant_id:
            raise ValidationError({"sender": "not one of this shop's numbers"})


class CampaignRecipient(TenantOwnedModel):
    class Status(models.TextChoices):
        QUEUED = "queued"
        SENDING = "sending"  # committed before the Twilio call
        SENT = "sent"  # Twilio accepted it (delivery and reads: the outbound row)
        SKIPPED = "skipped"  # the gate refused: consent withdrawn, template paused…
        FAILED = "failed"  # Twilio refused, or lost (in doubt and unverifiable)

    class Doubt(models.TextChoices):
        NONE = ""
        FOUND = "found"  # in doubt after a crash; Twilio had it: not sent again
        RESENT = "resent"  # in doubt; Twilio had nothing: sent (once) again
        LOST = "lost"  # in doubt; Twilio could not tell us: not sent again

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(
        max_length=8, choices=Status.choices, default=Status.QUEUED, verbose_name=_("status")
    )
    doubt = models.CharField(max_length=8, choices=Doubt.choices, default="", blank=True)
    outbound = models.ForeignKey(
        OutboundMessage, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.CharField(max_length=300, blank=True)
    queued_at = models.DateTimeField(auto_now_add=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "customer"], name="campaign_recipient_once")
        ]
        indexes = [models.Index(fields=["campaign", "status", "id"], name="recipient_next")]

    def __str__(self) -> str:
        return f"{self.customer_id} in {self.campaign_id}: {self.status}"


class CampaignEvent(TenantOwnedModel):
    """What the owner is told about a campaign: spread over days, paused, finished."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=24, verbose_name=_("kind"))
    text = models.CharField(max_length=500)  # in English, as the API and logs show it
    params = models.JSONField(default=dict, blank=True)  # the figures the text was worded from
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return self.text

    def shown(self) -> str:
        """The notice in the reader's language (notices.py); the stored text for the
        owner's own moves and for notices written before their figures were kept."""
        if self.kind not in notices.WORDING:
            return self.text
        try:
            return notices.render(self.kind, self.params)
        except KeyError:
            return self.text


class Nudge(TenantOwnedModel):
    """One automated nudge sent (or refused) to a customer: the frequency cap counts these,
    and (kind, subject, customer) is unique so a nudge never repeats."""

    class Kind(models.TextChoices):
        ABANDONED_CART = "abandoned_cart"
        BACK_IN_STOCK = "back_in_stock"
        PAYMENT_REMINDER = "payment_reminder"
        DELIVERY_FOLLOWUP = "delivery_followup"

    kind = models.CharField(max_length=20, choices=Kind.choices, verbose_name=_("kind"))
    subject = models.CharField(max_length=40, help_text=_("order reference or item id"))
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="+")
    outbound = models.ForeignKey(
        OutboundMessage, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    outcome = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "kind", "subject", "customer"], name="nudge_once"
            )
        ]
        indexes = [models.Index(fields=["tenant", "customer", "created_at"], name="nudge_cap")]

    def __str__(self) -> str:
        return f"{self.kind} {self.subject}"


class StockRequest(TenantOwnedModel):
    """A customer asked for an item that was out of stock: told when it is back."""

    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="+")
    item = models.ForeignKey(
        "commerce.CatalogItem", on_delete=models.CASCADE, related_name="+", verbose_name=_("item")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    notified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "customer", "item"],
                condition=models.Q(notified_at__isnull=True),
                name="stock_request_open_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.customer_id} wants {self.item_id}"
