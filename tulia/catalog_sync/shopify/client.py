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
from tulia.catalog_sync.shopify import queries
from tulia.catalog_sync.upstream import Level, Page, PaidOrder, UpstreamProduct, UpstreamVariant

MAX_THROTTLE_WAITS = 20
DEFAULT_OPTION = "Default Title"
WEBHOOK_TOPICS = (
    "PRODUCTS_CREATE",
    "PRODUCTS_UPDATE",
    "PRODUCTS_DELETE",
    "INVENTORY_LEVELS_UPDATE",
)


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
        # What Shopify said each document costs (its `requestedQueryCost`): the bucket
        # must cover that before we send the document again.
        self._costs: dict[str, float] = {}

    def query(self, document: str, variables: dict[str, Any]) -> dict[str, Any]:
        """`data` of one query, waiting for the bucket to cover its cost first."""
        for _ in range(MAX_THROTTLE_WAITS):
            self._wait_for(self._costs.get(document, 0.0))
            body = json_body(
                call(
                    "POST",
                    self.url,
                    headers=self.headers,
                    json={"query": document, "variables": variables},
                    https_only=self.https_only,
                )
            )
            self._note_bucket(document, body)
            errors = body.get("errors") or []
            if any((e.get("extensions") or {}).get("code") == "THROTTLED" for e in errors):
                continue
            if errors or not isinstance(body.get("data"), dict):
                message = "; ".join(str(e.get("message")) for e in errors) or "no data"
                raise SyncError("graphql_error", message[:300], retryable=False)
            data: dict[str, Any] = body["data"]
            return data
        raise SyncError("throttled", "Shopify kept throttling us", retryable=True)

    def _note_bucket(self, document: str, body: dict[str, Any]) -> None:
        cost = (body.get("extensions") or {}).get("cost") or {}
        if cost.get("requestedQueryCost") is not None:
            self._costs[document] = float(cost["requestedQueryCost"])
        status = cost.get("throttleStatus") or {}
        if "currentlyAvailable" in status:
            self._available = float(status["currentlyAvailable"])
            self._restore = max(float(status.get("restoreRate") or 50.0), 1.0)

    def _wait_for(self, cost: float) -> None:
        if self._available is not None and self._available < cost:
            self.sleep((cost - self._available) / self._restore)
            self._available = cost

    def shop(self) -> dict[str, Any]:
        shop: dict[str, Any] = self.query(queries.SHOP, {})["shop"]
        return shop

    def products_page(self, cursor: str) -> Page:
        variables = {"first": queries.PRODUCTS_FIRST, "after": cursor or None}
        products = self.query(queries.PRODUCTS, variables)["products"]
        info = products.get("pageInfo") or {}
        nodes = [self._complete(node) for node in products.get("nodes") or []]
        more = bool(info.get("hasNextPage")) and bool(info.get("endCursor"))
        return Page(nodes, str(info["endCursor"]) if more else "")

    def product(self, product_id: str) -> UpstreamProduct | None:
        """One product as it is now, every variant and location; None if it is gone."""
        gid = f"gid://shopify/Product/{int(product_id)}"
        node = self.query(queries.PRODUCT, {"id": gid}).get("product")
        return self._complete(node) if node else None

    def item_levels(self, inventory_item_id: str) -> tuple[Level, ...]:
        """Every location's level of one inventory item, as they are now."""
        gid = f"gid://shopify/InventoryItem/{int(inventory_item_id)}"
        item: dict[str, Any] = {"id": gid, "inventoryLevels": {"nodes": []}}
        self._more_levels(item, None)
        return _levels(item)

    def _complete(self, node: dict[str, Any]) -> UpstreamProduct:
        """Follow the product's own cursors until every variant and level is in `node`."""
        variants = node.get("variants") or {}
        while _has_more(variants):
            answer = self.query(queries.MORE_VARIANTS, {"id": node["id"], "after": _end(variants)})
            page = (answer.get("product") or {}).get("variants") or {}
            variants["nodes"] = [*(variants.get("nodes") or []), *(page.get("nodes") or [])]
            variants["pageInfo"] = page.get("pageInfo") or {}
        for variant in variants.get("nodes") or []:
            item = variant.get("inventoryItem") or {}
            levels = item.get("inventoryLevels") or {}
            if item.get("id") and _has_more(levels):
                self._more_levels(item, _end(levels))
        return product_from_graphql(node)

    def _more_levels(self, item: dict[str, Any], after: str | None) -> None:
        levels = item.setdefault("inventoryLevels", {"nodes": []})
        while True:
            answer = self.query(queries.MORE_LEVELS, {"id": item["id"], "after": after})
            page = (answer.get("inventoryItem") or {}).get("inventoryLevels") or {}
            levels["nodes"] = [*(levels.get("nodes") or []), *(page.get("nodes") or [])]
            if not _has_more(page):
                return
            after = _end(page)

    def find_order(self, order: PaidOrder) -> str:
        """The id of an order we created earlier under `order.key`, or ""."""
        answer = self.query(queries.ORDERS_TAGGED, {"query": f"tag:'{order.key}'"})
        for node in (answer.get("orders") or {}).get("nodes") or []:
            if order.key in (node.get("tags") or []):
                return str(node["id"])
        return ""

    def create_order(self, order: PaidOrder) -> str:
        """Create the paid order in the shop, taking its goods from the shop's stock."""
        variables = {
            "order": {
                "currency": "KES",
                "financialStatus": "PAID",
                "sourceName": "tulia-whatsapp",
                "sourceIdentifier": order.key,
                "tags": [order.key, "whatsapp"],
                "note": f"WhatsApp order {order.reference}, paid and recorded in Tulia",
                "lineItems": [
                    {
                        "variantId": f"gid://shopify/ProductVariant/{line.variant_id}",
                        "quantity": line.quantity,
                        "priceSet": {
                            "shopMoney": {"amount": str(line.unit_price), "currencyCode": "KES"}
                        },
                    }
                    for line in order.lines
                ],
            },
            "options": {
                "inventoryBehaviour": "DECREMENT_OBEYING_POLICY",
                "sendReceipt": False,
                "sendFulfillmentReceipt": False,
            },
        }
        answer = self.query(queries.ORDER_CREATE, variables).get("orderCreate") or {}
        problems = answer.get("userErrors") or []
        if problems or not (answer.get("order") or {}).get("id"):
            raise SyncError("order_refused", str(problems or "no order")[:300], retryable=False)
        return str(answer["order"]["id"])

    def subscribe(self, callback_url: str) -> None:
        for topic in WEBHOOK_TOPICS:
            answer = self.query(queries.SUBSCRIBE, {"topic": topic, "url": callback_url})
            problems = (answer.get("webhookSubscriptionCreate") or {}).get("userErrors") or []
            if problems:
                raise SyncError("subscribe_failed", str(problems)[:300], retryable=False)


def _has_more(connection: dict[str, Any]) -> bool:
    info = connection.get("pageInfo") or {}
    return bool(info.get("hasNextPage")) and bool(info.get("endCursor"))


def _end(connection: dict[str, Any]) -> str:
    return str((connection.get("pageInfo") or {})["endCursor"])


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
        tracked=item.get("tracked") is not False,
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
