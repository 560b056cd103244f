"""Store sync: a shop's Shopify or WooCommerce connection and what it has taught us.

`StoreConnection` holds the credentials (encrypted) and the import cursor, so an import
killed mid-way resumes where it stopped. `ExternalProduct`/`ExternalVariant` map the
platform's ids onto our catalog rows and remember the upstream `updated_at` last applied:
an older event never overwrites a newer state. `StockLevel` is one location's stock.
`WebhookDelivery` keeps every signed webhook raw, once (the platform's delivery id is
unique), before anything is applied. `SyncConflict` is the admin queue; `ReconcileRun`
reports what a reconcile found drifted and repaired.
"""

from __future__ import annotations

import secrets

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from tenants.fields import EncryptedSecretField
from tenants.models import TenantOwnedModel
from tulia.catalog_sync.hosts import shop_domain_problem, store_url_problem
from tulia.commerce.models import CatalogItem, Order, Variant


class Platform(models.TextChoices):
    SHOPIFY = "shopify", "Shopify"
    WOOCOMMERCE = "woocommerce", "WooCommerce"


class StockOwner(models.TextChoices):
    # Paid WhatsApp orders are pushed to the platform, which decrements its own stock:
    # ours follows the platform's absolute numbers, so nothing is taken twice.
    PLATFORM = "platform", "The store platform (ours follows it)"
    TULIA = "tulia", "Tulia (platform stock is only reported)"


class ImportStatus(models.TextChoices):
    IDLE = "idle"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


def new_webhook_token() -> str:
    return secrets.token_urlsafe(24)


class StoreConnection(TenantOwnedModel):
    platform = models.CharField(max_length=12, choices=Platform.choices)
    # Shopify: the shop's own `name.myshopify.com`; WooCommerce: the store's https URL.
    shop_domain = models.CharField(max_length=255, blank=True)
    store_url = models.URLField(max_length=300, blank=True)
    api_version = models.CharField(max_length=10, default="2025-07", blank=True)
    # Shopify: the Admin API access token; WooCommerce: the REST consumer key and secret.
    access_token = EncryptedSecretField(blank=True, default="")
    consumer_key = models.CharField(max_length=80, blank=True)
    consumer_secret = EncryptedSecretField(blank=True, default="")
    # Shopify: the app's client secret (signs webhooks); WooCommerce: the webhook secret.
    webhook_secret = EncryptedSecretField()
    # The unguessable part of our webhook URL, so strangers cannot even find the door.
    webhook_token = models.CharField(max_length=40, default=new_webhook_token, editable=False)
    stock_owner = models.CharField(
        max_length=8, choices=StockOwner.choices, default=StockOwner.PLATFORM
    )
    is_active = models.BooleanField(default=True, verbose_name=_("is active"))
    import_status = models.CharField(
        max_length=8, choices=ImportStatus.choices, default=ImportStatus.IDLE, editable=False
    )
    # Shopify's endCursor or WooCommerce's next page: saved after every page.
    import_cursor = models.CharField(max_length=400, blank=True, editable=False)
    imported_count = models.PositiveIntegerField(default=0, editable=False)
    last_error = models.CharField(max_length=400, blank=True, editable=False)
    import_finished_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Which run owns the import: a restart takes a new number, and a run that finds its
    # number superseded stops before applying another page (two never write at once).
    import_run = models.PositiveIntegerField(default=0, editable=False)
    import_progress_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "platform"], name="sync_one_per_platform"),
            models.UniqueConstraint(fields=["webhook_token"], name="sync_webhook_token_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.get_platform_display()} {self.shop_domain or self.store_url}"

    def clean(self) -> None:
        if self.platform == Platform.SHOPIFY:
            problem = shop_domain_problem(self.shop_domain)
            if problem:
                raise ValidationError({"shop_domain": problem})
        elif self.platform == Platform.WOOCOMMERCE:
            problem = store_url_problem(self.store_url)
            if problem:
                raise ValidationError({"store_url": problem})

    @property
    def prefix(self) -> str:
        """Our sku prefix for rows this connection created (skus stay unique per shop)."""
        return "SHOP-" if self.platform == Platform.SHOPIFY else "WOO-"


class ExternalProduct(TenantOwnedModel):
    connection = models.ForeignKey(StoreConnection, on_delete=models.CASCADE, related_name="+")
    external_id = models.CharField(max_length=64)
    item = models.OneToOneField(
        CatalogItem,
        null=True,
        on_delete=models.SET_NULL,
        related_name="external",
        verbose_name=_("item"),
    )
    upstream_updated_at = models.DateTimeField()
    deleted_upstream = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "connection", "external_id"], name="sync_product_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.connection_id}:{self.external_id}"


class ExternalVariant(TenantOwnedModel):
    product = models.ForeignKey(ExternalProduct, on_delete=models.CASCADE, related_name="variants")
    external_id = models.CharField(max_length=64)
    inventory_item_id = models.CharField(max_length=64, blank=True)
    upstream_sku = models.CharField(max_length=64, blank=True)
    variant = models.OneToOneField(
        Variant, null=True, on_delete=models.SET_NULL, related_name="external"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "product", "external_id"], name="sync_variant_unique"
            )
        ]
        indexes = [models.Index(fields=["tenant", "inventory_item_id"], name="sync_inventory")]

    def __str__(self) -> str:
        return self.external_id


class StockLevel(TenantOwnedModel):
    """One location's available stock of one inventory item (Shopify)."""

    connection = models.ForeignKey(StoreConnection, on_delete=models.CASCADE, related_name="+")
    inventory_item_id = models.CharField(max_length=64)
    location_id = models.CharField(max_length=64)
    available = models.IntegerField()
    upstream_updated_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "connection", "inventory_item_id", "location_id"],
                name="sync_stock_level_unique",
            )
        ]

    def __str__(self) -> str:
        return f"{self.inventory_item_id}@{self.location_id}: {self.available}"


class DeliveryStatus(models.TextChoices):
    RECEIVED = "received"
    APPLIED = "applied"
    STALE = "stale"  # older than what we already hold: kept, not applied
    IGNORED = "ignored"  # a topic we do not act on
    FAILED = "failed"


class WebhookDelivery(TenantOwnedModel):
    connection = models.ForeignKey(StoreConnection, on_delete=models.CASCADE, related_name="+")
    delivery_id = models.CharField(max_length=100)
    topic = models.CharField(max_length=60)
    raw_body = models.TextField()
    headers = models.JSONField(default=dict)
    status = models.CharField(
        max_length=10,
        choices=DeliveryStatus.choices,
        default=DeliveryStatus.RECEIVED,
        verbose_name=_("status"),
    )
    error = models.CharField(max_length=400, blank=True)
    received_at = models.DateTimeField()
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "webhook deliveries"
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "connection", "delivery_id"], name="sync_delivery_once"
            )
        ]
        indexes = [models.Index(fields=["status", "received_at"], name="sync_delivery_waiting")]

    def __str__(self) -> str:
        return f"{self.topic} {self.delivery_id}"


class ConflictKind(models.TextChoices):
    DELETE_WITH_OPEN_ORDERS = "delete_open_orders", "Deleted upstream with open orders"
    PRICE_NOT_WHOLE = "price_not_whole", "Price is not whole shillings"
    NEGATIVE_STOCK = "negative_stock", "Negative stock upstream"
    ORDER_NOT_PUSHED = "order_not_pushed", "Paid order the store refused"


class SyncConflict(TenantOwnedModel):
    connection = models.ForeignKey(StoreConnection, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=20, choices=ConflictKind.choices, verbose_name=_("kind"))
    external_id = models.CharField(max_length=64)
    item = models.ForeignKey(
        CatalogItem,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("item"),
    )
    detail = models.CharField(max_length=400)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.CharField(max_length=80, blank=True)

    class Meta:
        constraints = [
            # One open conflict per kind and product: a repeated event does not pile up.
            models.UniqueConstraint(
                fields=["tenant", "connection", "kind", "external_id"],
                condition=models.Q(resolved_at__isnull=True),
                name="sync_conflict_open_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.external_id}"


class ReconcileRun(TenantOwnedModel):
    connection = models.ForeignKey(StoreConnection, on_delete=models.CASCADE, related_name="+")
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    checked = models.PositiveIntegerField(default=0)
    repaired = models.PositiveIntegerField(default=0)
    # One line per drift found: what differed, ours → theirs, and whether it was repaired.
    drift = models.JSONField(default=list)
    error = models.CharField(max_length=400, blank=True)

    def __str__(self) -> str:
        return f"reconcile {self.started_at:%Y-%m-%d %H:%M}: {self.repaired} repaired"


class UpstreamOrder(TenantOwnedModel):
    """A paid WhatsApp order created in the store, once: so the store takes the goods from
    its stock (which ours then follows). `key` travels with the order (a Shopify tag, a
    WooCommerce meta field), so an attempt whose answer was lost is found, not repeated."""

    connection = models.ForeignKey(StoreConnection, on_delete=models.CASCADE, related_name="+")
    order = models.ForeignKey(
        Order, on_delete=models.CASCADE, related_name="+", verbose_name=_("order")
    )
    key = models.CharField(max_length=80)
    upstream_id = models.CharField(max_length=100, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    # A worker sending it holds this lease; another finding it live waits its turn.
    claimed_until = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=400, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    pushed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "connection", "order"], name="sync_order_pushed_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.key} → {self.upstream_id or 'not yet'}"
