"""Catalog: categories, items (the thing a customer asks for) and their variants."""

from __future__ import annotations

from decimal import Decimal

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.utils.translation import gettext_lazy as _
from pgvector.django import HnswIndex, VectorField

from tenants.models import TenantOwnedModel
from tulia.commerce.models.money import money_field, validate_whole_shillings
from tulia.embeddings.base import EMBEDDING_DIMENSIONS


class Category(TenantOwnedModel):
    name = models.CharField(max_length=80, verbose_name=_("name"))
    slug = models.SlugField(max_length=80, verbose_name=_("slug"))
    parent = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="children",
        verbose_name=_("parent"),
    )

    class Meta:
        verbose_name_plural = "categories"
        constraints = [
            models.UniqueConstraint(fields=["tenant", "slug"], name="category_unique_slug")
        ]

    def __str__(self) -> str:
        return self.name


class CatalogItem(TenantOwnedModel):
    """A product. Stock and price live here unless the item has variants."""

    sku = models.CharField(max_length=64, verbose_name=_("SKU"))
    name = models.CharField(max_length=160, verbose_name=_("name"))
    description = models.TextField(blank=True, verbose_name=_("description"))
    brand = models.CharField(max_length=80, blank=True, verbose_name=_("brand"))
    category = models.ForeignKey(
        Category,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="items",
        verbose_name=_("category"),
    )
    # Other names customers use: Swahili, Sheng, common misspellings ("raba", "viatu").
    aliases = ArrayField(
        models.CharField(max_length=60),
        default=list,
        blank=True,
        size=30,
        verbose_name=_("aliases"),
    )
    attributes = models.JSONField(
        default=dict,
        blank=True,
        help_text=_('e.g. {"gender": "men"}'),
        verbose_name=_("attributes"),
    )
    price = money_field(validators=[validate_whole_shillings])
    stock = models.PositiveIntegerField(default=0, verbose_name=_("stock"))
    # Off for goods the shop does not count (a store synced with stock tracking off):
    # they are sold as available and no count is ever quoted; `stock` is then unused.
    stock_tracked = models.BooleanField(default=True, verbose_name=_("stock tracked"))
    image_url = models.URLField(max_length=400, blank=True, verbose_name=_("image link"))
    link_url = models.URLField(max_length=400, blank=True, verbose_name=_("product link"))
    is_active = models.BooleanField(default=True, verbose_name=_("is active"))
    # Search material, maintained by tulia.commerce.indexing (never typed by staff).
    # in_stock: the item or any active variant has stock; kept so search filters cheaply.
    in_stock = models.BooleanField(default=False, editable=False)
    search_text = models.TextField(blank=True, editable=False)
    search_vector = models.GeneratedField(
        expression=SearchVector("search_text", config="simple"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True, editable=False)
    embedding_model = models.CharField(max_length=80, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "sku"], name="item_unique_sku"),
            models.CheckConstraint(
                condition=models.Q(price__gte=0), name="item_price_not_negative"
            ),
        ]
        indexes = [
            models.Index(fields=["tenant", "is_active", "category"], name="item_browse"),
            GinIndex(fields=["search_vector"], name="item_fulltext"),
            HnswIndex(
                name="item_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_available(self) -> bool:
        return not self.stock_tracked or self.stock > 0

    @property
    def counted_stock(self) -> int | None:
        """The count to quote, or None when the shop does not count this one."""
        return self.stock if self.stock_tracked else None


class Variant(TenantOwnedModel):
    """A sellable version of an item (size 42 / black); its own stock, optional price."""

    item = models.ForeignKey(
        CatalogItem, on_delete=models.CASCADE, related_name="variants", verbose_name=_("item")
    )
    sku = models.CharField(max_length=64, verbose_name=_("SKU"))
    attributes = models.JSONField(
        default=dict, blank=True, help_text=_('e.g. {"size": "42"}'), verbose_name=_("attributes")
    )
    price = money_field(null=True, blank=True, validators=[validate_whole_shillings])
    stock = models.PositiveIntegerField(default=0, verbose_name=_("stock"))
    # Off for goods the shop does not count (a store synced with stock tracking off):
    # they are sold as available and no count is ever quoted; `stock` is then unused.
    stock_tracked = models.BooleanField(default=True, verbose_name=_("stock tracked"))
    is_active = models.BooleanField(default=True, verbose_name=_("is active"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "sku"], name="variant_unique_sku"),
        ]

    def __str__(self) -> str:
        label = ", ".join(f"{key} {value}" for key, value in sorted(self.attributes.items()))
        return label or self.sku

    def unit_price(self) -> Decimal:
        """The variant's own price, or its item's."""
        return self.price if self.price is not None else self.item.price

    @property
    def is_available(self) -> bool:
        return not self.stock_tracked or self.stock > 0

    @property
    def counted_stock(self) -> int | None:
        """The count to quote, or None when the shop does not count this one."""
        return self.stock if self.stock_tracked else None
