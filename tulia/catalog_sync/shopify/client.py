"""Shopify's GraphQL Admin API: the shop, product pages and webhook subscriptions.

Shopify meters GraphQL by query cost from a leaky bucket: every answer carries
`extensions.cost.throttleStatus` (what is left and how fast it refills). We wait before
a query whose requested cost the bucket cannot cover, and a THROTTLED answer is waited
out and asked again, so an import slows down instead of failing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from tulia.catalog_sync.errors import SyncError
from tulia.catalog_sync.hosts import shopify_graphql_url
from tulia.catalog_sync.http import call, json_body
from tulia.catalog_sync.upstream import Level, Page, UpstreamProduct, UpstreamVariant

PAGE_SIZE = 20
VARIANTS_PER_PRODUCT = 8
MAX_THROTTLE_WAITS = 20
DEFAULT_OPTION = "Default Title"
WEBHOOK_TOPICS = (
    "PRODUCTS_CREATE",
    "PRODUCTS_UPDATE",
    "PRODUCTS_DELETE",
    "INVENTORY_LEVELS_UPDATE",
)

SHOP_QUERY = "query Shop { shop { name currencyCode myshopifyDomain } }"
PRODUCTS_QUERY = """
query Products($first: Int!, $after: String) {
  products(first: $first, after: $after, sortKey: ID) {
    pageInfo { hasNextPage endCursor }
    nodes {
      id title handle descriptionHtml vendor status updatedAt onlineStoreUrl
      featuredMedia { preview { image { url } } }
      variants(first: 8) {
        nodes {
          id sku price inventoryQuantity
          selectedOptions { name value }
          inventoryItem {
            id
            inventoryLevels(first: 3) {
              nodes { updatedAt location { id } quantities(names: ["available"]) { name quantity } }
            }
          }
        }
      }
    }
  }
}
"""
SUBSCRIBE_MUTATION = """
mutation Subscribe($topic: WebhookSubscriptionTopic!, $url: URL!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: {callbackUrl: $url, format: JSON}) {
    webhookSubscription { id }
    userErrors { field message }
  }
}
"""


def parse_time(value: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except (AttributeError, ValueError) as exc:
        raise SyncError("bad_answer", f"not a timestamp: {value!r}", retryable=False) from exc
    if parsed.tzinfo is None:
        raise SyncError("bad_answer", f"timestamp without zone: {value!r}", retryable=False)
    return parsed


def parse_money(value: object) -> Decimal:
    try:
        amount = Decimal(str(value))
    except InvalidOperation as exc:
        raise SyncError("bad_answer", f"not an amount: {value!r}", retryable=False) from exc
    if not amount.is_finite() or amount < 0:
        raise SyncError("bad_answer", f"not an amount: {value!r}", retryable=False)
    return amount


def numeric_id(gid: str) -> str:
    """`gid://shopify/Product/123` → "123" (webhooks carry the bare number)."""
    return str(gid).rsplit("/", 1)[-1]


class ShopifyClient:
    def __init__(
        self,
        domain: str,
        api_version: str,
        token: str,
        *,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.url = shopify_graphql_url(domain, api_version)
        self.https_only = self.url.startswith("https://")
        self.headers = {"X-Shopify-Access-Token": token, "Content-Type": "application/json"}
        self.sleep = sleep
        self._available: float | None = None
        self._restore = 50.0

    def query(self, query: str, variables: dict[str, Any], *, cost: int) -> dict[str, Any]:
        """`data` of one query, waiting for the bucket to cover `cost` first."""
        for _ in range(MAX_THROTTLE_WAITS):
            self._wait_for(cost)
            body = json_body(
                call(
                    "POST",
                    self.url,
                    headers=self.headers,
                    json={"query": query, "variables": variables},
                    https_only=self.https_only,
                )
            )
            self._note_bucket(body)
            errors = body.get("errors") or []
            if any((e.get("extensions") or {}).get("code") == "THROTTLED" for e in errors):
                continue
            if errors or not isinstance(body.get("data"), dict):
                message = "; ".join(str(e.get("message")) for e in errors) or "no data"
                raise SyncError("graphql_error", message[:300], retryable=False)
            data: dict[str, Any] = body["data"]
            return data
        raise SyncError("throttled", "Shopify kept throttling us", retryable=True)

    def _note_bucket(self, body: dict[str, Any]) -> None:
        status = ((body.get("extensions") or {}).get("cost") or {}).get("throttleStatus") or {}
        if "currentlyAvailable" in status:
            self._available = float(status["currentlyAvailable"])
            self._restore = max(float(status.get("restoreRate") or 50.0), 1.0)

    def _wait_for(self, cost: int) -> None:
        if self._available is not None and self._available < cost:
            self.sleep((cost - self._available) / self._restore)
            self._available = float(cost)

    def shop(self) -> dict[str, Any]:
        shop: dict[str, Any] = self.query(SHOP_QUERY, {}, cost=1)["shop"]
        return shop

    def products_page(self, cursor: str) -> Page:
        variables = {"first": PAGE_SIZE, "after": cursor or None}
        products = self.query(PRODUCTS_QUERY, variables, cost=products_cost(PAGE_SIZE))["products"]
        info = products.get("pageInfo") or {}
        nodes = [product_from_graphql(node) for node in products.get("nodes") or []]
        more = bool(info.get("hasNextPage")) and bool(info.get("endCursor"))
        return Page(nodes, str(info["endCursor"]) if more else "")

    def subscribe(self, callback_url: str) -> None:
        for topic in WEBHOOK_TOPICS:
            answer = self.query(SUBSCRIBE_MUTATION, {"topic": topic, "url": callback_url}, cost=10)
            problems = (answer.get("webhookSubscriptionCreate") or {}).get("userErrors") or []
            if problems:
                raise SyncError("subscribe_failed", str(problems)[:300], retryable=False)


def products_cost(first: int) -> int:
    """The requested cost of PRODUCTS_QUERY: each connection costs its `first` children
    (a query may ask for at most 1000 points, so a page is 20 products)."""
    per_variant = 1 + 1 + 3  # the variant, its inventory item, up to three levels
    return 2 + first * (1 + VARIANTS_PER_PRODUCT * per_variant)


def _levels(item: dict[str, Any]) -> tuple[Level, ...]:
    found = []
    for node in (item.get("inventoryLevels") or {}).get("nodes") or []:
        quantities = {q.get("name"): q.get("quantity") for q in node.get("quantities") or []}
        found.append(
            Level(
                inventory_item_id=numeric_id(item["id"]),
                location_id=numeric_id(node["location"]["id"]),
                available=int(quantities.get("available") or 0),
                updated_at=parse_time(node["updatedAt"]),
            )
        )
    return tuple(found)


def _variant(node: dict[str, Any]) -> UpstreamVariant:
    item = node.get("inventoryItem") or {}
    options = {o["name"]: o["value"] for o in node.get("selectedOptions") or []}
    return UpstreamVariant(
        external_id=numeric_id(node["id"]),
        sku=str(node.get("sku") or "")[:64],
        price=parse_money(node.get("price")),
        stock=int(node.get("inventoryQuantity") or 0),
        attributes={k: v for k, v in options.items() if v != DEFAULT_OPTION},
        inventory_item_id=numeric_id(item["id"]) if item.get("id") else "",
        levels=_levels(item) if item.get("id") else (),
    )


def product_from_graphql(node: dict[str, Any]) -> UpstreamProduct:
    try:
        variants = tuple(_variant(v) for v in (node.get("variants") or {}).get("nodes") or [])
        image = (((node.get("featuredMedia") or {}).get("preview") or {}).get("image") or {}).get(
            "url"
        )
        return UpstreamProduct(
            external_id=numeric_id(node["id"]),
            title=str(node.get("title") or ""),
            updated_at=parse_time(node["updatedAt"]),
            active=node.get("status") == "ACTIVE",
            description=str(node.get("descriptionHtml") or ""),
            vendor=str(node.get("vendor") or ""),
            image_url=str(image or ""),
            link_url=str(node.get("onlineStoreUrl") or ""),
            simple=len(variants) == 1 and not variants[0].attributes,
            variants=variants,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise SyncError("bad_answer", f"product node: {exc}", retryable=False) from exc
