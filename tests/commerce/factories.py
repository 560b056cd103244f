"""Builders for catalog, customers and offers, each inside the tenant's context."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.utils.text import slugify

from tenants.context import tenant_context
from tenants.models import Customer, Tenant
from tenants.services import get_or_create_customer
from tulia.commerce.indexing import embed_items, refresh_search_text
from tulia.commerce.models import CatalogItem, Category, Coupon, Offer, Order, Variant


def category(tenant: Tenant, name: str) -> Category:
    with tenant_context(tenant.id) as tid:
        found, _ = Category.objects.get_or_create(
            tenant_id=tid, slug=slugify(name), defaults={"name": name}
        )
        return found


def item(
    tenant: Tenant,
    name: str,
    price: int | str = 1000,
    *,
    stock: int = 10,
    sku: str | None = None,
    cat: Category | None = None,
    aliases: Sequence[str] = (),
    variants: Sequence[dict[str, Any]] = (),
    **fields: Any,
) -> CatalogItem:
    with tenant_context(tenant.id) as tid:
        created = CatalogItem.objects.create(
            tenant_id=tid,
            sku=sku or slugify(name)[:60],
            name=name,
            price=Decimal(price),
            stock=stock,
            category=cat,
            aliases=list(aliases),
            **fields,
        )
        for n, spec in enumerate(variants):
            Variant.objects.create(
                tenant_id=tid,
                item=created,
                sku=f"{created.sku}-{n}",
                attributes=spec.get("attributes", {}),
                price=spec.get("price"),
                stock=spec.get("stock", 5),
            )
        return created


def index(tenant: Tenant) -> None:
    """What the Celery task does after commit (tests never commit, so do it here)."""
    with tenant_context(tenant.id) as tid:
        ids = list(CatalogItem.objects.filter(tenant_id=tid).values_list("id", flat=True))
    refresh_search_text(tenant.id, ids)
    embed_items(tenant.id, ids)


def customer(tenant: Tenant, phone: str = "0712345678") -> Customer:
    return get_or_create_customer(tenant.id, phone)[0]


def offer(
    tenant: Tenant,
    code: str | None = None,
    *,
    kind: str = "percentage",
    value: str = "10",
    **kw: Any,
) -> Offer:
    with tenant_context(tenant.id) as tid:
        made = Offer.objects.create(
            tenant_id=tid,
            name=kw.pop("name", f"{value} off"),
            kind=kind,
            value=Decimal(value),
            **kw,
        )
        if code:
            Coupon.objects.create(tenant_id=tid, offer=made, code=code)
        return made


def payload(tenant: Tenant, **fields: Any) -> dict[str, Any]:
    return {"tenant_id": str(tenant.id), "request_id": "req-test", "conversation_id": 7, **fields}


def mark_payment_pending(tenant_id: Any, order_id: int) -> Order:
    """As a payment starting does: lock the tenant's order, then mark it pending."""
    from tulia.commerce.orders import locked_order, mark_locked_order_payment_pending

    with tenant_context(tenant_id) as tid:
        return mark_locked_order_payment_pending(locked_order(tid, order_id))
