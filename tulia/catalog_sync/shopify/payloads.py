"""Shopify webhook bodies (REST-shaped JSON, whatever API the app queries with), parsed
strictly into the shapes the apply layer takes."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tulia.catalog_sync.errors import BadPayload
from tulia.catalog_sync.shopify.client import DEFAULT_OPTION
from tulia.catalog_sync.upstream import Level, UpstreamProduct, UpstreamVariant


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Option(_Body):
    name: str
    position: int = Field(ge=1, le=3)


class _Variant(_Body):
    id: int
    sku: str | None = None
    price: Decimal = Field(ge=0)
    option1: str | None = None
    option2: str | None = None
    option3: str | None = None
    inventory_item_id: int | None = None
    inventory_quantity: int = 0
    # "shopify" when Shopify counts it; null when the shop does not track its stock.
    inventory_management: str | None = "shopify"


class _Image(_Body):
    src: str


class ProductBody(_Body):
    id: int
    title: str
    body_html: str | None = None
    vendor: str = ""
    status: str = "active"
    handle: str = ""
    updated_at: datetime
    variants: list[_Variant] = Field(default_factory=list, max_length=2048)
    options: list[_Option] = Field(default_factory=list, max_length=3)
    image: _Image | None = None


class DeleteBody(_Body):
    id: int


class InventoryLevelBody(_Body):
    inventory_item_id: int
    location_id: int
    available: int | None = None
    updated_at: datetime


def _aware(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        raise BadPayload("updated_at has no time zone")
    return moment


def _attributes(body: ProductBody, variant: _Variant) -> dict[str, str]:
    values = (variant.option1, variant.option2, variant.option3)
    found = {}
    for option in body.options:
        value = values[option.position - 1]
        if value and value != DEFAULT_OPTION:
            found[option.name] = value
    return found


def product(raw: bytes) -> UpstreamProduct:
    try:
        body = ProductBody.model_validate_json(raw)
    except ValidationError as exc:
        raise BadPayload(str(exc)[:300]) from exc
    variants = tuple(
        UpstreamVariant(
            external_id=str(v.id),
            sku=(v.sku or "")[:64],
            price=v.price,
            stock=v.inventory_quantity,
            attributes=_attributes(body, v),
            inventory_item_id=str(v.inventory_item_id or ""),
            tracked=v.inventory_management is not None,
        )
        for v in body.variants
    )
    return UpstreamProduct(
        external_id=str(body.id),
        title=body.title,
        updated_at=_aware(body.updated_at),
        active=body.status == "active",
        description=body.body_html or "",
        vendor=body.vendor,
        image_url=body.image.src if body.image else "",
        simple=len(variants) == 1 and not variants[0].attributes,
        variants=variants,
    )


def deleted_id(raw: bytes) -> str:
    try:
        return str(DeleteBody.model_validate_json(raw).id)
    except ValidationError as exc:
        raise BadPayload(str(exc)[:300]) from exc


def inventory_level(raw: bytes) -> Level:
    try:
        body = InventoryLevelBody.model_validate_json(raw)
    except ValidationError as exc:
        raise BadPayload(str(exc)[:300]) from exc
    return Level(
        inventory_item_id=str(body.inventory_item_id),
        location_id=str(body.location_id),
        available=body.available or 0,
        updated_at=_aware(body.updated_at),
    )
