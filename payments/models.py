"""Payments: per-tenant provider accounts, one request per attempt, and the event log.

`PaymentRequest` is the authoritative record of a payment's status; everything else
(the conversation, tools, order status) reads it and never infers status on its own.
`PaymentEvent` keeps every raw callback and status query exactly as received; a
trigger in the migration refuses edits to the raw columns, so the log is evidence.
"""

from __future__ import annotations

import secrets

from django.db import models

from tenants.fields import EncryptedSecretField
from tenants.models import Tenant, TenantOwnedModel


def new_route_token() -> str:
    return secrets.token_urlsafe(24)


class CallbackRoute(models.Model):
    """Global token → tenant map: callbacks arrive before any tenant context exists.

    The token is the unguessable part of every callback URL the tenant gives to a
    provider. Like `tenants.SenderRoute` it holds no secrets, only ownership.
    """

    token = models.CharField(max_length=64, primary_key=True, default=new_route_token)
    tenant = models.OneToOneField(Tenant, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.token[:6]}… → {self.tenant_id}"


class Environment(models.TextChoices):
    SANDBOX = "sandbox"
    PRODUCTION = "production"


class MpesaAccount(TenantOwnedModel):
    """The tenant's Daraja app and shortcode (Paybill or Buy Goods till)."""

    class Kind(models.TextChoices):
        PAYBILL = "paybill", "Paybill"
        TILL = "till", "Buy Goods till"

    class IpCheck(models.TextChoices):
        OFF = "off", "Off"
        LOG = "log", "Log mismatches"
        ENFORCE = "enforce", "Refuse other sources"

    environment = models.CharField(
        max_length=16, choices=Environment.choices, default=Environment.SANDBOX
    )
    base_url = models.URLField(blank=True, help_text="Blank: Safaricom's host for the environment")
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.PAYBILL)
    shortcode = models.CharField(max_length=7, help_text="Paybill, or the till's store number")
    till_number = models.CharField(max_length=7, blank=True, help_text="Buy Goods only")
    consumer_key = models.CharField(max_length=128)
    consumer_secret = EncryptedSecretField()
    passkey = EncryptedSecretField()
    validate_c2b = models.BooleanField(
        default=False, help_text="Reject C2B payments with an unknown account or wrong amount"
    )
    stk_query_after_seconds = models.PositiveIntegerField(
        default=90, help_text="Query a pending STK push with no callback after this long"
    )
    stk_give_up_after_seconds = models.PositiveIntegerField(
        default=300, help_text="Mark a still-unanswered STK push timed out after this long"
    )
    source_ip_check = models.CharField(max_length=8, choices=IpCheck.choices, default=IpCheck.LOG)
    c2b_registered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tenant"], name="mpesa_account_per_tenant")]

    def __str__(self) -> str:
        return f"M-Pesa {self.get_kind_display()} {self.party_b}"

    @property
    def party_b(self) -> str:
        return self.till_number if self.kind == self.Kind.TILL else self.shortcode


class PesapalAccount(TenantOwnedModel):
    environment = models.CharField(
        max_length=16, choices=Environment.choices, default=Environment.SANDBOX
    )
    base_url = models.URLField(blank=True, help_text="Blank: PesaPal's host for the environment")
    consumer_key = models.CharField(max_length=128)
    consumer_secret = EncryptedSecretField()
    ipn_id = models.CharField(max_length=64, blank=True, editable=False)
    ipn_url = models.URLField(max_length=300, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant"], name="pesapal_account_per_tenant")
        ]

    def __str__(self) -> str:
        return f"PesaPal ({self.environment})"


class PaymentStatus(models.TextChoices):
    PENDING = "pending"
    PAID = "paid"
    FAILED = "failed"
    CANCELLED = "cancelled"
    TIMEOUT = "timeout"
    # Money may have moved but the record does not match (amount, reference, reversal):
    # a person decides. Never shown to the customer as paid.
    UNKNOWN = "unknown"


TERMINAL_STATUSES = frozenset(
    {PaymentStatus.PAID, PaymentStatus.FAILED, PaymentStatus.CANCELLED, PaymentStatus.TIMEOUT}
)


class PaymentMethod(models.TextChoices):
    MPESA_STK = "mpesa_stk", "M-Pesa STK Push"
    MPESA_C2B = "mpesa_c2b", "M-Pesa Paybill/Till"
    PESAPAL_CARD = "pesapal_card", "Card via PesaPal"


class PaymentRequest(TenantOwnedModel):
    """One attempt to collect money for an order (or an unmatched C2B payment)."""

    order = models.ForeignKey(
        "commerce.Order", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    customer = models.ForeignKey(
        "tenants.Customer", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    method = models.CharField(max_length=16, choices=PaymentMethod.choices)
    attempt = models.PositiveSmallIntegerField(default=1)
    idempotency_key = models.CharField(max_length=80)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3, default="KES")
    phone_e164 = models.CharField(max_length=16, blank=True)
    account_reference = models.CharField(max_length=20, blank=True)
    status = models.CharField(
        max_length=16, choices=PaymentStatus.choices, default=PaymentStatus.PENDING
    )
    result_code = models.CharField(max_length=32, blank=True)
    result_desc = models.CharField(max_length=255, blank=True)
    # CheckoutRequestID (STK), TransID (C2B) or order_tracking_id (PesaPal).
    provider_reference = models.CharField(max_length=80, blank=True)
    merchant_request_id = models.CharField(max_length=80, blank=True)
    receipt = models.CharField(max_length=40, blank=True)
    paid_amount = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    redirect_url = models.URLField(max_length=500, blank=True)
    needs_review = models.BooleanField(default=False)
    review_reason = models.CharField(max_length=255, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    query_count = models.PositiveSmallIntegerField(default=0)
    last_queried_at = models.DateTimeField(null=True, blank=True)
    notified_status = models.CharField(max_length=16, blank=True)
    notifications_sent = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "idempotency_key"], name="payment_unique_idempotency_key"
            ),
            models.UniqueConstraint(
                fields=["tenant", "method", "provider_reference"],
                condition=~models.Q(provider_reference=""),
                name="payment_unique_provider_reference",
            ),
            models.UniqueConstraint(
                fields=["tenant", "method", "receipt"],
                condition=~models.Q(receipt=""),
                name="payment_unique_receipt",
            ),
            models.CheckConstraint(condition=models.Q(amount__gte=0), name="payment_amount_gte_0"),
        ]
        indexes = [
            models.Index(fields=["tenant", "order", "created_at"], name="payment_by_order"),
            models.Index(fields=["tenant", "method", "status", "created_at"], name="payment_sweep"),
            models.Index(fields=["tenant", "needs_review"], name="payment_review"),
        ]

    def __str__(self) -> str:
        return f"{self.get_method_display()} {self.amount} {self.currency} ({self.status})"

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES


class PaymentEvent(TenantOwnedModel):
    """A raw callback or status query, stored before anything else is done with it."""

    class Kind(models.TextChoices):
        STK_CALLBACK = "stk_callback"
        STK_QUERY = "stk_query"
        C2B_VALIDATION = "c2b_validation"
        C2B_CONFIRMATION = "c2b_confirmation"
        PESAPAL_IPN = "pesapal_ipn"
        PESAPAL_STATUS = "pesapal_status"

    class Outcome(models.TextChoices):
        RECEIVED = "received"
        APPLIED = "applied"
        DUPLICATE = "duplicate"
        CONFLICT = "conflict"
        UNMATCHED = "unmatched"
        MISMATCH = "mismatch"
        INVALID = "invalid"
        STILL_PENDING = "still_pending"
        ACCEPTED = "accepted"
        REJECTED = "rejected"

    payment = models.ForeignKey(
        PaymentRequest, null=True, blank=True, on_delete=models.PROTECT, related_name="events"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    reference = models.CharField(max_length=80, blank=True, db_index=True)
    raw_body = models.TextField(blank=True)
    source_ip = models.GenericIPAddressField(null=True, blank=True)
    received_at = models.DateTimeField(auto_now_add=True)
    outcome = models.CharField(max_length=16, choices=Outcome.choices, default=Outcome.RECEIVED)
    note = models.CharField(max_length=255, blank=True)
    needs_review = models.BooleanField(default=False)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["tenant", "kind", "reference"], name="payevent_lookup"),
            models.Index(fields=["tenant", "needs_review"], name="payevent_review"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.reference or '?'} ({self.outcome})"


class PaymentToReconcile(PaymentEvent):
    """Admin's reconciliation queue: events flagged for a person and not yet reviewed."""

    class Meta:
        proxy = True
        verbose_name = "payment to reconcile"
        verbose_name_plural = "reconciliation queue"
