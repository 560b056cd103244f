"""Payments: per-tenant provider accounts, one request per attempt, and the event log.

`PaymentRequest` is the authoritative record of a payment's status; everything else
(the conversation, tools, order status) reads it and never infers status on its own.
`PaymentEvent` keeps every raw callback and status query exactly as received; a
trigger in the migration refuses edits to the raw columns, so the log is evidence.
"""

from __future__ import annotations

import secrets

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from payments.hosts import DARAJA_HOSTS, PESAPAL_HOSTS, base_url_problem
from tenants.fields import EncryptedSecretField
from tenants.models import Tenant, TenantOwnedModel


def new_route_token() -> str:
    """Kept for migration 0001 (the retired one-token-per-shop CallbackRoute)."""
    return secrets.token_urlsafe(24)


class CallbackPurpose(models.TextChoices):
    """One secret per purpose: a leak of one (the card return URL a customer sees)
    opens nothing else."""

    STK = "stk", "STK callback"
    C2B = "c2b", "C2B validation/confirmation"
    TXN_STATUS = "txn_status", "Transaction Status result"
    PESAPAL_IPN = "pesapal_ipn", "PesaPal IPN"
    CARD_RETURN = "card_return", "Card return page"
    REFUND = "refund", "M-Pesa reversal/B2C result"


class CallbackSecret(models.Model):
    """Global secret → (tenant, purpose) map: callbacks arrive before any tenant context.

    Looked up by the SHA-256 of the secret, so the table alone does not give the URLs
    away; the secret itself is kept encrypted to build the URLs we hand to providers.
    The newest row per (tenant, purpose) is the one given out; older rows stay valid
    until the owner confirms a rotation (in-flight payments still reach us).
    """

    digest = models.CharField(max_length=64)
    purpose = models.CharField(max_length=16, choices=CallbackPurpose.choices)
    tenant = models.ForeignKey(
        Tenant, on_delete=models.CASCADE, related_name="+", verbose_name=_("tenant")
    )
    secret = EncryptedSecretField()
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["digest", "purpose"], name="callback_secret_unique")
        ]
        indexes = [
            models.Index(fields=["tenant", "purpose", "created_at"], name="callback_secret_current")
        ]

    def __str__(self) -> str:
        return f"{self.purpose} secret of {self.tenant_id} ({self.created_at:%Y-%m-%d})"


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
    base_url = models.URLField(
        blank=True, help_text=_("Blank: Safaricom's host for the environment")
    )
    kind = models.CharField(
        max_length=8, choices=Kind.choices, default=Kind.PAYBILL, verbose_name=_("kind")
    )
    shortcode = models.CharField(max_length=7, help_text=_("Paybill, or the till's store number"))
    till_number = models.CharField(max_length=7, blank=True, help_text=_("Buy Goods only"))
    consumer_key = models.CharField(max_length=128)
    consumer_secret = EncryptedSecretField()
    passkey = EncryptedSecretField()
    validate_c2b = models.BooleanField(
        default=False, help_text=_("Reject C2B payments with an unknown account or wrong amount")
    )
    stk_query_after_seconds = models.PositiveIntegerField(
        default=90, help_text=_("Query a pending STK push with no callback after this long")
    )
    stk_give_up_after_seconds = models.PositiveIntegerField(
        default=300, help_text=_("Mark a still-unanswered STK push timed out after this long")
    )
    source_ip_check = models.CharField(max_length=8, choices=IpCheck.choices, default=IpCheck.LOG)
    # Transaction Status (verifies every C2B confirmation) needs an API initiator.
    # Without one, C2B payments wait for staff to confirm them from the statement.
    initiator_name = models.CharField(
        max_length=64, blank=True, help_text=_("Daraja API initiator (for Transaction Status)")
    )
    # How M-Pesa payments are refunded: by a person (recorded here), or through Daraja
    # with the initiator above (Reversal of the receipt, or B2C from `b2c_shortcode`).
    refund_method = models.CharField(
        max_length=8,
        choices=[("manual", "Manual (recorded)"), ("reversal", "Reversal"), ("b2c", "B2C")],
        default="manual",
    )
    b2c_shortcode = models.CharField(max_length=7, blank=True, help_text=_("B2C refunds only"))
    security_credential = EncryptedSecretField(blank=True, default="")
    c2b_registered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tenant"], name="mpesa_account_per_tenant")]

    def __str__(self) -> str:
        return f"M-Pesa {self.get_kind_display()} {self.party_b}"

    def clean(self) -> None:
        _check_base_url(self.base_url, DARAJA_HOSTS)

    @property
    def party_b(self) -> str:
        return self.till_number if self.kind == self.Kind.TILL else self.shortcode


class PesapalAccount(TenantOwnedModel):
    environment = models.CharField(
        max_length=16, choices=Environment.choices, default=Environment.SANDBOX
    )
    base_url = models.URLField(blank=True, help_text=_("Blank: PesaPal's host for the environment"))
    consumer_key = models.CharField(max_length=128)
    consumer_secret = EncryptedSecretField()
    ipn_id = models.CharField(max_length=64, blank=True, editable=False)
    ipn_url = models.URLField(max_length=300, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant"], name="pesapal_account_per_tenant")
        ]

    def __str__(self) -> str:
        return f"PesaPal ({self.environment})"

    def clean(self) -> None:
        _check_base_url(self.base_url, PESAPAL_HOSTS)


def _check_base_url(url: str, documented: dict[str, str]) -> None:
    problem = base_url_problem(url, documented) if url else ""
    if problem:
        raise ValidationError({"base_url": problem})


class PaymentStatus(models.TextChoices):
    PENDING = "pending"
    # A provider callback claims success; the provider's own query has not yet said so.
    PENDING_VERIFICATION = "pending_verification"
    PAID = "paid"
    FAILED = "failed"
    CANCELLED = "cancelled"
    TIMEOUT = "timeout"
    # Money may have moved but the record does not match (amount, reference, reversal):
    # a person decides. Never shown to the customer as paid.
    UNKNOWN = "unknown"


# Not yet decided: the first authoritative result may still be applied.
OPEN_STATUSES = frozenset({PaymentStatus.PENDING, PaymentStatus.PENDING_VERIFICATION})
TERMINAL_STATUSES = frozenset(
    {PaymentStatus.PAID, PaymentStatus.FAILED, PaymentStatus.CANCELLED, PaymentStatus.TIMEOUT}
)


class PaymentMethod(models.TextChoices):
    MPESA_STK = "mpesa_stk", _("M-Pesa STK Push")
    MPESA_C2B = "mpesa_c2b", _("M-Pesa Paybill/Till")
    PESAPAL_CARD = "pesapal_card", _("Card via PesaPal")


class PaymentRequest(TenantOwnedModel):
    """One attempt to collect money for an order (or an unmatched C2B payment)."""

    order = models.ForeignKey(
        "commerce.Order",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("order"),
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
        max_length=24,
        choices=PaymentStatus.choices,
        default=PaymentStatus.PENDING,
        verbose_name=_("status"),
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
    # A success claim the provider did not confirm (denied or no answer in time).
    suspected_forgery = models.BooleanField(default=False)
    query_count = models.PositiveSmallIntegerField(default=0)
    last_queried_at = models.DateTimeField(null=True, blank=True)
    notified_status = models.CharField(max_length=24, blank=True)
    notifications_sent = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))
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
        TXN_STATUS_QUERY = "txn_status_query"
        TXN_STATUS_RESULT = "txn_status_result"
        TXN_STATUS_TIMEOUT = "txn_status_timeout"
        REFUND_RESULT = "refund_result"
        REFUND_TIMEOUT = "refund_timeout"
        STAFF_CONFIRMATION = "staff_confirmation"

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
        VERIFYING = "verifying"  # a success claim waiting for the provider's own word
        UNCONFIRMED = "unconfirmed"  # the provider denied the claim or never confirmed it

    payment = models.ForeignKey(
        PaymentRequest, null=True, blank=True, on_delete=models.PROTECT, related_name="events"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices, verbose_name=_("kind"))
    reference = models.CharField(
        max_length=80, blank=True, db_index=True, verbose_name=_("reference")
    )
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


class TransactionStatusCheck(TenantOwnedModel):
    """One Transaction Status call for a C2B payment; its verdict comes back later.

    Daraja answers the call with a ConversationID and posts the result to our ResultURL
    (or QueueTimeOutURL). A result counts only when both its ConversationID and our own
    OriginatorConversationID match a call we made for this payment.
    """

    payment = models.ForeignKey(PaymentRequest, on_delete=models.PROTECT, related_name="+")
    originator_conversation_id = models.CharField(max_length=64, unique=True)
    conversation_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    answered_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"status check {self.originator_conversation_id} ({self.payment_id})"


class PaymentToReconcile(PaymentEvent):
    """Admin's reconciliation queue: events flagged for a person and not yet reviewed."""

    class Meta:
        proxy = True
        verbose_name = "payment to reconcile"
        verbose_name_plural = "reconciliation queue"


class RefundMethod(models.TextChoices):
    PESAPAL = "pesapal_refund", "PesaPal RefundRequest"
    MPESA_REVERSAL = "mpesa_reversal", "M-Pesa Reversal"
    MPESA_B2C = "mpesa_b2c", "M-Pesa B2C"
    MANUAL = "manual", "Manual (recorded by staff)"


class RefundStatus(models.TextChoices):
    REQUESTED = "requested"  # recorded, the provider not asked yet
    SUBMITTED = "submitted"  # the provider accepted; its result comes later
    SUCCEEDED = "succeeded"
    FAILED = "failed"  # the amount may be refunded again


class Refund(TenantOwnedModel):
    """Money going back to a customer for an order, by the method it was paid with, or
    money that arrived for no order sent back to the payer (no order, only the payment).

    Never more than was paid: the order row (or, for money with no order, the payment
    row) is locked while the sum of refunds that did not fail is checked. Never twice:
    one refund per idempotency key (the return request, the cancellation, or the
    reconciliation page's refund form it is for)."""

    order = models.ForeignKey(
        "commerce.Order",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("order"),
    )
    payment = models.ForeignKey(
        PaymentRequest, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    idempotency_key = models.CharField(max_length=80)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    method = models.CharField(max_length=16, choices=RefundMethod.choices)
    status = models.CharField(
        max_length=12,
        choices=RefundStatus.choices,
        default=RefundStatus.REQUESTED,
        verbose_name=_("status"),
    )
    reason = models.CharField(max_length=200, blank=True)
    actor = models.CharField(max_length=80, blank=True)
    # Ours, random (Daraja's OriginatorConversationID); Daraja's ConversationID; the
    # provider's receipt of the refund.
    originator_id = models.CharField(max_length=64, blank=True)
    conversation_id = models.CharField(max_length=64, blank=True)
    provider_reference = models.CharField(max_length=64, blank=True)
    result_note = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    submitted_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    # A submitted refund whose outcome never came is asked about (payments/refund_checks):
    # how often, when last, our id of the last Daraja status call and Daraja's answer
    # to it; past the last check a person looks (PesaPal or M-Pesa portal).
    checks = models.PositiveSmallIntegerField(default=0)
    last_checked_at = models.DateTimeField(null=True, blank=True)
    check_originator_id = models.CharField(max_length=64, blank=True)
    check_conversation_id = models.CharField(max_length=64, blank=True)
    needs_attention = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "idempotency_key"], name="refund_unique_idempotency_key"
            ),
            models.CheckConstraint(condition=models.Q(amount__gt=0), name="refund_amount_gt_0"),
            models.CheckConstraint(
                condition=models.Q(order__isnull=False) | models.Q(payment__isnull=False),
                name="refund_of_an_order_or_a_payment",
            ),
        ]
        indexes = [models.Index(fields=["tenant", "order"], name="refund_by_order")]

    def __str__(self) -> str:
        return f"refund {self.amount} ({self.get_method_display()}, {self.status})"
