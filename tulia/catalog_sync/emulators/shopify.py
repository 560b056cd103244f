"""A local Shopify: the GraphQL Admin API queries we use, its cost throttle, and webhooks.

It answers `query Shop`, `query Products` (cursor pagination, variants, inventory levels)
and `mutation Subscribe` (webhookSubscriptionCreate). Cost follows Shopify's leaky
bucket in a simplified form: a query must be covered by its requested cost (each
connection's `first` times its children) and then pays its actual cost; every answer
reports `extensions.cost.throttleStatus`, and an uncovered query answers THROTTLED.
Changes made through the methods below send REST-shaped webhooks, signed with the app's
client secret, to every subscribed URL (or drop them, to test the reconcile).
"""

from __future__ import annotations

import base64
import itertools
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from payments.emulators.server import EmulatorServer, Reply, Request
from tulia.catalog_sync.emulators.webhooks import Delivery, Outbox

MAX_QUERY_COST = 1000
LOCATION = 24826418


@dataclass
class FakeVariant:
    id: int
    sku: str
    price: Decimal
    options: dict[str, str]
    inventory_item_id: int
    levels: dict[int, int]  # location id → available
    level_updated: datetime


@dataclass
class FakeProduct:
    id: int
    title: str
    vendor: str
    status: str  # ACTIVE / DRAFT / ARCHIVED
    updated_at: datetime
    variants: list[FakeVariant] = field(default_factory=list)
    body_html: str = ""

    @property
    def option_names(self) -> list[str]:
        return list(self.variants[0].options) if self.variants else []


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


class ShopifyEmulator(EmulatorServer):
    def __init__(
        self,
        domain: str,
        token: str,
        client_secret: str,
        *,
        bucket: float = 2000,
        restore_rate: float = 100,
        port: int = 0,
    ) -> None:
        super().__init__(port=port)
        self.domain, self.token, self.client_secret = domain, token, client_secret
        self.products: dict[int, FakeProduct] = {}
        self.subscriptions: list[tuple[str, str]] = []
        self.outbox = Outbox()
        self.bucket, self.restore_rate = bucket, restore_rate
        self._available, self._refilled = bucket, time.monotonic()
        self.throttled = 0
        # Answer this many queries THROTTLED whatever the bucket says (another app using
        # the same shop's bucket, as happens in real shops).
        self.force_throttle = 0
        self.cursors_asked: list[str | None] = []
        self.currency = "KES"
        self._ids = itertools.count(7_000_000_001)
        self._clock = datetime(2026, 11, 1, tzinfo=UTC)
        self._lock = threading.Lock()
        self.route("POST", r"/admin/api/(?P<version>[0-9-]+)/graphql\.json", self._graphql)

    # --- the shop's own data ------------------------------------------------------------
    def _tick(self) -> datetime:
        """A strictly later second for each change: Shopify's timestamps are seconds."""
        self._clock = max(
            self._clock + timedelta(seconds=1), datetime.now(tz=UTC).replace(microsecond=0)
        )
        return self._clock

    def add_product(
        self,
        title: str,
        price: str,
        *,
        stock: int = 5,
        sizes: tuple[str, ...] = (),
        notify: bool = True,
    ) -> FakeProduct:
        with self._lock:
            product = FakeProduct(next(self._ids), title, "Kicks Ltd", "ACTIVE", self._tick())
            for size in sizes or ("Default Title",):
                name = "Size" if sizes else "Title"
                product.variants.append(
                    FakeVariant(
                        next(self._ids),
                        f"SKU-{product.id}-{size}",
                        Decimal(price),
                        {name: size},
                        next(self._ids),
                        {LOCATION: stock},
                        product.updated_at,
                    )
                )
            self.products[product.id] = product
        if notify:
            self._notify("products/create", self.product_json(product))
        return product

    def seed(self, count: int, *, sized_every: int = 10) -> None:
        for n in range(count):
            sizes = ("40", "41", "42") if sized_every and n % sized_every == 0 else ()
            self.add_product(
                f"Sneaker model {n}", str(1000 + n % 500), stock=n % 7, sizes=sizes, notify=False
            )

    def set_price(self, product_id: int, price: str) -> Delivery | None:
        with self._lock:
            product = self.products[product_id]
            for variant in product.variants:
                variant.price = Decimal(price)
            product.updated_at = self._tick()
        return self._notify("products/update", self.product_json(product))

    def set_stock(
        self, product_id: int, available: int, *, location: int = LOCATION
    ) -> Delivery | None:
        with self._lock:
            variant = self.products[product_id].variants[0]
            variant.levels[location] = available
            variant.level_updated = self._tick()
        body = {
            "inventory_item_id": variant.inventory_item_id,
            "location_id": location,
            "available": available,
            "updated_at": _stamp(variant.level_updated),
            "admin_graphql_api_id": f"gid://shopify/InventoryLevel/{location}?inventory_item_id={variant.inventory_item_id}",
        }
        return self._notify("inventory_levels/update", body)

    def delete_product(self, product_id: int) -> Delivery | None:
        with self._lock:
            self.products.pop(product_id)
        return self._notify("products/delete", {"id": product_id})

    # --- REST-shaped webhook bodies -----------------------------------------------------
    def product_json(self, product: FakeProduct) -> dict[str, Any]:
        names = product.option_names
        variants = []
        for position, v in enumerate(product.variants, start=1):
            values = [*v.options.values(), None, None, None]
            variants.append(
                {
                    "id": v.id,
                    "product_id": product.id,
                    "title": " / ".join(v.options.values()),
                    "price": f"{v.price:.2f}",
                    "sku": v.sku,
                    "position": position,
                    "option1": values[0],
                    "option2": values[1],
                    "option3": values[2],
                    "inventory_item_id": v.inventory_item_id,
                    "inventory_quantity": sum(v.levels.values()),
                    "admin_graphql_api_id": f"gid://shopify/ProductVariant/{v.id}",
                }
            )
        return {
            "id": product.id,
            "title": product.title,
            "body_html": product.body_html,
            "vendor": product.vendor,
            "product_type": "Shoes",
            "handle": f"p-{product.id}",
            "status": product.status.lower(),
            "updated_at": _stamp(product.updated_at),
            "admin_graphql_api_id": f"gid://shopify/Product/{product.id}",
            "variants": variants,
            "options": [{"name": n, "position": i} for i, n in enumerate(names, start=1)],
            "image": None,
        }

    def _notify(self, topic: str, body: dict[str, Any]) -> Delivery | None:
        wanted = topic.upper().replace("/", "_")
        last = None
        for subscribed, url in list(self.subscriptions):
            if subscribed != wanted:
                continue
            headers = {
                "X-Shopify-Topic": topic,
                "X-Shopify-Shop-Domain": self.domain,
                "X-Shopify-Webhook-Id": str(uuid.uuid4()),
                "X-Shopify-Event-Id": str(uuid.uuid4()),
                "X-Shopify-Triggered-At": _stamp(self._clock),
                "X-Shopify-API-Version": "2025-07",
            }
            signed = ("X-Shopify-Hmac-Sha256", self.client_secret)
            last = self.outbox.deliver(url, body, headers, signed)
        return last

    # --- GraphQL ------------------------------------------------------------------------
    def _graphql(self, request: Request) -> Reply:
        if request.headers.get("x-shopify-access-token") != self.token:
            message = "[API] Invalid API key or access token (unrecognized login or wrong password)"
            return Reply(401, {"errors": message})
        body = request.json() or {}
        query, variables = str(body.get("query") or ""), body.get("variables") or {}
        if "query Shop" in query:
            return self._answer(
                {
                    "shop": {
                        "name": "Kicks",
                        "currencyCode": self.currency,
                        "myshopifyDomain": self.domain,
                    }
                },
                1,
                1,
            )
        if "mutation Subscribe" in query:
            self.subscriptions.append((str(variables["topic"]), str(variables["url"])))
            data = {
                "webhookSubscriptionCreate": {
                    "webhookSubscription": {
                        "id": f"gid://shopify/WebhookSubscription/{next(self._ids)}"
                    },
                    "userErrors": [],
                }
            }
            return self._answer(data, 10, 10)
        if "query Products" in query:
            return self._products(variables)
        return Reply(200, {"errors": [{"message": "emulator: unknown operation"}]})

    def _refill(self) -> None:
        now = time.monotonic()
        self._available = min(
            self.bucket, self._available + (now - self._refilled) * self.restore_rate
        )
        self._refilled = now

    def _cost(self, requested: int, actual: int) -> dict[str, Any] | None:
        """Charge a query; None (and nothing charged) when the bucket cannot cover it."""
        with self._lock:
            self._refill()
            status = {"maximumAvailable": self.bucket, "restoreRate": self.restore_rate}
            if self._available < requested or self.force_throttle > 0:
                self.force_throttle = max(self.force_throttle - 1, 0)
                self.throttled += 1
                return {
                    "requestedQueryCost": requested,
                    "actualQueryCost": None,
                    "throttleStatus": {**status, "currentlyAvailable": int(self._available)},
                    "throttled": True,
                }
            self._available -= actual
            return {
                "requestedQueryCost": requested,
                "actualQueryCost": actual,
                "throttleStatus": {**status, "currentlyAvailable": int(self._available)},
            }

    def _answer(self, data: dict[str, Any], requested: int, actual: int) -> Reply:
        cost = self._cost(requested, actual) or {}
        if cost.pop("throttled", False):
            errors = [
                {
                    "message": "Throttled",
                    "extensions": {
                        "code": "THROTTLED",
                        "documentation": "https://shopify.dev/api/usage/rate-limits",
                    },
                }
            ]
            return Reply(200, {"errors": errors, "extensions": {"cost": cost}})
        return Reply(200, {"data": data, "extensions": {"cost": cost}})

    def _products(self, variables: dict[str, Any]) -> Reply:
        first = int(variables.get("first") or 10)
        after = variables.get("after")
        requested = 2 + first * (1 + 8 * 5)
        if requested > MAX_QUERY_COST:
            error = {
                "message": f"Query cost is {requested}, which exceeds the single query max"
                f" cost limit ({MAX_QUERY_COST}).",
                "extensions": {
                    "code": "MAX_COST_EXCEEDED",
                    "cost": requested,
                    "maxCost": MAX_QUERY_COST,
                },
            }
            return Reply(200, {"errors": [error]})
        self.cursors_asked.append(after)
        start = int(base64.b64decode(after).decode().split(":")[1]) if after else 0
        with self._lock:
            ids = sorted(pid for pid in self.products if pid > start)
            page = [self.products[pid] for pid in ids[:first]]
            nodes = [self._node(p) for p in page]
        end = base64.b64encode(f"cursor:{page[-1].id}".encode()).decode() if page else None
        actual = 2 + sum(1 + 5 * len(p.variants) for p in page)
        data = {
            "products": {
                "pageInfo": {"hasNextPage": len(ids) > first, "endCursor": end},
                "nodes": nodes,
            }
        }
        return self._answer(data, requested, actual)

    def _node(self, product: FakeProduct) -> dict[str, Any]:
        variants = []
        for v in product.variants[:8]:
            levels = [
                {
                    "updatedAt": _stamp(v.level_updated),
                    "location": {"id": f"gid://shopify/Location/{loc}"},
                    "quantities": [{"name": "available", "quantity": n}],
                }
                for loc, n in list(v.levels.items())[:3]
            ]
            variants.append(
                {
                    "id": f"gid://shopify/ProductVariant/{v.id}",
                    "sku": v.sku,
                    "price": f"{v.price:.2f}",
                    "inventoryQuantity": sum(v.levels.values()),
                    "selectedOptions": [{"name": k, "value": val} for k, val in v.options.items()],
                    "inventoryItem": {
                        "id": f"gid://shopify/InventoryItem/{v.inventory_item_id}",
                        "inventoryLevels": {"nodes": levels},
                    },
                }
            )
        return {
            "id": f"gid://shopify/Product/{product.id}",
            "title": product.title,
            "handle": f"p-{product.id}",
            "descriptionHtml": product.body_html,
            "vendor": product.vendor,
            "status": product.status,
            "updatedAt": _stamp(product.updated_at),
            "onlineStoreUrl": None,
            "featuredMedia": None,
            "variants": {"nodes": variants},
        }
