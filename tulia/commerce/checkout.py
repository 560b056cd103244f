"""Creating orders from a basket: prices and stock come from the catalog, never the caller."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from django.db import IntegrityError, transaction
from django.db.models import Exists

from tenants.accessors import get_tenant, tenant_scope
from tenants.errors import NotFound
from tenants.models import Customer, Tenant
from tulia.commerce.errors import InvalidOrderLine, OutOfStock
from tulia.commerce.models import CatalogItem, Order, OrderLine, OrderStatusEvent, Variant
from tulia.commerce.pricing import PricedLine, subtotal
from tulia.commerce.references import new_reference

REFERENCE_ATTEMPTS = 5


@dataclass(frozen=True)
class LineRequest:
    item_id: int
    quantity: int
    variant_id: int | None = None


@dataclass(frozen=True)
class _Resolved:
    item: CatalogItem
    variant: Variant | None
    quantity: int

    def priced(self) -> PricedLine:
        price = self.variant.unit_price() if self.variant else self.item.price
        return PricedLine(self.item.pk, self.item.category_id, price, self.quantity)

    @property
    def label(self) -> str:
        return f"{self.item.name} ({self.variant})" if self.variant else self.item.name


def _merge(lines: Sequence[LineRequest]) -> dict[tuple[int, int | None], int]:
    merged: dict[tuple[int, int | None], int] = {}
    for line in lines:
        if line.quantity < 1:
            raise InvalidOrderLine("quantity must be at least 1", reason="quantity")
        key = (line.item_id, line.variant_id)
        merged[key] = merged.get(key, 0) + line.quantity
    return merged


def _resolve(tenant_id: UUID, item_id: int, variant_id: int | None, quantity: int) -> _Resolved:
    variants = Variant.objects.filter(tenant_id=tenant_id, item_id=item_id, is_active=True)
    item = (
        CatalogItem.objects.filter(tenant_id=tenant_id, pk=item_id, is_active=True)
        .annotate(has_variants=Exists(variants))  # read with the item: one round trip
        .first()
    )
    if item is None:
        raise NotFound(f"item {item_id} not found")
    variant = None
    if variant_id is not None:
        variant = variants.filter(pk=variant_id).first()
        if variant is None:
            raise NotFound(f"variant {variant_id} of item {item_id} not found")
        variant.item = item  # its price and name fall back to the item's: no second read
    elif item.has_variants:
        raise InvalidOrderLine(
            f"item {item_id} needs a variant (size, colour...)", reason="needs_variant"
        )
    counted = variant or item
    stock = counted.stock
    if counted.stock_tracked and quantity > stock:
        raise OutOfStock(f"only {stock} of {item.name} in stock", item=item.name, available=stock)
    return _Resolved(item, variant, quantity)


def _insert_order(tenant: Tenant, customer: Customer, **fields: object) -> Order:
    """Insert with a fresh random reference, retrying the rare collision."""
    for _ in range(REFERENCE_ATTEMPTS - 1):
        try:
            with transaction.atomic():
                return Order.objects.create(
                    tenant=tenant, customer=customer, reference=new_reference(tenant.slug), **fields
                )
        except IntegrityError:
            continue
    return Order.objects.create(
        tenant=tenant, customer=customer, reference=new_reference(tenant.slug), **fields
    )


def create_order(
    tenant_id: UUID | str,
    customer_id: int,
    lines: Sequence[LineRequest],
    *,
    conversation_id: int | None = None,
    source: str = "",
) -> Order:
    """A draft order priced from the catalog as it is now; `source`: the shop page's
    source tag when the order began with a code from it (see storefront/codes.py)."""
    order, _ = create_order_with_lines(
        tenant_id, customer_id, lines, conversation_id=conversation_id, source=source
    )
    return order


def create_order_with_lines(
    tenant_id: UUID | str,
    customer_id: int,
    lines: Sequence[LineRequest],
    *,
    conversation_id: int | None = None,
    source: str = "",
) -> tuple[Order, list[OrderLine]]:
    """create_order, with the lines it wrote (so the caller need not read them back)."""
    if not lines:
        raise InvalidOrderLine("an order needs at least one line", reason="empty")
    # Joined without a savepoint when the caller (the tool runner) is already inside this
    # tenant's context: every refusal below is raised before the first write, and a
    # failing write aborts the caller's transaction whatever savepoint it sits in.
    with tenant_scope(tenant_id) as tid:
        customer = Customer.objects.filter(tenant_id=tid, pk=customer_id).first()
        if customer is None:
            raise NotFound("customer not found")
        resolved = [_resolve(tid, *key, qty) for key, qty in _merge(lines).items()]
        amount = subtotal([line.priced() for line in resolved])
        order = _insert_order(
            get_tenant(tid),  # the process's cached row: only its id and slug are used
            customer,
            subtotal=amount,
            total=amount,
            conversation_id=conversation_id,
            source=source,
        )
        written = OrderLine.objects.bulk_create([_line(order, line) for line in resolved])
        OrderStatusEvent.objects.create(
            tenant_id=tid, order=order, to_status=order.status, reason="created"
        )
        return order, written


def _line(order: Order, resolved: _Resolved) -> OrderLine:
    priced = resolved.priced()
    return OrderLine(
        tenant_id=order.tenant_id,
        order=order,
        item=resolved.item,
        variant=resolved.variant,
        name=resolved.label[:200],
        sku=resolved.variant.sku if resolved.variant else resolved.item.sku,
        unit_price=priced.unit_price,
        quantity=priced.quantity,
        line_total=priced.total,
    )


def priced_lines(order: Order) -> list[PricedLine]:
    """An order's lines as the pricing rules see them (snapshot prices)."""
    return [
        PricedLine(line.item_id, line.item.category_id, line.unit_price, line.quantity)
        for line in order.lines.select_related("item")
    ]
