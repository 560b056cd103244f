"""What an order and a product look like to a shop: lines with size and picture, the
status timeline, KES amounts, total stock, and the orders CSV.

The admin classes in tulia.commerce.admin call these; they read only the rows of the
object being shown (already tenant-scoped by the admin's queryset and RLS).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet
from django.http import HttpResponse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tulia.commerce.models import CatalogItem, Order, OrderLine, OrderStatus, Variant
from tulia.console.money import kes_text

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


def variant_label(variant: Variant | None) -> str:
    """'size 42, colour black' (the attributes a customer chose), or '' for none."""
    if variant is None:
        return ""
    return ", ".join(f"{key} {value}" for key, value in sorted(variant.attributes.items()))


def order_lines_table(order: Order) -> SafeString:
    lines = OrderLine.objects.filter(tenant_id=order.tenant_id, order=order).select_related(
        "item", "variant"
    )
    rows = format_html_join(
        "",
        "<tr><td>{}</td><td><strong>{}</strong><br><small>{}</small></td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td></tr>",
        (
            (
                _thumb(line.item.image_url),
                line.name,
                line.sku,
                variant_label(line.variant) or "—",
                line.quantity,
                kes_text(line.unit_price),
                kes_text(line.line_total),
            )
            for line in lines
        ),
    )
    return format_html(
        '<table class="order-lines"><thead><tr><th></th><th>{}</th><th>{}</th><th>{}</th>'
        "<th>{}</th><th>{}</th></tr></thead><tbody>{}</tbody></table>",
        _("Item"),
        _("Size / variant"),
        _("Qty"),
        _("Unit price"),
        _("Line total"),
        rows,
    )


def _thumb(url: str) -> SafeString:
    if not url:
        return mark_safe("")
    return format_html('<img src="{}" alt="" loading="lazy">', url)


def item_thumb(item: CatalogItem) -> SafeString:
    if not item.image_url:
        return mark_safe("")
    return format_html('<img class="item-thumb" src="{}" alt="" loading="lazy">', item.image_url)


def order_timeline(order: Order) -> SafeString:
    events = order.history.filter(tenant_id=order.tenant_id).order_by("created_at", "pk")
    items = format_html_join(
        "",
        "<li><strong>{}</strong> — {} <small>{}</small>{}</li>",
        (
            (
                status_label(event.to_status),
                timezone.localtime(event.created_at).strftime("%d %b %Y %H:%M"),
                _who(event.actor),
                format_html(": {}", event.reason) if event.reason else "",
            )
            for event in events
        ),
    )
    return format_html('<ol class="order-timeline">{}</ol>', items)


# Order statuses as the shop says them (the model's choices are the platform's codes).
STATUS_WORDS: dict[str, StrOrPromise] = {
    OrderStatus.DRAFT: gettext_lazy("Not yet paid (draft)"),
    OrderStatus.PENDING_PAYMENT: gettext_lazy("Waiting for payment"),
    OrderStatus.PAID: gettext_lazy("Paid"),
    OrderStatus.CONFIRMED: gettext_lazy("Confirmed"),
    OrderStatus.PACKED: gettext_lazy("Packed"),
    OrderStatus.SHIPPED: gettext_lazy("Shipped"),
    OrderStatus.DELIVERED: gettext_lazy("Delivered"),
    OrderStatus.CANCELLED: gettext_lazy("Cancelled"),
}


def status_label(status: str) -> str:
    return str(STATUS_WORDS.get(status, status))


def _who(actor: str) -> str:
    """'staff:alice' → 'by alice'; the bot, the payment and the customer by name."""
    kind, _sep, name = actor.partition(":")
    if kind == "staff" and name:
        return _("by %(name)s") % {"name": name}
    known = {"customer": _("by the customer"), "payments": _("by the payment")}
    return known.get(actor, _("by %(name)s") % {"name": actor} if actor else "")


ORDER_CSV_COLUMNS = (
    "reference", "date", "customer_phone", "customer_name", "status", "items",
    "subtotal_kes", "discount_kes", "total_kes", "paid_at", "payment_reference",
    "tracking_note",
)  # fmt: skip


def orders_csv(queryset: QuerySet[Order], filename: str) -> HttpResponse:
    """The selected orders, one row each with its lines in words.

    Written whole, not streamed: the rows must be read inside the request's tenant
    context, which ends when the view returns (a stream would be read after)."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    csv.writer(response).writerows(_csv_rows(queryset))
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _csv_rows(queryset: QuerySet[Order]) -> Iterator[Iterable[Any]]:
    yield ORDER_CSV_COLUMNS
    orders = queryset.select_related("customer").prefetch_related("lines__variant")
    for order in orders.order_by("created_at", "pk"):
        yield (
            order.reference,
            timezone.localtime(order.created_at).isoformat(timespec="minutes"),
            order.customer.phone_e164,
            order.customer.display_name,
            order.status,
            "; ".join(_line_words(line) for line in order.lines.all()),
            order.subtotal,
            order.discount_total,
            order.total,
            _when(order.paid_at),
            order.payment_reference,
            order.tracking_note,
        )


def _when(moment: datetime | None) -> str:
    return timezone.localtime(moment).isoformat(timespec="minutes") if moment else ""


def _line_words(line: OrderLine) -> str:
    size = variant_label(line.variant)
    return f"{line.quantity} x {line.name}" + (f" ({size})" if size else "")
