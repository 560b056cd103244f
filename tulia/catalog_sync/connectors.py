"""A client for a connection, and connecting: credentials checked, webhooks registered.

`connect` is what the admin's save does: nothing is stored until the store has answered
with these very credentials in Kenyan shillings, and the webhooks are registered to our
tenant's unguessable URL right after.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.urls import reverse

from tenants.crypto import Secret
from tulia.catalog_sync.errors import SyncError
from tulia.catalog_sync.models import Platform, StoreConnection
from tulia.catalog_sync.shopify.client import ShopifyClient
from tulia.catalog_sync.upstream import Level, UpstreamProduct
from tulia.catalog_sync.woocommerce.client import WooClient

CURRENCY = "KES"


def client_for(connection: StoreConnection) -> ShopifyClient | WooClient:
    if connection.platform == Platform.SHOPIFY:
        try:
            return ShopifyClient(
                connection.shop_domain, connection.api_version, connection.access_token.reveal()
            )
        except ValueError as exc:
            raise SyncError("unsafe_address", str(exc), retryable=False) from exc
    return WooClient(
        connection.store_url, connection.consumer_key, connection.consumer_secret.reveal()
    )


def webhook_url(connection: StoreConnection) -> str:
    path = reverse(
        f"catalog_sync:{connection.platform}_webhook",
        kwargs={"tenant_id": connection.tenant_id, "token": connection.webhook_token},
    )
    return f"{settings.PUBLIC_BASE_URL}{path}"


def check_credentials(connection: StoreConnection) -> None:
    """Ask the store who it is; refuse a wrong key, an unsafe address or another currency."""
    client = client_for(connection)
    currency = (
        client.shop().get("currencyCode")
        if isinstance(client, ShopifyClient)
        else (client.currency())
    )
    if currency != CURRENCY:
        raise SyncError(
            "wrong_currency",
            f"the store sells in {currency or 'an unknown currency'}, not KES",
            retryable=False,
        )


def prepare(connection: StoreConnection) -> None:
    """Before the first save: WooCommerce webhooks are signed with a secret we choose."""
    if connection.platform == Platform.WOOCOMMERCE and not connection.webhook_secret:
        connection.webhook_secret = Secret(secrets.token_urlsafe(32))


def register_webhooks(connection: StoreConnection) -> None:
    client = client_for(connection)
    if isinstance(client, ShopifyClient):
        client.subscribe(webhook_url(connection))
    else:
        client.subscribe(webhook_url(connection), connection.webhook_secret.reveal())


def fetch_product(connection: StoreConnection, external_id: str) -> UpstreamProduct | None:
    """The product as the store holds it now, every variant included; None if gone."""
    return client_for(connection).product(external_id)


def fetch_levels(connection: StoreConnection, inventory_item_id: str) -> tuple[Level, ...]:
    """Every location's level of one Shopify inventory item, as they are now."""
    client = client_for(connection)
    if isinstance(client, ShopifyClient):
        return client.item_levels(inventory_item_id)
    raise SyncError("unsupported", "WooCommerce has no inventory levels", retryable=False)
