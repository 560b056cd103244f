"""A local WooCommerce REST API v3: products (paged), variations, currency, webhooks.

Basic auth with the consumer key and secret; `per_page` at most 100 with `X-WP-Total` and
`X-WP-TotalPages`; `limit_every` makes every n-th request answer 429 with Retry-After, as
a host's rate limiter would. Changes made through the methods below send webhooks signed
with each subscription's secret (`X-WC-Webhook-Signature`), or drop them.
"""

from __future__ import annotations

import base64
import itertools
import math
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from payments.emulators.server import EmulatorServer, Reply, Request
from tulia.catalog_sync.emulators.webhooks import Delivery, Outbox


@dataclass
class FakeWooProduct:
    id: int
    name: str
    price: str
    stock: int
    modified: datetime
    type: str = "simple"
    parent_id: int = 0
    attributes: list[dict[str, Any]] = field(default_factory=list)
    variations: list[int] = field(default_factory=list)
    # False: the shop does not count it ("Manage stock" unticked); it sells as in stock.
    manage_stock: bool = True


@dataclass
class Subscription:
    id: int
    topic: str
    delivery_url: str
    secret: str


def _gmt(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")


def _forbidden() -> Reply:
    return Reply(
        401,
        {
            "code": "woocommerce_rest_cannot_view",
            "message": "Sorry, you cannot list resources.",
            "data": {"status": 401},
        },
    )


class WooEmulator(EmulatorServer):
    def __init__(self, key: str, secret: str, *, limit_every: int = 0, port: int = 0) -> None:
        super().__init__(port=port)
        self.credentials = "Basic " + base64.b64encode(f"{key}:{secret}".encode()).decode()
        self.products: dict[int, FakeWooProduct] = {}
        self.subscriptions: list[Subscription] = []
        self.outbox = Outbox()
        self.limit_every, self.limited, self.requests = limit_every, 0, 0
        self.pages_asked: list[int] = []
        self.currency = "KES"
        # A redirect the store answers for every API call when set (SSRF tests).
        self.redirect_to = ""
        self._ids = itertools.count(100)
        self._deliveries = itertools.count(1)
        self._clock = datetime(2026, 11, 1, tzinfo=UTC)
        self.same_second = False  # two quick edits stamped with one `date_modified_gmt`
        self._lock = threading.Lock()
        api = "/wp-json/wc/v3"
        self.route("GET", f"{api}/products", self._list)
        self.route("GET", rf"{api}/products/(?P<pid>\d+)", self._one)
        self.route("GET", rf"{api}/products/(?P<pid>\d+)/variations", self._variations)
        self.route("GET", f"{api}/settings/general/woocommerce_currency", self._currency)
        self.route("POST", f"{api}/webhooks", self._subscribe)
        self.route("POST", f"{api}/orders", self._create_order)
        self.route("GET", f"{api}/orders", self._orders)
        self.orders: list[dict[str, Any]] = []

    # --- the store's own data -----------------------------------------------------------
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
        name: str,
        price: str,
        *,
        stock: int = 5,
        sizes: tuple[str, ...] = (),
        notify: bool = True,
    ) -> FakeWooProduct:
        with self._lock:
            product = FakeWooProduct(next(self._ids), name, price, stock, self._tick())
            if sizes:
                product.type, product.price = "variable", price
                for size in sizes:
                    child = FakeWooProduct(
                        next(self._ids),
                        name,
                        price,
                        stock,
                        product.modified,
                        type="variation",
                        parent_id=product.id,
                        attributes=[{"id": 1, "name": "Size", "option": size}],
                    )
                    self.products[child.id] = child
                    product.variations.append(child.id)
            self.products[product.id] = product
        if notify:
            self._notify("product.created", product)
        return product

    def seed(self, count: int, *, sized_every: int = 10) -> None:
        for n in range(count):
            sizes = ("40", "41", "42") if sized_every and n % sized_every == 0 else ()
            self.add_product(
                f"Kitenge dress {n}", str(800 + n % 400), stock=n % 9, sizes=sizes, notify=False
            )

    def update(self, product_id: int, **changes: Any) -> Delivery | None:
        with self._lock:
            product = self.products[product_id]
            for name, value in changes.items():
                setattr(product, name, value)
            product.modified = self._tick()
        return self._notify("product.updated", product)

    def delete(self, product_id: int) -> Delivery | None:
        with self._lock:
            product = self.products.pop(product_id)
            for child in product.variations:
                self.products.pop(child, None)
        return self._notify("product.deleted", product, body={"id": product_id})

    def json_of(self, product: FakeWooProduct) -> dict[str, Any]:
        return {
            "id": product.id,
            "name": product.name,
            "slug": f"p-{product.id}",
            "permalink": f"{self.base_url}/product/p-{product.id}/",
            "date_modified_gmt": _gmt(product.modified),
            "type": product.type,
            "status": "publish",
            "parent_id": product.parent_id,
            "description": f"<p>{product.name}</p>",
            "sku": f"W{product.id}",
            "price": product.price,
            "regular_price": product.price,
            "sale_price": "",
            "manage_stock": product.manage_stock,
            "stock_quantity": product.stock if product.manage_stock else None,
            "stock_status": "instock"
            if product.stock > 0 or not product.manage_stock
            else "outofstock",
            "images": [],
            "attributes": product.attributes,
            "variations": product.variations,
        }

    def _notify(
        self, topic: str, product: FakeWooProduct, *, body: dict[str, Any] | None = None
    ) -> Delivery | None:
        last = None
        for sub in [s for s in self.subscriptions if s.topic == topic]:
            headers = {
                "X-WC-Webhook-Source": f"{self.base_url}/",
                "X-WC-Webhook-Topic": topic,
                "X-WC-Webhook-Resource": "product",
                "X-WC-Webhook-Event": topic.split(".")[1],
                "X-WC-Webhook-ID": str(sub.id),
                "X-WC-Webhook-Delivery-ID": str(next(self._deliveries)),
            }
            payload = body if body is not None else self.json_of(product)
            last = self.outbox.deliver(
                sub.delivery_url, payload, headers, ("X-WC-Webhook-Signature", sub.secret)
            )
        return last

    # --- REST ---------------------------------------------------------------------------
    def _gate(self, request: Request) -> Reply | None:
        with self._lock:
            self.requests += 1
            limited = bool(self.limit_every) and self.requests % self.limit_every == 0
        if self.redirect_to:
            return Reply(302, "", content_type="text/plain", headers={"Location": self.redirect_to})
        if limited:
            self.limited += 1
            return Reply(
                429,
                {"code": "too_many_requests", "message": "Slow down"},
                headers={"Retry-After": "0"},
            )
        if request.headers.get("authorization") != self.credentials:
            return _forbidden()
        return None

    def _paged(self, rows: list[FakeWooProduct], request: Request) -> Reply:
        per_page = min(int(request.query.get("per_page") or 10), 100)
        page = max(int(request.query.get("page") or 1), 1)
        chunk = rows[(page - 1) * per_page : page * per_page]
        headers = {
            "X-WP-Total": str(len(rows)),
            "X-WP-TotalPages": str(max(math.ceil(len(rows) / per_page), 1)),
        }
        return Reply(200, [self.json_of(p) for p in chunk], headers=headers)

    def _list(self, request: Request) -> Reply:
        refused = self._gate(request)
        if refused:
            return refused
        self.pages_asked.append(int(request.query.get("page") or 1))
        with self._lock:
            rows = sorted(
                (p for p in self.products.values() if p.type != "variation"), key=lambda p: p.id
            )
        return self._paged(rows, request)

    def _one(self, request: Request) -> Reply:
        refused = self._gate(request)
        if refused:
            return refused
        product = self.products.get(int(request.match["pid"]))
        if product is None:
            return Reply(
                404, {"code": "woocommerce_rest_product_invalid_id", "message": "Invalid ID."}
            )
        return Reply(200, self.json_of(product))

    def _variations(self, request: Request) -> Reply:
        refused = self._gate(request)
        if refused:
            return refused
        parent = self.products.get(int(request.match["pid"]))
        children = (
            [self.products[c] for c in parent.variations if c in self.products] if parent else []
        )
        return self._paged(children, request)

    def _currency(self, request: Request) -> Reply:
        refused = self._gate(request)
        if refused:
            return refused
        return Reply(
            200, {"id": "woocommerce_currency", "label": "Currency", "value": self.currency}
        )

    def _subscribe(self, request: Request) -> Reply:
        refused = self._gate(request)
        if refused:
            return refused
        body = request.json() or {}
        sub = Subscription(
            next(self._ids), str(body["topic"]), str(body["delivery_url"]), str(body["secret"])
        )
        self.subscriptions.append(sub)
        return Reply(
            201,
            {
                "id": sub.id,
                "topic": sub.topic,
                "delivery_url": sub.delivery_url,
                "status": "active",
            },
        )

    # --- orders -------------------------------------------------------------------------
    def _create_order(self, request: Request) -> Reply:
        refused = self._gate(request)
        if refused:
            return refused
        body = request.json() or {}
        lines = body.get("line_items") or []
        with self._lock:
            targets = []
            for line in lines:
                pid = int(line.get("variation_id") or line.get("product_id") or 0)
                if pid not in self.products:
                    return Reply(
                        400,
                        {"code": "woocommerce_rest_invalid_product_id", "message": "Invalid ID."},
                    )
                targets.append((self.products[pid], int(line.get("quantity") or 1)))
            # set_paid completes the payment, and payment completion reduces stock.
            for product, quantity in targets if body.get("set_paid") else []:
                product.stock -= quantity if product.manage_stock else 0
                product.modified = self._tick()
            order = {
                "id": next(self._ids),
                "status": body.get("status") or "pending",
                "date_created_gmt": _gmt(datetime.now(tz=UTC)),
                "meta_data": body.get("meta_data") or [],
                "line_items": lines,
            }
            self.orders.append(order)
        for product, _ in targets if body.get("set_paid") else []:
            self._notify("product.updated", product)
        return Reply(201, order)

    def _orders(self, request: Request) -> Reply:
        refused = self._gate(request)
        if refused:
            return refused
        after = request.query.get("after") or ""
        with self._lock:
            rows = [o for o in self.orders if o["date_created_gmt"] > after[:19]]
        per_page = min(int(request.query.get("per_page") or 10), 100)
        page = max(int(request.query.get("page") or 1), 1)
        headers = {"X-WP-TotalPages": str(max(math.ceil(len(rows) / per_page), 1))}
        return Reply(200, rows[(page - 1) * per_page : page * per_page], headers=headers)
