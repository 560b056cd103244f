"""The hosted shop page: thin views over shops, catalog, about, thumbs and visits.

Plain server-rendered HTML with its CSS inline and no script, so the first load is one
HTML response plus the thumbnails a phone screen shows. Every view first opens the
shop (active, published, with a number) and reads only inside its tenant's context;
whatever belongs to another shop, or to none, answers the same 404. Pages are gzipped:
they hold no secret or CSRF token, so compression reveals nothing (BREACH).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

import segno
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_GET

from tenants.errors import NotFound
from tulia.commerce.models import CatalogItem
from tulia.storefront import about, catalog, thumbs, visits
from tulia.storefront.codes import ProductCode
from tulia.storefront.links import shop_url, whatsapp_link
from tulia.storefront.shops import Shop, ShopNotFound, open_shop
from tulia.storefront.texts import words
from tulia.text import format_money

SOURCE_COOKIE = "tulia_src"
PAGE_MAX_AGE = 60  # seconds a phone may reuse a page: prices and stock move slowly
IMAGE_MAX_AGE = 30 * 24 * 3600  # image addresses change with the photo


def _missing(request: HttpRequest) -> HttpResponse:
    return render(request, "storefront/missing.html", {"t": words("en")}, status=404)


def _arrival(request: HttpRequest, shop: Shop) -> str | None:
    """Count a visit when the visitor arrives from outside (not a click within the page);
    its source tag, to remember for the order tap that may follow."""
    referer = urlparse(request.headers.get("Referer", ""))
    if referer.netloc and referer.netloc == request.get_host():
        return None
    source = visits.source_tag(request.GET.get("src"))
    visits.count(shop.tenant, source, "visits")
    return source


def _page(
    request: HttpRequest, shop: Shop, source: str | None, template: str, **context: Any
) -> HttpResponse:
    context.update(shop=shop, t=words(shop.language), lang=shop.language)
    response = render(request, template, context)
    response["Cache-Control"] = f"public, max-age={PAGE_MAX_AGE}"
    if source is not None:
        path = reverse("storefront:catalog", args=[shop.tenant.slug])
        response.set_cookie(SOURCE_COOKIE, source, max_age=86400, path=path, samesite="Lax")
    return response


def _page_number(raw: str | None) -> int:
    return int(raw) if raw and raw.isdigit() and len(raw) < 5 else 1


def _image_path(shop: Shop, item: CatalogItem, size: str) -> str:
    """The thumbnail's address, versioned by its photo; empty when there is no photo."""
    if not item.image_url:
        return ""
    path = reverse("storefront:image", args=[shop.tenant.slug, item.pk, size])
    return f"{path}?v={thumbs.source_digest(item.image_url)}"


@gzip_page
@require_GET
def catalog_view(request: HttpRequest, slug: str) -> HttpResponse:
    query = " ".join(request.GET.get("q", "").split())[:100]
    category = request.GET.get("c", "")[:80]
    try:
        with open_shop(slug) as shop:
            if query:
                listing = catalog.search(shop.tenant.id, query, category)
            else:
                page = _page_number(request.GET.get("page"))
                listing = catalog.browse(shop.tenant.id, category, page)
            source = _arrival(request, shop)
    except ShopNotFound:
        return _missing(request)
    cards = [(c, format_money(c.price_from), _image_path(shop, c.item, "s")) for c in listing.cards]
    heading = ""
    if query:
        heading = words(shop.language)["results" if cards else "no_results"].format(q=query)
    return _page(
        request, shop, source, "storefront/catalog.html", listing=listing, cards=cards,
        heading=heading,
    )  # fmt: skip


@gzip_page
@require_GET
def product_view(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    try:
        with open_shop(slug) as shop:
            found = catalog.product(shop.tenant.id, item_id)
            source = _arrival(request, shop)
    except (ShopNotFound, NotFound):
        return _missing(request)
    choices = [(v, found.label(v), format_money(v.unit_price())) for v in found.in_stock_variants()]
    image = _image_path(shop, found.item, "l")
    return _page(
        request,
        shop,
        source,
        "storefront/product.html",
        product=found,
        price=format_money(found.price_from),
        choices=choices,
        image=image,
        og_image=request.build_absolute_uri(image) if image else "",
        page_url=request.build_absolute_uri(request.path),
    )


@require_GET
def order_view(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    """The "Order on WhatsApp" button: count the tap for the visit's source, then open
    the chat with the item's code (the chosen variant's, the source's) already typed."""
    try:
        with open_shop(slug) as shop:
            found = catalog.product(shop.tenant.id, item_id)
            raw = request.GET.get("v", "")
            chosen = next((v for v in found.in_stock_variants() if str(v.pk) == raw), None)
            if found.variants and chosen is None:
                return redirect(reverse("storefront:product", args=[slug, item_id]))
            source = visits.source_tag(request.COOKIES.get(SOURCE_COOKIE))
            visits.count(shop.tenant, source, "order_taps")
    except (ShopNotFound, NotFound):
        return _missing(request)
    name = found.item.name
    if chosen is not None:
        name = f"{name} ({found.label(chosen)})"
    # The code carries the visit's source to the chat, and from there to the order.
    code = ProductCode(found.item.pk, chosen.pk if chosen else None, source)
    text = words(shop.language)["order_text"].format(shop=shop.tenant.name, item=name, code=code)
    return redirect(whatsapp_link(shop.whatsapp_digits, text))


@gzip_page
@require_GET
def about_view(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        with open_shop(slug) as shop:
            policies = about.policies(shop.tenant.id, shop.language)
            source = _arrival(request, shop)
    except ShopNotFound:
        return _missing(request)
    t = words(shop.language)
    hours = [
        (t[d.day], ", ".join(d.windows) or t["closed"]) for d in about.opening_hours(shop.tenant)
    ]
    return _page(
        request, shop, source, "storefront/about.html", hours=hours, policies=policies,
        delivery=shop.profile.delivery_lines(),
    )  # fmt: skip


@gzip_page
@require_GET
def qr_view(request: HttpRequest, slug: str) -> HttpResponse:
    """A QR code of the shop's page for the counter; scans count as source "qr"."""
    try:
        with open_shop(slug) as shop:
            pass
    except ShopNotFound:
        return _missing(request)
    code = segno.make(shop_url(shop.tenant.slug, src="qr"), error="m")
    response = HttpResponse(code.svg_inline(scale=6, border=2), content_type="image/svg+xml")
    response["Cache-Control"] = f"public, max-age={PAGE_MAX_AGE}"
    return response


@require_GET
def image_view(request: HttpRequest, slug: str, item_id: int, size: str) -> HttpResponseBase:
    try:
        with open_shop(slug) as shop:
            found = catalog.product(shop.tenant.id, item_id)
    except (ShopNotFound, NotFound):
        return HttpResponse(status=404)
    try:
        # Outside the transaction: the first request for a size may fetch for seconds.
        path = thumbs.thumbnail(shop.tenant.id, found.item, size)
    except thumbs.NoThumbnail:
        return HttpResponse(status=404)
    response = FileResponse(path.open("rb"), content_type="image/webp")
    response["Cache-Control"] = f"public, max-age={IMAGE_MAX_AGE}, immutable"
    return response
