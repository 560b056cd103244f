"""WooCommerce REST v3 product JSON (API answers and webhook bodies share it), parsed
strictly into the shapes the apply layer takes."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tulia.catalog_sync.errors import BadPayload
from tulia.catalog_sync.upstream import UpstreamProduct, UpstreamVariant

# Not counted by the store, but sold: "instock" or "onbackorder" without stock management.
UNCOUNTED_SOLD = frozenset({"instock", "onbackorder"})


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Image(_Body):
    src: str


class _Attribute(_Body):
    name: str
    option: str = ""


class WooProduct(_Body):
    id: int
    name: str = ""
    type: str = "simple"
    status: str = "publish"
    parent_id: int = 0
    description: str = ""
    permalink: str = ""
    sku: str = ""
    price: str = ""
    manage_stock: bool | str = False
    stock_quantity: int | None = None
    stock_status: str = "instock"
    date_modified_gmt: datetime
    images: list[_Image] = Field(default_factory=list, max_length=200)
    image: _Image | None = None
    attributes: list[_Attribute] = Field(default_factory=list, max_length=50)
    variations: list[int] = Field(default_factory=list, max_length=2048)

    @field_validator("date_modified_gmt")
    @classmethod
    def _gmt(cls, value: datetime) -> datetime:
        return value if value.tzinfo else value.replace(tzinfo=UTC)

    def amount(self) -> Decimal:
        try:
            amount = Decimal(self.price or "0")
        except InvalidOperation as exc:
            raise BadPayload(f"price {self.price!r} is not an amount") from exc
        if not amount.is_finite() or amount < 0:
            raise BadPayload(f"price {self.price!r} is not an amount")
        return amount

    def _managed(self) -> bool:
        # "parent": a variation whose count is its parent product's.
        return self.manage_stock in (True, "parent") and self.stock_quantity is not None

    def counted(self) -> bool:
        """Is there a count? Managed stock is one, and so is "out of stock" (none, a
        fact); an unmanaged product on sale has none, and we invent none."""
        return self._managed() or self.stock_status not in UNCOUNTED_SOLD

    def stock(self) -> int:
        return self.stock_quantity if self._managed() and self.stock_quantity else 0

    def as_variant(self) -> UpstreamVariant:
        return UpstreamVariant(
            external_id=str(self.id),
            sku=self.sku[:64],
            price=self.amount(),
            stock=self.stock(),
            tracked=self.counted(),
            attributes={a.name: a.option for a in self.attributes if a.option},
        )


def parse(data: Any) -> WooProduct:
    try:
        return WooProduct.model_validate(data)
    except ValidationError as exc:
        raise BadPayload(str(exc)[:300]) from exc


def parse_raw(raw: bytes) -> WooProduct:
    try:
        return WooProduct.model_validate_json(raw)
    except ValidationError as exc:
        raise BadPayload(str(exc)[:300]) from exc


def to_upstream(product: WooProduct, variations: list[WooProduct]) -> UpstreamProduct:
    """A simple product is its own only variant; a variable one lists its variations."""
    simple = product.type != "variable"
    variants = (product.as_variant(),) if simple else tuple(v.as_variant() for v in variations)
    # A variation's change does not touch its parent's date: the newest of them all is
    # the product's state time.
    updated = max([product.date_modified_gmt, *(v.date_modified_gmt for v in variations)])
    images = [image.src for image in product.images]
    return UpstreamProduct(
        external_id=str(product.id),
        title=product.name,
        updated_at=updated,
        active=product.status == "publish",
        description=product.description,
        image_url=images[0] if images else "",
        link_url=product.permalink,
        simple=simple,
        variants=variants,
    )


class _Deleted(_Body):
    id: int


def deleted_id(raw: bytes) -> str:
    try:
        return str(_Deleted.model_validate_json(raw).id)
    except ValidationError as exc:
        raise BadPayload(str(exc)[:300]) from exc
