"""The one shape every platform's product is turned into before it touches our catalog.

Clients (import, reconcile) and webhook payloads of both platforms produce these; the
apply layer knows nothing else about Shopify or WooCommerce.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal


@dataclass(frozen=True)
class Level:
    """One location's available stock of one inventory item."""

    inventory_item_id: str
    location_id: str
    available: int
    updated_at: datetime


@dataclass(frozen=True)
class UpstreamVariant:
    external_id: str
    sku: str
    price: Decimal
    stock: int
    attributes: dict[str, str]
    inventory_item_id: str = ""
    levels: tuple[Level, ...] = ()
    # False: the store does not count this one (sold as available, `stock` unused).
    tracked: bool = True


@dataclass(frozen=True)
class UpstreamProduct:
    external_id: str
    title: str
    updated_at: datetime
    active: bool
    description: str = ""
    vendor: str = ""
    image_url: str = ""
    link_url: str = ""
    # A product sold as itself (WooCommerce "simple", a Shopify product whose only
    # variant is the default one) keeps price and stock on the item, with no variants.
    simple: bool = True
    variants: tuple[UpstreamVariant, ...] = field(default_factory=tuple)

    @property
    def price(self) -> Decimal:
        """The item's price: its own when simple, else the lowest variant price ("from")."""
        prices = [variant.price for variant in self.variants]
        return min(prices) if prices else Decimal(0)


@dataclass(frozen=True)
class Page:
    products: list[UpstreamProduct]
    next_cursor: str  # "" when this was the last page


@dataclass(frozen=True)
class PushLine:
    """One line of a paid WhatsApp order, in the store's own ids."""

    product_id: str
    variant_id: str  # Shopify: always; WooCommerce: the variation, "" for a simple product
    quantity: int
    unit_price: Decimal


@dataclass(frozen=True)
class PaidOrder:
    key: str  # ours, sent along so a lost answer can be found again
    reference: str
    lines: tuple[PushLine, ...]
