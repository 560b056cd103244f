"""Admin for catalog, orders and offers; every class is tenant-scoped."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import Count, OuterRef, QuerySet, Subquery, Sum
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tenants.admin_scoping import TenantScopedAdmin, request_tenant_id
from tenants.roles import is_owner, role_action
from tulia.api.keys import issue_key
from tulia.commerce.admin_catalog import (
    CappedCountPaginator,
    VariantForm,
    catalog_search,
    sample_csv,
)
from tulia.commerce.admin_display import (
    item_thumb,
    order_lines_table,
    order_timeline,
    orders_csv,
    status_label,
)
from tulia.commerce.admin_import import import_view
from tulia.commerce.errors import OrderStateError
from tulia.commerce.lifecycle import STAFF_MOVES, move_order
from tulia.commerce.models import (
    ApiKey,
    ApiScope,
    CatalogItem,
    Category,
    Coupon,
    FulfilmentSettings,
    Offer,
    Order,
    OrderStatus,
    Variant,
)
from tulia.commerce.orders import ALLOWED_TRANSITIONS
from tulia.console.money import kes_text
from tulia.console.row_fields import DeliveryZonesField, ProductDetailsField
from tulia.console.today import TO_SHIP
from tulia.errors import DomainError

# The lifecycle buttons, in words a shop uses.
MOVE_LABELS: dict[str, StrOrPromise] = {
    OrderStatus.CONFIRMED: _("Confirm order"),
    OrderStatus.PACKED: _("Mark packed"),
    OrderStatus.SHIPPED: _("Mark shipped"),
    OrderStatus.DELIVERED: _("Mark delivered"),
    OrderStatus.CANCELLED: _("Cancel order"),
}

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


def _order_field_names() -> list[str]:
    return [field.name for field in Order._meta.fields]


class ScopedInline(admin.TabularInline):
    """Inline rows take the parent's tenant (the form never shows a tenant field).

    Shop staff hold no Django model permissions (roles decide, tenants/roles.py), so the
    inline asks the role: the shop's staff see the rows, its owner edits them."""

    exclude = ("tenant",)
    extra = 0

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_superuser or request_tenant_id(request))

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return is_owner(request)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return is_owner(request)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return is_owner(request)


@admin.register(Category)
class CategoryAdmin(TenantScopedAdmin):
    list_display = ("name", "slug", "parent")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}


class VariantInline(ScopedInline):
    model = Variant
    form = VariantForm
    fields = ("size", "colour", "sku", "price", "stock", "is_active")
    verbose_name = _("size / variant")
    verbose_name_plural = _("Sizes and stock (each size has its own price and stock)")


# Search material and the embedding are the platform's business, not the shop's.
DEVELOPER_ITEM_FIELDS = ("search_text", "embedding_model")


@admin.register(CatalogItem)
class CatalogItemAdmin(TenantScopedAdmin):
    list_display = (
        "thumb", "name", "sku", "category", "price_kes", "total_stock", "is_active",
    )  # fmt: skip
    list_display_links = ("thumb", "name")
    list_select_related = ("category",)
    list_per_page = 50
    paginator = CappedCountPaginator
    show_full_result_count = False  # one count of 100,000 products per page, not two
    list_filter = ("is_active", "category")
    search_fields = ("name", "sku", "brand")
    readonly_fields = ("picture", *DEVELOPER_ITEM_FIELDS, "created_at", "updated_at")
    inlines = [VariantInline]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    change_list_template = "admin/commerce/catalogitem/change_list.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[CatalogItem]:
        sizes = (
            Variant.objects.filter(item=OuterRef("pk"), is_active=True)
            .order_by()
            .values("item")
            .annotate(stock_sum=Sum("stock"), count=Count("pk"))
        )
        return (
            super()
            .get_queryset(request)
            .annotate(
                sizes_stock=Subquery(sizes.values("stock_sum")),
                sizes_count=Subquery(sizes.values("count")),
            )
        )

    def get_list_display(self, request: HttpRequest) -> Any:
        shown = super().get_list_display(request)
        return (*shown, "embedding_model") if request.user.is_superuser else shown

    def get_paginator(
        self, request: HttpRequest, queryset: QuerySet[CatalogItem], per_page: int,
        orphans: int = 0, allow_empty_first_page: bool = True,
    ) -> CappedCountPaginator:  # fmt: skip
        rows = self.get_queryset(request).select_related(*self.list_select_related)
        return CappedCountPaginator(queryset, per_page, orphans, allow_empty_first_page, rows=rows)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[CatalogItem], search_term: str
    ) -> tuple[QuerySet[CatalogItem], bool]:
        if not search_term.strip():
            return queryset, False
        return catalog_search(queryset, search_term), False

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = super().get_fields(request, obj)
        if request.user.is_superuser:
            return fields
        return [name for name in fields if name not in DEVELOPER_ITEM_FIELDS]

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        if "stock" in form.base_fields:
            form.base_fields["stock"].help_text = _(
                "For a product without sizes. With sizes, stock is per size below."
            )
        if "price" in form.base_fields:
            form.base_fields["price"].label = _("Price (KES)")
        if "attributes" in form.base_fields:
            form.base_fields["attributes"] = ProductDetailsField(
                label=_("Details"),
                help_text=_(
                    "What else a customer may ask about, e.g. gender: men, material: leather."
                ),
            )
        return form

    @admin.display(description="")
    def thumb(self, obj: CatalogItem) -> str:
        return item_thumb(obj)

    @admin.display(description=_("picture"))
    def picture(self, obj: CatalogItem) -> str:
        return item_thumb(obj) if obj.pk else ""

    @admin.display(description=_("price"), ordering="price")
    def price_kes(self, obj: CatalogItem) -> str:
        return kes_text(obj.price)

    @admin.display(description=_("in stock"))
    def total_stock(self, obj: CatalogItem) -> str:
        count = getattr(obj, "sizes_count", None)
        if not count:
            return str(obj.stock)
        stock = getattr(obj, "sizes_stock", 0) or 0
        return _("%(stock)d (%(n)d sizes)") % {"stock": stock, "n": count}

    def get_urls(self) -> list[URLPattern]:
        extra = [
            path(
                "import/",
                self.admin_site.admin_view(import_view(self)),
                name="commerce_catalogitem_import",
            ),
            path(
                "import/sample.csv",
                self.admin_site.admin_view(sample_csv),
                name="commerce_catalogitem_import_sample",
            ),
        ]
        return extra + super().get_urls()

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        for variant in formset.save(commit=False):
            variant.tenant_id = form.instance.tenant_id
            variant.save()
        for gone in formset.deleted_objects:
            gone.delete()


class TodoFilter(admin.SimpleListFilter):
    """The home page's links: orders waiting for the shop, and today's paid orders."""

    title = _("to do")
    parameter_name = "todo"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, StrOrPromise]]:
        return [
            ("confirm", _("Paid, to confirm")),
            ("ship", _("To pack and ship")),
            ("paid_today", _("Paid today")),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Order]) -> QuerySet[Order]:
        if self.value() == "confirm":
            return queryset.filter(status=OrderStatus.PAID)
        if self.value() == "ship":
            return queryset.filter(status__in=TO_SHIP)
        if self.value() == "paid_today":
            midnight = timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)
            return queryset.filter(paid_at__gte=midnight)
        return queryset


@role_action("commerce.order.refund", description=_("Refund cancelled paid orders"))
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
    order one step, which owners and agents may do. The page shows what was bought
    (size, picture), delivery, money in KES and the timeline; it has no Save or Delete."""

    agent_can_change = True
    list_display = (
        "reference", "customer_name", "status_label", "total_kes", "fulfilment", "refund_due",
        "created_at",
    )  # fmt: skip
    list_select_related = ("customer",)
    # Dates as a list filter (today, past 7 days, this month, this year): it costs no
    # query, where date_hierarchy read every distinct day of 10,000 orders per page.
    list_filter = (TodoFilter, "status", "created_at", "fulfilment", "refund_due")
    search_fields = ("reference", "customer__phone_e164", "payment_reference")
    # 50 rows read well on a phone and halve the page's rendering; one count, not two.
    list_per_page = 50
    show_full_result_count = False
    change_form_template = "admin/commerce/order/change_form.html"
    actions = ("export_csv", refund_cancelled)

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        delivery = [name for name in _order_field_names() if name.startswith("delivery")]
        return (
            (None, {"fields": ("reference", "status_label", "customer_name", "created_at")}),
            (_("What was bought"), {"fields": ("lines_table",)}),
            (_("Money"), {"fields": ("subtotal_kes", "discount_kes", "total_kes",
                                      "paid_at", "payment_reference", "refund_due")}),
            (_("Delivery"), {"fields": ("fulfilment", *delivery, "tracking_note", "delivered_at")}),
            (_("Timeline"), {"fields": ("timeline",)}),
        )  # fmt: skip

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        shown = ["status_label", "customer_name", "lines_table", "timeline"]
        return [*_order_field_names(), *shown, "subtotal_kes", "discount_kes", "total_kes"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # an order is the record of a sale: cancel it, never delete it

    @admin.display(description=_("customer"), ordering="customer__display_name")
    def customer_name(self, obj: Order) -> str:
        name = obj.customer.display_name
        return f"{name} ({obj.customer.phone_e164})" if name else obj.customer.phone_e164

    @admin.display(description=_("status"), ordering="status")
    def status_label(self, obj: Order) -> str:
        return status_label(obj.status)

    @admin.display(description=_("total"), ordering="total")
    def total_kes(self, obj: Order) -> str:
        return kes_text(obj.total)

    @admin.display(description=_("subtotal"))
    def subtotal_kes(self, obj: Order) -> str:
        return kes_text(obj.subtotal)

    @admin.display(description=_("discount"))
    def discount_kes(self, obj: Order) -> str:
        return kes_text(obj.discount_total)

    @admin.display(description=_("items"))
    def lines_table(self, obj: Order) -> str:
        return order_lines_table(obj)

    @admin.display(description=_("status history"))
    def timeline(self, obj: Order) -> str:
        return order_timeline(obj)

    @role_action("commerce.order.export_csv", description=_("Download selected orders (CSV)"))
    def export_csv(self, request: HttpRequest, queryset: QuerySet[Order]) -> HttpResponse:
        stamp = timezone.localtime().strftime("%Y%m%d-%H%M")
        return orders_csv(queryset, f"orders-{stamp}.csv")

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
        context = {
            **(extra_context or {}),
            "lifecycle_moves": [(move, MOVE_LABELS[move]) for move in moves],
            # Nothing on the page is typed in: no Save buttons, and orders are not deleted.
            "show_save": False,
            "show_save_and_continue": False,
            "show_save_and_add_another": False,
            "show_delete": False,
        }
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
            self.message_user(
                request,
                _("Order %(ref)s is now %(status)s; the customer has been told.")
                % {"ref": order.reference, "status": status_label(to_status)},
            )
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

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        if "delivery_zones" in form.base_fields:
            form.base_fields["delivery_zones"] = DeliveryZonesField(
                label=_("Delivery zones"),
                help_text=_(
                    "A customer who names a place in a zone pays its fee; the first zone that"
                    " names it counts. A courier zone is never free."
                ),
            )
        return form


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


class ApiKeyForm(forms.ModelForm):
    scopes = forms.MultipleChoiceField(
        choices=ApiScope.choices,
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text=_("Every key reaches the catalog, orders and offers; these add more."),
    )

    class Meta:
        model = ApiKey
        fields = ["tenant", "name", "scopes", "agent"]


@admin.register(ApiKey)
class ApiKeyAdmin(TenantScopedAdmin):
    """Keys are created here (the secret is shown once) and revoked, never edited."""

    form = ApiKeyForm
    list_display = ("name", "prefix", "scopes", "agent", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("prefix", "created_at", "last_used_at", "revoked_at")
    actions = ["revoke"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # Who a key speaks as and what it reaches are fixed at issue: a new key says so.
        fixed = ("name", "scopes", "agent")
        return (*self.readonly_fields, *fixed) if obj is not None else self.readonly_fields

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change:
            return super().save_model(request, obj, form, change)
        if not request.user.is_superuser:
            obj.tenant_id = request_tenant_id(request)
        issued = issue_key(obj.tenant_id, obj.name, scopes=obj.scopes, agent_id=obj.agent_id)
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
