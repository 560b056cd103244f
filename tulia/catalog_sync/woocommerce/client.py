"""WooCommerce REST API v3 on the merchant's own host: currency, product pages, webhooks.

Pages are `per_page` (at most 100) products in id order; `X-WP-TotalPages` says how many
there are. A host that limits us answers 429 with Retry-After, which we wait out. Every
call goes through tulia.netguard: public https only, pinned, no redirect to another host.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx

from tulia.catalog_sync.errors import BadPayload, SyncError
from tulia.catalog_sync.hosts import store_url_problem
from tulia.catalog_sync.http import call, json_body
from tulia.catalog_sync.upstream import Page, PaidOrder, UpstreamProduct
from tulia.catalog_sync.woocommerce.payloads import WooProduct, parse, to_upstream

PER_PAGE = 100
MAX_RETRIES = 8
ORDER_KEY_META = "_tulia_order_key"
WEBHOOK_TOPICS = ("product.created", "product.updated", "product.deleted", "product.restored")


class WooClient:
    def __init__(
        self, store_url: str, key: str, secret: str, *, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        problem = store_url_problem(store_url)
        if problem:
            raise SyncError("unsafe_address", problem, retryable=False)
        self.base = store_url.rstrip("/") + "/wp-json/wc/v3"
        credentials = base64.b64encode(f"{key}:{secret}".encode()).decode()
        self.headers = {"Authorization": f"Basic {credentials}"}
        self.sleep = sleep
        self.limited = 0  # 429 answers waited out (for the bench and tests)

    def _get(self, path: str, method: str = "GET", body: Any = None) -> httpx.Response:
        for _ in range(MAX_RETRIES):
            answer = call(method, self.base + path, headers=self.headers, json=body)
            if answer.status_code != 429:
                if answer.status_code >= 400:
                    message = f"the store answered {answer.status_code} to {path}"
                    raise SyncError("store_refused", message, retryable=False)
                return answer
            self.limited += 1
            self.sleep(_retry_after(answer))
        raise SyncError("rate_limited", "the store kept limiting us", retryable=True)

    def currency(self) -> str:
        setting = json_body(self._get("/settings/general/woocommerce_currency"))
        return str((setting or {}).get("value") or "")

    def products_page(self, cursor: str) -> Page:
        page = int(cursor or 1)
        answer = self._get(f"/products?per_page={PER_PAGE}&page={page}&orderby=id&order=asc")
        total_pages = int(answer.headers.get("X-WP-TotalPages") or 1)
        products = [self.complete(item) for item in self._list(answer)]
        return Page(products, str(page + 1) if page < total_pages else "")

    def product(self, product_id: str) -> UpstreamProduct:
        answer = self._get(f"/products/{int(product_id)}")
        return self.complete(json_body(answer))

    def complete(self, data: Any) -> UpstreamProduct:
        """The product with its variations fetched (a variable product lists only ids)."""
        try:
            product = parse(data)
        except BadPayload as exc:
            raise SyncError("bad_answer", str(exc), retryable=False) from exc
        return to_upstream(product, self.variations(product) if product.variations else [])

    def variations(self, product: WooProduct) -> list[WooProduct]:
        found: list[WooProduct] = []
        page, total = 1, 1
        while page <= total:
            answer = self._get(f"/products/{product.id}/variations?per_page={PER_PAGE}&page={page}")
            total = int(answer.headers.get("X-WP-TotalPages") or 1)
            try:
                found.extend(parse(item) for item in self._list(answer))
            except BadPayload as exc:
                raise SyncError("bad_answer", str(exc), retryable=False) from exc
            page += 1
        return found

    def find_order(self, order: PaidOrder, since: datetime) -> str:
        """The id of an order we created under `order.key` since `since`, or "".

        The REST API cannot filter orders by meta, so the orders created since our first
        attempt are read and their meta checked (a lost answer is rare, the list short)."""
        after = since.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")
        for page in range(1, 11):
            answer = self._get(f"/orders?after={after}&per_page={PER_PAGE}&page={page}")
            for found in self._list(answer):
                meta = {m.get("key"): m.get("value") for m in found.get("meta_data") or []}
                if meta.get(ORDER_KEY_META) == order.key:
                    return str(found["id"])
            if page >= int(answer.headers.get("X-WP-TotalPages") or 1):
                break
        return ""

    def create_order(self, order: PaidOrder) -> str:
        """Create the order as paid: WooCommerce then reduces the products' stock."""
        body = {
            "status": "processing",
            "set_paid": True,
            "currency": "KES",
            "created_via": "tulia-whatsapp",
            "customer_note": f"WhatsApp order {order.reference}, paid and recorded in Tulia",
            "meta_data": [{"key": ORDER_KEY_META, "value": order.key}],
            "line_items": [
                {
                    "product_id": int(line.product_id),
                    **({"variation_id": int(line.variant_id)} if line.variant_id else {}),
                    "quantity": line.quantity,
                    "total": str(line.unit_price * line.quantity),
                }
                for line in order.lines
            ],
        }
        created = json_body(self._get("/orders", method="POST", body=body))
        if not isinstance(created, dict) or not created.get("id"):
            raise SyncError("order_refused", "the store did not create the order", retryable=False)
        return str(created["id"])

    def subscribe(self, delivery_url: str, secret: str) -> None:
        for topic in WEBHOOK_TOPICS:
            body = {
                "name": f"Tulia {topic}",
                "topic": topic,
                "delivery_url": delivery_url,
                "secret": secret,
                "status": "active",
            }
            self._get("/webhooks", method="POST", body=body)

    @staticmethod
    def _list(answer: httpx.Response) -> list[Any]:
        body = json_body(answer)
        if not isinstance(body, list):
            raise SyncError("bad_answer", "expected a list of products", retryable=False)
        return body


def _retry_after(answer: httpx.Response) -> float:
    try:
        return min(max(float(answer.headers.get("Retry-After") or 1), 0.0), 60.0)
    except ValueError:
        return 1.0
