"""Tenants, their WhatsApp senders, staff memberships, customers and consent records."""

from __future__ import annotations

import uuid
import zoneinfo
from typing import Any, ClassVar

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from pydantic import ValidationError as PydanticValidationError

from tenants import config
from tenants.fields import EncryptedSecretField
from tenants.phone import InvalidPhoneNumber, normalize_phone, whatsapp_address

LANGUAGE_CHOICES = [("en", "English"), ("sw", "Kiswahili"), ("sheng", "Sheng")]
PAYMENT_METHOD_CHOICES = [
    ("mpesa_stk", _("M-Pesa STK Push")),
    ("mpesa_c2b", _("M-Pesa Paybill/Till")),
    ("pesapal_card", _("Card via PesaPal")),
]


def _validate_with(schema: type[config._Strict], field: str, value: Any) -> dict[str, Any]:
    try:
        return schema.model_validate(value).model_dump(mode="json")
    except PydanticValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or field}: {err['msg']}" for err in exc.errors()
        )
        raise ValidationError({field: problems}) from exc


def _validate_languages(values: list[str], field: str) -> None:
    unknown = sorted(set(values) - set(config.LANGUAGES))
    if unknown:
        raise ValidationError({field: f"unknown language(s): {', '.join(unknown)}"})


def _validate_timezone(value: str) -> None:
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise ValidationError({"timezone": f"unknown timezone: {value!r}"}) from exc


class Tenant(models.Model):
    """A shop. Not itself tenant-owned: it is the root every tenant-owned row points to."""

    class Status(models.TextChoices):
        ACTIVE = "active"
        SUSPENDED = "suspended"

    class Tone(models.TextChoices):
        FRIENDLY = "friendly", _("Friendly")
        PROFESSIONAL = "professional", _("Professional")
        PLAYFUL = "playful", _("Playful")

    class Plan(models.TextChoices):
        # journeys.llm.settings.PLANS names the same plans (settings load before models).
        STARTER = "starter"
        GROWTH = "growth"
        PRO = "pro"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    slug = models.SlugField(max_length=50, unique=True, verbose_name=_("slug"))
    name = models.CharField(max_length=120, verbose_name=_("name"))
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.ACTIVE, verbose_name=_("status")
    )
    plan = models.CharField(
        max_length=16,
        choices=Plan.choices,
        default=Plan.STARTER,
        help_text=_("Billing plan; it also picks the AI model."),
    )
    bot_name = models.CharField(max_length=60, default="Tulia")
    bot_intro = models.CharField(max_length=400, blank=True)
    tone_style = models.CharField(max_length=16, choices=Tone.choices, default=Tone.FRIENDLY)
    default_language = models.CharField(max_length=8, choices=LANGUAGE_CHOICES, default="en")
    allowed_languages = ArrayField(
        models.CharField(max_length=8, choices=LANGUAGE_CHOICES), default=list, size=3, blank=True
    )
    max_chattiness_level = models.PositiveSmallIntegerField(
        default=1, validators=[MaxValueValidator(3)]
    )
    catalog_link_base = models.URLField(max_length=300, blank=True)
    payment_methods = ArrayField(
        models.CharField(max_length=16, choices=PAYMENT_METHOD_CHOICES),
        default=list,
        size=3,
        blank=True,
    )
    escalation_rules = models.JSONField(default=dict, blank=True)
    compliance = models.JSONField(default=dict, blank=True)
    timezone = models.CharField(max_length=64, default="Africa/Nairobi")
    handoff = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(max_chattiness_level__lte=3), name="tenant_chattiness_0_to_3"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        _validate_languages([self.default_language], "default_language")
        if not self.allowed_languages:
            self.allowed_languages = [self.default_language]
        _validate_languages(list(self.allowed_languages), "allowed_languages")
        if self.default_language not in self.allowed_languages:
            raise ValidationError({"allowed_languages": "must include the default language"})
        unknown = sorted(set(self.payment_methods) - set(config.PAYMENT_METHODS))
        if unknown:
            raise ValidationError({"payment_methods": f"unknown method(s): {', '.join(unknown)}"})
        _validate_timezone(self.timezone)
        self.escalation_rules = _validate_with(
            config.EscalationRules, "escalation_rules", self.escalation_rules
        )
        self.compliance = _validate_with(config.Compliance, "compliance", self.compliance)
        self.handoff = _validate_with(config.HandoffSettings, "handoff", self.handoff)

    # Typed views of the JSON configuration for the rest of the platform.
    @property
    def escalation(self) -> config.EscalationRules:
        return config.EscalationRules.model_validate(self.escalation_rules)

    @property
    def compliance_settings(self) -> config.Compliance:
        return config.Compliance.model_validate(self.compliance)

    @property
    def handoff_settings(self) -> config.HandoffSettings:
        return config.HandoffSettings.model_validate(self.handoff)


class TenantOwnedModel(models.Model):
    """Base for every row that belongs to one tenant; RLS is applied to its table."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")

    # An optional extra SQL clause that widens SELECT (see tenants.rls).
    rls_extra_read: ClassVar[str | None] = None

    class Meta:
        abstract = True


class TenantMembership(TenantOwnedModel):
    """A staff user's role in one tenant (Django admin access is scoped by it)."""

    class Role(models.TextChoices):
        OWNER = "owner"
        AGENT = "agent"

    # Staff read their own membership at sign-in, before any tenant is known.
    rls_extra_read = "user_id = tulia_current_staff_user()"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="tenant_membership",
        verbose_name=_("user"),
    )
    role = models.CharField(
        max_length=8, choices=Role.choices, default=Role.AGENT, verbose_name=_("role")
    )
    # What customers read when this person joins a chat (the login name stays internal).
    display_name = models.CharField(max_length=60, blank=True, verbose_name=_("display name"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "user"], name="membership_unique_per_tenant")
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.role})"


twilio_account_sid_validator = RegexValidator(
    r"^AC[0-9a-fA-F]{32}$", "a Twilio Account SID is AC followed by 32 hex characters"
)


class WhatsAppSender(TenantOwnedModel):
    """A WhatsApp number of the tenant's, connected through a Twilio account."""

    phone_e164 = models.CharField(max_length=16, help_text=_("E.164, e.g. +254711000001"))
    label = models.CharField(max_length=60, blank=True)
    twilio_account_sid = models.CharField(max_length=34, validators=[twilio_account_sid_validator])
    twilio_auth_token = EncryptedSecretField()
    is_active = models.BooleanField(default=True, verbose_name=_("is active"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "phone_e164"], name="sender_unique_number")
        ]

    def __str__(self) -> str:
        return self.whatsapp_address

    @property
    def whatsapp_address(self) -> str:
        return whatsapp_address(self.phone_e164)

    def clean(self) -> None:
        super().clean()
        try:
            self.phone_e164 = normalize_phone(self.phone_e164)
        except InvalidPhoneNumber as exc:
            raise ValidationError({"phone_e164": str(exc)}) from exc


class SenderRoute(models.Model):
    """Global number → tenant routing, maintained by a trigger on WhatsAppSender.

    The inbound webhook must find the tenant before any tenant context exists; this
    table is that narrow path. It holds no secrets, only which tenant owns a number.
    """

    phone_e164 = models.CharField(max_length=16, primary_key=True)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    sender_id = models.BigIntegerField(unique=True)

    def __str__(self) -> str:
        return self.phone_e164


class Customer(TenantOwnedModel):
    """A WhatsApp customer of one tenant; the same person at two shops is two rows."""

    phone_e164 = models.CharField(max_length=16)
    display_name = models.CharField(max_length=120, blank=True, verbose_name=_("display name"))
    language_preference = models.CharField(
        max_length=8,
        choices=LANGUAGE_CHOICES,
        blank=True,
        help_text=_("Blank means unknown"),
        verbose_name=_("language preference"),
    )
    marketing_opt_in = models.BooleanField(default=False, verbose_name=_("marketing opt in"))
    notifications_opt_in = models.BooleanField(default=True, verbose_name=_("notifications opt in"))
    consent_withdrawn_at = models.DateTimeField(
        null=True, blank=True, verbose_name=_("consent withdrawn at")
    )
    tags = ArrayField(
        models.CharField(max_length=40), default=list, blank=True, size=50, verbose_name=_("tags")
    )
    first_seen = models.DateTimeField(auto_now_add=True, verbose_name=_("first seen"))
    last_seen = models.DateTimeField(null=True, blank=True, verbose_name=_("last seen"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "phone_e164"], name="customer_unique_phone")
        ]
        indexes = [models.Index(fields=["tenant", "last_seen"], name="customer_recent")]

    def __str__(self) -> str:
        return self.display_name or self.phone_e164

    def clean(self) -> None:
        super().clean()
        try:
            self.phone_e164 = normalize_phone(self.phone_e164)
        except InvalidPhoneNumber as exc:
            raise ValidationError({"phone_e164": str(exc)}) from exc
        if self.language_preference:
            _validate_languages([self.language_preference], "language_preference")


class ConsentEvent(TenantOwnedModel):
    """Append-only audit of consent changes; a database trigger refuses edits."""

    class Kind(models.TextChoices):
        MARKETING = "marketing"
        NOTIFICATIONS = "notifications"
        ALL = "all"

    class Action(models.TextChoices):
        GRANTED = "granted"
        WITHDRAWN = "withdrawn"

    class Source(models.TextChoices):
        WHATSAPP = "whatsapp"
        ADMIN = "admin"
        API = "api"
        IMPORT = "import"

    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices, verbose_name=_("kind"))
    action = models.CharField(max_length=16, choices=Action.choices)
    source = models.CharField(max_length=16, choices=Source.choices, verbose_name=_("source"))
    evidence = models.CharField(max_length=500, blank=True, help_text=_("e.g. the message text"))
    request_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        indexes = [models.Index(fields=["tenant", "customer", "created_at"], name="consent_log")]

    def __str__(self) -> str:
        return f"{self.kind} {self.action} via {self.source}"
