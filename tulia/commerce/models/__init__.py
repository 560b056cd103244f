"""Catalog, orders and offers: every model here is tenant-owned (RLS applies)."""

from tulia.commerce.models.api_keys import ApiKey, ApiScope
from tulia.commerce.models.catalog import CatalogItem, Category, Variant
from tulia.commerce.models.fulfilment import FulfilmentSettings
from tulia.commerce.models.offers import Coupon, Offer, OfferRedemption
from tulia.commerce.models.orders import Order, OrderLine, OrderStatus, OrderStatusEvent

__all__ = [
    "ApiKey",
    "ApiScope",
    "CatalogItem",
    "Category",
    "Coupon",
    "FulfilmentSettings",
    "Offer",
    "OfferRedemption",
    "Order",
    "OrderLine",
    "OrderStatus",
    "OrderStatusEvent",
    "Variant",
]
