"""Serializers of the tenant API; tenant-owned references are resolved in the tenant."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.utils.text import slugify
from rest_framework import serializers

from tulia.commerce.lifecycle import STAFF_MOVES
from tulia.commerce.models import CatalogItem, Category, Coupon, Offer, Order, OrderLine, Variant
from tulia.commerce.models.money import validate_whole_shillings

EARLIEST, LATEST = datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC)


class VariantSerializer(serializers.ModelSerializer[Variant]):
    class Meta:
        model = Variant
        fields = ["id", "sku", "attributes", "price", "stock", "is_active"]
        read_only_fields = fields


class CatalogItemSerializer(serializers.ModelSerializer[CatalogItem]):
    category = serializers.CharField(
        source="category.name", required=False, allow_blank=True, allow_null=True, max_length=80
    )
    variants = VariantSerializer(many=True, read_only=True)
    price = serializers.DecimalField(
        max_digits=12, decimal_places=2, validators=[validate_whole_shillings]
    )

    class Meta:
        model = CatalogItem
        fields = [
            "id", "sku", "name", "description", "brand", "category", "aliases", "attributes",
            "price", "stock", "image_url", "link_url", "is_active", "variants",
            "created_at", "updated_at",
        ]  # fmt: skip
        read_only_fields = ["id", "created_at", "updated_at"]
        validators: list[Any] = []  # (tenant, sku) uniqueness is checked in the view's tenant

    def _category(self, data: dict[str, Any]) -> None:
        name = data.pop("category", {}).get("name") if "category" in data else None
        if name is not None:
            tenant_id = self.context["tenant_id"]
            data["category"] = (
                Category.objects.get_or_create(
                    tenant_id=tenant_id, slug=slugify(name)[:80], defaults={"name": name}
                )[0]
                if name
                else None
            )

    def create(self, validated_data: dict[str, Any]) -> CatalogItem:
        self._category(validated_data)
        return super().create({**validated_data, "tenant_id": self.context["tenant_id"]})

    def update(self, instance: CatalogItem, validated_data: dict[str, Any]) -> CatalogItem:
        self._category(validated_data)
        return super().update(instance, validated_data)

    def validate_sku(self, value: str) -> str:
        others = CatalogItem.objects.filter(tenant_id=self.context["tenant_id"], sku=value)
        if self.instance is not None:
            others = others.exclude(pk=self.instance.pk)
        if others.exists():
            raise serializers.ValidationError("an item with this sku already exists")
        return value


class OrderLineSerializer(serializers.ModelSerializer[OrderLine]):
    class Meta:
        model = OrderLine
        fields = ["item", "variant", "name", "sku", "unit_price", "quantity", "line_total"]


class OrderSerializer(serializers.ModelSerializer[Order]):
    lines = OrderLineSerializer(many=True, read_only=True)
    customer_phone = serializers.CharField(source="customer.phone_e164", read_only=True)
    paid = serializers.SerializerMethodField()
    coupon_code = serializers.CharField(
        source="coupon.code", read_only=True, default=None, allow_null=True
    )

    class Meta:
        model = Order
        fields = [
            "id", "reference", "status", "customer_phone", "subtotal", "discount_total",
            "total", "currency", "coupon_code", "paid", "paid_at", "payment_reference",
            "tracking_note", "delivered_at", "refund_due", "lines", "created_at", "updated_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_paid(self, order: Order) -> bool:
        return order.paid_at is not None


class OrderMoveSerializer(serializers.Serializer[dict[str, str]]):
    """One lifecycle step: the status to move to and an optional note (tracking, reason)."""

    to = serializers.ChoiceField(choices=[str(status) for status in STAFF_MOVES])
    note = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


class OfferSerializer(serializers.ModelSerializer[Offer]):
    codes = serializers.SerializerMethodField()

    class Meta:
        model = Offer
        fields = [
            "id", "name", "description", "kind", "value", "min_spend", "scope", "category",
            "item", "starts_at", "ends_at", "usage_limit_total", "usage_limit_per_customer",
            "advertised", "is_active", "codes",
        ]  # fmt: skip
        read_only_fields = ["id", "codes"]

    def get_codes(self, offer: Offer) -> list[str]:
        return [c.code for c in Coupon.objects.filter(offer=offer, is_active=True)]

    def get_fields(self) -> dict[str, Any]:
        fields = super().get_fields()
        tenant_id: Any = self.context.get("tenant_id")
        # Only this tenant's categories and items may be referenced.
        fields["category"].queryset = Category.objects.filter(tenant_id=tenant_id)  # type: ignore[attr-defined]
        fields["item"].queryset = CatalogItem.objects.filter(tenant_id=tenant_id)  # type: ignore[attr-defined]
        return fields

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # The table's check constraints, answered as 400s instead of IntegrityErrors.
        def current(name: str) -> Any:
            return attrs[name] if name in attrs else getattr(self.instance, name, None)

        if current("kind") == Offer.Kind.PERCENTAGE and (current("value") or 0) > 100:
            raise serializers.ValidationError({"value": "a percentage offer is at most 100"})
        for name in ("starts_at", "ends_at"):
            # Before 1928 Nairobi's zone had a seconds offset (+02:27:16) that no
            # RFC 3339 client can read back; no offer runs outside this window anyway.
            moment = attrs.get(name)
            if moment is not None and not EARLIEST <= moment <= LATEST:
                raise serializers.ValidationError({name: "must be between 2000 and 2100"})
        starts, ends = current("starts_at"), current("ends_at")
        if starts is not None and ends is not None and ends < starts:
            raise serializers.ValidationError({"ends_at": "must not be before starts_at"})
        scope = current("scope") or Offer.Scope.ORDER
        if scope in (Offer.Scope.CATEGORY, Offer.Scope.ITEM) and current(scope) is None:
            raise serializers.ValidationError({scope: f"required when scope is {scope}"})
        return attrs

    def create(self, validated_data: dict[str, Any]) -> Offer:
        return super().create({**validated_data, "tenant_id": self.context["tenant_id"]})


class ImportRequestSerializer(serializers.Serializer[Any]):
    format = serializers.ChoiceField(choices=["csv", "json"])
    content = serializers.CharField(max_length=10 * 1024 * 1024, trim_whitespace=False)


class RowErrorSerializer(serializers.Serializer[Any]):
    row = serializers.IntegerField()
    field = serializers.CharField()
    message = serializers.CharField()


class ImportReportSerializer(serializers.Serializer[Any]):
    ok = serializers.BooleanField()
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    variants = serializers.IntegerField()
    errors = RowErrorSerializer(many=True)  # type: ignore[assignment]
