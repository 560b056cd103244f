"""Admin for catalog, orders and offers; every class is tenant-scoped."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils import timezone

from tenants.admin_scoping import TenantScopedAdmin, request_tenant_id
from tenants.roles import role_action
from tulia.api.keys import issue_key
from tulia.commerce.admin_import import import_view
from tulia.commerce.errors import OrderStateError
from tulia.commerce.lifecycle import STAFF_MOVES, move_order
from tulia.commerce.models import (
    ApiKey,
    CatalogItem,
    Category,
    Coupon,
    FulfilmentSettings,
    Offer,
    Order,
    OrderLine,
    OrderStatus,
    OrderStatusEvent,
    Variant,
)
from tulia.commerce.orders import ALLOWED_TRANSITIONS
from tulia.errors import DomainError


class ScopedInline(admin.TabularInline):
    """Inline rows take the parent's tenant (the form never shows a tenant field)."""

    exclude = ("tenant",)
    extra = 0


@admin.register(Category)
class CategoryAdmin(TenantScopedAdmin):
    list_display = ("name", "slug", "parent")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}


class VariantInline(ScopedInline):
    model = Variant
    fields = ("sku", "attributes", "price", "stock", "is_active")


@admin.register(CatalogItem)
class CatalogItemAdmin(TenantScopedAdmin):
    list_display = ("name", "sku", "category", "price", "stock", "is_active", "embedding_model")
    list_filter = ("is_active", "category")
    search_fields = ("name", "sku", "brand")
    readonly_fields = ("search_text", "embedding_model", "created_at", "updated_at")
    inlines = [VariantInline]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    change_list_template = "admin/commerce/catalogitem/change_list.html"

    def get_urls(self) -> list[URLPattern]:
        extra = [
            path(
                "import/",
                self.admin_site.admin_view(import_view(self)),
                name="commerce_catalogitem_import",
            )
        ]
        return extra + super().get_urls()

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        for variant in formset.save(commit=False):
            variant.tenant_id = form.instance.tenant_id
            variant.save()
        for gone in formset.deleted_objects:
            gone.delete()


class ReadOnlyInline(ScopedInline):
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class OrderLineInline(ReadOnlyInline):
    model = OrderLine
    fields = ("name", "sku", "unit_price", "quantity", "line_total")
    readonly_fields = fields


class StatusInline(ReadOnlyInline):
    model = OrderStatusEvent
    fields = ("created_at", "from_status", "to_status", "actor", "reason", "payment_reference")
    readonly_fields = fields


@role_action("commerce.order.refund", description="Refund cancelled paid orders")
def refund_cancelled(
    modeladmin: admin.ModelAdmin[Any], request: HttpRequest, queryset: QuerySet[Order]
) -> None:
    """A cancelled paid order is owed its money back (refund_due): by the method paid."""
    from payments.refunds import request_refund

    actor, asked = f"staff:{request.user.get_username()}", 0
    for order in queryset.filter(status=OrderStatus.CANCELLED, refund_due=True):
        try:
            request_refund(order.tenant_id, order.pk, None, key=f"cancel:{order.pk}", actor=actor)
            asked += 1
        except DomainError as exc:
            modeladmin.message_user(request, f"{order}: {exc.message}", messages.ERROR)
    modeladmin.message_user(request, f"{asked} refunds asked for.", messages.SUCCESS)


@admin.register(Order)
class OrderAdmin(TenantScopedAdmin):
    """Orders change through domain functions (payments, tools, the lifecycle buttons),
    never by editing fields: every field is read-only, so "change" here means moving an
    order one step, which owners and agents may do."""

    agent_can_change = True
    actions = (refund_cancelled,)
    list_display = (
        "reference", "customer", "status", "total", "fulfilment", "refund_due", "created_at",
    )  # fmt: skip
    list_filter = ("status", "fulfilment", "refund_due")
    search_fields = ("reference", "customer__phone_e164", "payment_reference")
    inlines = [OrderLineInline, StatusInline]
    change_form_template = "admin/commerce/order/change_form.html"

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [field.name for field in Order._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def get_urls(self) -> list[URLPattern]:
        move = path(
            "<path:object_id>/move/<str:to_status>/",
            self.admin_site.admin_view(self.move_view),
            name="commerce_order_move",
        )
        return [move, *super().get_urls()]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        order = self.get_object(request, object_id)
        moves: list[str] = []
        if order is not None and self.has_change_permission(request, order):
            moves = [s for s in STAFF_MOVES if s in ALLOWED_TRANSITIONS[order.status]]
        context = {**(extra_context or {}), "lifecycle_moves": moves}
        return super().change_view(request, object_id, form_url, context)

    def move_view(self, request: HttpRequest, object_id: str, to_status: str) -> HttpResponse:
        """One click: POST moves the order (with the note typed beside the buttons)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        order = self.get_object(request, object_id)  # None for another tenant's order
        if order is None:
            raise Http404("order not found")
        if not self.has_change_permission(request, order):
            raise PermissionDenied
        actor = f"staff:{request.user.get_username()}"
        note = str(request.POST.get("note", ""))
        try:
            move_order(order.tenant_id, order.pk, to_status, actor=actor, note=note)
            self.message_user(request, f"Order {order.reference} is now {to_status}.")
        except OrderStateError as exc:
            self.message_user(request, str(exc), messages.ERROR)
        return redirect("admin:commerce_order_change", order.pk)


class CouponInline(ScopedInline):
    model = Coupon
    fields = ("code", "is_active")


@admin.register(FulfilmentSettings)
class FulfilmentSettingsAdmin(TenantScopedAdmin):
    """Delivery zones and fees, and the pickup place: what the sale offers at checkout."""

    list_display = ("__str__", "pickup_location", "free_delivery_from", "updated_at")


@admin.register(Offer)
class OfferAdmin(TenantScopedAdmin):
    list_display = ("name", "kind", "value", "scope", "starts_at", "ends_at", "is_active")
    list_filter = ("kind", "scope", "is_active", "advertised")
    inlines = [CouponInline]

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        for coupon in formset.save(commit=False):
            coupon.tenant_id = form.instance.tenant_id
            coupon.code = coupon.code.upper()
            coupon.save()
        for gone in formset.deleted_objects:
            gone.delete()


@admin.register(ApiKey)
class ApiKeyAdmin(TenantScopedAdmin):
    """Keys are created here (the secret is shown once) and revoked, never edited."""

    list_display = ("name", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("prefix", "created_at", "last_used_at", "revoked_at")
    actions = ["revoke"]

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change:
            return super().save_model(request, obj, form, change)
        if not request.user.is_superuser:
            obj.tenant_id = request_tenant_id(request)
        issued = issue_key(obj.tenant_id, obj.name)
        obj.pk, obj.prefix, obj.secret_hash = (
            issued.key.pk,
            issued.key.prefix,
            issued.key.secret_hash,
        )
        obj._state.adding = False
        # Shown once, on the response page itself (response_add). Never in messages: the
        # default message storage is a signed, not encrypted, cookie readable by anyone
        # holding the browser, and replayed by proxies and logs.
        request._issued_api_key = issued.plaintext  # type: ignore[attr-defined]
        return None

    def response_add(self, request: HttpRequest, obj: Any, post_url_continue: Any = None) -> Any:
        plaintext = getattr(request, "_issued_api_key", None)
        if plaintext is None:
            return super().response_add(request, obj, post_url_continue)
        context = {
            **self.admin_site.each_context(request),
            "title": f"API key {obj.name}",
            "opts": self.model._meta,
            "key": obj,
            "plaintext": plaintext,
        }
        response = TemplateResponse(request, "admin/commerce/apikey/issued.html", context)
        response["Cache-Control"] = "no-store"
        return response

    @role_action("commerce.api_key.revoke", description="Revoke selected keys")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        queryset.filter(revoked_at=None).update(revoked_at=timezone.now())
