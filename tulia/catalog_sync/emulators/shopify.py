"""A local Shopify: the GraphQL Admin API queries we use, its cost throttle, and webhooks.

It answers the documents of `tulia.catalog_sync.shopify.queries`: the shop, product pages,
one product, and the follow-up pages of one product's variants or one inventory item's
levels. Every connection pages with its own cursor and `pageInfo`, as Shopify's do, so a
product with more variants or locations than asked for comes back cut unless the caller
follows the cursors. Cost follows Shopify's leaky bucket: a query's requested cost is
worked out from its text (see `graphql_cost`), a query above the single-query maximum is
refused, one the bucket cannot cover answers THROTTLED, and every answer reports
`extensions.cost`. `orderCreate` takes the goods from the locations' stock when asked to.
Changes made through the methods below send REST-shaped webhooks, signed with the app's
client secret, to every subscribed URL (or drop them, to test the reconcile).
"""

from __future__ import annotations

import itertools
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from payments.emulators.server import EmulatorServer, Reply, Request
from tulia.catalog_sync.emulators import graphql_cost as cost
from tulia.catalog_sync.emulators.webhooks import Delivery, Outbox

MAX_QUERY_COST = 1000
LOCATION = 24826418
_OPERATION = re.compile(r"(query|mutation)\s+(\w+)")
_TAG = re.compile(r"tag:'?([^' ]+)'?")


@dataclass
class FakeOrder:
    id: int
    name: str
    tags: list[str]
    lines: list[tuple[int, int]]  # variant id, quantity


@dataclass
class FakeVariant:
    id: int
    sku: str
    price: Decimal
    options: dict[str, str]
    inventory_item_id: int
    levels: dict[int, int]  # location id → available
    level_updated: datetime
    tracked: bool = True


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
        self.operations: list[str] = []  # every GraphQL operation name asked, in order
        self.currency = "KES"
        self.orders: list[FakeOrder] = []
        # Every change in the same second as the one before (Shopify's timestamps are
        # whole seconds, so two quick edits can carry the same `updated_at`).
        self.same_second = False
        # Carry out the next mutation but answer 502, as if the answer was lost on the way.
        self.lose_next_answer = False
        self._ids = itertools.count(7_000_000_001)
        self._clock = datetime(2026, 11, 1, tzinfo=UTC)
        self._lock = threading.Lock()
        self.route("POST", r"/admin/api/(?P<version>[0-9-]+)/graphql\.json", self._graphql)

    # --- the shop's own data ------------------------------------------------------------
    def _tick(self) -> datetime:
        """A later second for each change (the same one in `same_second` mode)."""
        if self.same_second:
            return self._clock
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
        locations: tuple[int, ...] = (LOCATION,),
        notify: bool = True,
    ) -> FakeProduct:
        """A product; `stock` is each variant's stock at each of `locations`."""
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
                        dict.fromkeys(locations, stock),
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
        self, product_id: int, available: int, *, location: int = LOCATION, variant: int = 0
    ) -> Delivery | None:
        with self._lock:
            chosen = self.products[product_id].variants[variant]
            chosen.levels[location] = available
            chosen.level_updated = self._tick()
        return self._level_changed(chosen, location)

    def _level_changed(self, variant: FakeVariant, location: int) -> Delivery | None:
        body = {
            "inventory_item_id": variant.inventory_item_id,
            "location_id": location,
            "available": variant.levels[location],
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
                    "inventory_management": "shopify" if v.tracked else None,
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
        found = _OPERATION.search(query)
        name = found.group(2) if found else ""
        self.operations.append(name)
        handler = self._operations().get(name)
        if handler is None:
            return Reply(200, {"errors": [{"message": "emulator: unknown operation"}]})
        requested = cost.requested_cost(query, variables)
        if requested > MAX_QUERY_COST:
            return Reply(200, {"errors": [_too_costly(requested)]})
        if not self._covered(requested):
            return self._throttled(requested)
        data = handler(query, variables)
        mutation = query.lstrip().startswith("mutation")
        if mutation and self.lose_next_answer:
            self.lose_next_answer = False
            return Reply(502, {"errors": "Bad Gateway"})
        actual = cost.MUTATION_COST if mutation else None
        return self._answer(data, requested, actual or max(cost.actual_cost(data), 1))

    def _operations(self) -> dict[str, Any]:
        return {
            "Shop": self._shop,
            "Subscribe": self._subscribe,
            "Products": self._products,
            "Product": self._product,
            "ProductVariants": self._more_variants,
            "InventoryLevels": self._more_levels,
            "OrderCreate": self._order_create,
            "OrdersTagged": self._orders_tagged,
        }

    def _shop(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        return {
            "shop": {"name": "Kicks", "currencyCode": self.currency, "myshopifyDomain": self.domain}
        }

    def _subscribe(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        self.subscriptions.append((str(variables["topic"]), str(variables["url"])))
        gid = f"gid://shopify/WebhookSubscription/{next(self._ids)}"
        return {"webhookSubscriptionCreate": {"webhookSubscription": {"id": gid}, "userErrors": []}}

    def _refill(self) -> None:
        now = time.monotonic()
        self._available = min(
            self.bucket, self._available + (now - self._refilled) * self.restore_rate
        )
        self._refilled = now

    def _covered(self, requested: int) -> bool:
        """Can the bucket cover the requested cost? (Nothing is charged yet.)"""
        with self._lock:
            self._refill()
            if self._available < requested or self.force_throttle > 0:
                self.force_throttle = max(self.force_throttle - 1, 0)
                self.throttled += 1
                return False
            return True

    def _status(self) -> dict[str, Any]:
        return {
            "maximumAvailable": self.bucket,
            "currentlyAvailable": int(self._available),
            "restoreRate": self.restore_rate,
        }

    def _throttled(self, requested: int) -> Reply:
        extensions = {
            "code": "THROTTLED",
            "documentation": "https://shopify.dev/api/usage/rate-limits",
        }
        spent = {
            "requestedQueryCost": requested,
            "actualQueryCost": None,
            "throttleStatus": self._status(),
        }
        errors = [{"message": "Throttled", "extensions": extensions}]
        return Reply(200, {"errors": errors, "extensions": {"cost": spent}})

    def _answer(self, data: dict[str, Any], requested: int, actual: int) -> Reply:
        with self._lock:
            self._refill()
            self._available -= actual
            spent = {
                "requestedQueryCost": requested,
                "actualQueryCost": actual,
                "throttleStatus": self._status(),
            }
        return Reply(200, {"data": data, "extensions": {"cost": spent}})

    def _products(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        first = int(variables.get("first") or 10)
        after = variables.get("after")
        self.cursors_asked.append(after)
        with self._lock:
            rows = [self.products[pid] for pid in sorted(self.products)]
            page, info = cost.connection_page(rows, first, after)
            nodes = [self._node(p, query, variables) for p in page]
        return {"products": {"pageInfo": info, "nodes": nodes}}

    def _product(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            product = self.products.get(_number(variables.get("id")))
            return {"product": self._node(product, query, variables) if product else None}

    def _more_variants(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            product = self.products.get(_number(variables.get("id")))
            if product is None:
                return {"product": None}
            return {"product": {"variants": self._variants(product, query, variables)}}

    def _more_levels(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        wanted = _number(variables.get("id"))
        with self._lock:
            for product in self.products.values():
                for variant in product.variants:
                    if variant.inventory_item_id == wanted:
                        levels = self._levels(variant, query, variables)
                        return {"inventoryItem": {"inventoryLevels": levels}}
        return {"inventoryItem": None}

    def _variants(
        self, product: FakeProduct, query: str, variables: dict[str, Any]
    ) -> dict[str, Any]:
        first = cost.first_of(query, "variants", variables)
        after = cost.after_of(query, "variants", variables)
        page, info = cost.connection_page(product.variants, first, after)
        nodes = [
            {
                "id": f"gid://shopify/ProductVariant/{v.id}",
                "sku": v.sku,
                "price": f"{v.price:.2f}",
                "inventoryQuantity": sum(v.levels.values()),
                "selectedOptions": [{"name": k, "value": val} for k, val in v.options.items()],
                "inventoryItem": {
                    "id": f"gid://shopify/InventoryItem/{v.inventory_item_id}",
                    "tracked": v.tracked,
                    "inventoryLevels": self._levels(v, query, variables),
                },
            }
            for v in page
        ]
        return {"pageInfo": info, "nodes": nodes}

    def _levels(
        self, variant: FakeVariant, query: str, variables: dict[str, Any]
    ) -> dict[str, Any]:
        first = cost.first_of(query, "inventoryLevels", variables)
        after = cost.after_of(query, "inventoryLevels", variables)
        page, info = cost.connection_page(list(variant.levels.items()), first, after)
        nodes = [
            {
                "updatedAt": _stamp(variant.level_updated),
                "location": {"id": f"gid://shopify/Location/{location}"},
                "quantities": [{"name": "available", "quantity": available}],
            }
            for location, available in page
        ]
        return {"pageInfo": info, "nodes": nodes}

    def _node(self, product: FakeProduct, query: str, variables: dict[str, Any]) -> dict[str, Any]:
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
            "variants": self._variants(product, query, variables),
        }

    # --- orders -------------------------------------------------------------------------
    def _order_create(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        order_input = variables.get("order") or {}
        options = variables.get("options") or {}
        decrement = str(options.get("inventoryBehaviour") or "BYPASS").startswith("DECREMENT")
        lines, touched = [], []
        with self._lock:
            by_id = {v.id: v for p in self.products.values() for v in p.variants}
            for line in order_input.get("lineItems") or []:
                variant = by_id.get(_number(line.get("variantId")))
                if variant is None:
                    error = {"field": ["lineItems"], "message": "variant not found", "code": None}
                    return {"orderCreate": {"order": None, "userErrors": [error]}}
                lines.append((variant.id, int(line.get("quantity") or 1)))
            for variant_id, quantity in lines if decrement else []:
                touched.append(self._take(by_id[variant_id], quantity))
            order = FakeOrder(
                next(self._ids),
                f"#{1000 + len(self.orders) + 1}",
                order_input.get("tags") or [],
                lines,
            )
            self.orders.append(order)
        for variant, location in touched:
            self._level_changed(variant, location)
        gid = f"gid://shopify/Order/{order.id}"
        return {"orderCreate": {"order": {"id": gid, "name": order.name}, "userErrors": []}}

    def _take(self, variant: FakeVariant, quantity: int) -> tuple[FakeVariant, int]:
        """Claim from the first location holding enough (else the first): the decrement."""
        enough = [loc for loc, n in variant.levels.items() if n >= quantity]
        location = enough[0] if enough else next(iter(variant.levels))
        variant.levels[location] -= quantity
        variant.level_updated = self._tick()
        return variant, location

    def _orders_tagged(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        found = _TAG.search(str(variables.get("query") or ""))
        tag = found.group(1) if found else ""
        with self._lock:
            hits = [o for o in self.orders if tag in o.tags][:5]
        nodes = [
            {"id": f"gid://shopify/Order/{o.id}", "name": o.name, "tags": o.tags} for o in hits
        ]
        return {"orders": {"nodes": nodes}}


def _number(gid: Any) -> int:
    """`gid://shopify/Product/123` → 123 (0 for anything else)."""
    tail = str(gid or "").rsplit("/", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _too_costly(requested: int) -> dict[str, Any]:
    return {
        "message": f"Query cost is {requested}, which exceeds the single query max cost limit"
        f" ({MAX_QUERY_COST}).",
        "extensions": {"code": "MAX_COST_EXCEEDED", "cost": requested, "maxCost": MAX_QUERY_COST},
    }
