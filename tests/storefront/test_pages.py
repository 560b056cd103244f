"""The hosted shop page, through Django's test client against the real database."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

import pytest
from django.test import Client

from tenants.context import tenant_context
from tenants.models import Tenant
from tenants.services import update_tenant
from tests.commerce import factories
from tulia.commerce.models import CatalogItem
from tulia.storefront.models import ShopProfile, SourceVisits

pytestmark = pytest.mark.django_db


def _item(tenant: Tenant, name: str) -> CatalogItem:
    with tenant_context(tenant.id) as tid:
        return CatalogItem.objects.get(tenant_id=tid, name=name)


def _get(client: Client, path: str, **params: str) -> tuple[int, str]:
    response = client.get(path, params)
    return response.status_code, response.content.decode()


def test_catalog_lists_the_shops_active_items_only(client: Client, stk_only_shop, mboga) -> None:
    factories.item(stk_only_shop, "Retired Sandal", 500, is_active=False)
    status, page = _get(client, "/shop/kicks/")
    assert status == 200
    assert "Air Runner Black" in page
    assert "KES 4,500" in page
    assert "Retired Sandal" not in page
    assert "Sukuma" not in page  # the other shop's goods


def test_category_filter_and_pages(client: Client, stk_only_shop) -> None:
    shoes = factories.category(stk_only_shop, "Shoes")
    for n in range(14):
        factories.item(stk_only_shop, f"Boot {n:02d}", 2000, cat=shoes)
    status, first = _get(client, "/shop/kicks/", c="shoes")
    assert status == 200
    assert "Pool Slide" not in first
    assert first.count("Boot ") == 12
    assert "page=2" in first
    _, second = _get(client, "/shop/kicks/", c="shoes", page="2")
    assert second.count("Boot ") == 2
    assert "page=3" not in second


def test_search_uses_the_bots_hybrid_search(client: Client, stk_only_shop) -> None:
    _, page = _get(client, "/shop/kicks/", q="raba")  # a Sheng alias, not in any name
    assert "Air Runner Black" in page
    assert "Court Classic White" in page
    assert "Pool Slide Navy" not in page
    _, none = _get(client, "/shop/kicks/", q="zzzqqq")
    assert "Nothing found" in none


def test_search_never_shows_another_shops_items(client: Client, stk_only_shop, mboga) -> None:
    _, page = _get(client, "/shop/kicks/", q="sukuma wiki")
    assert "Sukuma" not in page
    _, theirs = _get(client, "/shop/mama-mboga/", q="sukuma wiki")
    assert "Sukuma Wiki Fresh" in theirs
    assert "Air Runner" not in theirs


def test_product_page_shows_sizes_in_stock_price_and_preview(client: Client, stk_only_shop) -> None:
    item = _item(stk_only_shop, "Air Runner Black")
    status, page = _get(client, f"/shop/kicks/p/{item.pk}/")
    assert status == 200
    sizes = re.findall(r'name="v" value="\d+"[^>]*> (\w+)', page)
    assert sizes == ["41", "42"]  # 43 has no stock
    assert "KES 4,500" in page
    assert 'property="og:title" content="Air Runner Black · KES 4,500"' in page
    assert "<script" not in page


def test_another_shops_product_is_not_found_here(client: Client, stk_only_shop, mboga) -> None:
    theirs = _item(mboga, "Sukuma Wiki Fresh")
    assert client.get(f"/shop/kicks/p/{theirs.pk}/").status_code == 404
    assert client.get(f"/shop/kicks/p/{theirs.pk}/order/").status_code == 404
    assert client.get(f"/shop/kicks/img/{theirs.pk}-s.webp").status_code == 404
    assert client.get(f"/shop/mama-mboga/p/{theirs.pk}/").status_code == 200


def test_inactive_product_is_not_found(client: Client, stk_only_shop) -> None:
    item = factories.item(stk_only_shop, "Hidden Boot", 100, is_active=False)
    assert client.get(f"/shop/kicks/p/{item.pk}/").status_code == 404


@pytest.mark.parametrize("path", ["", "info/", "qr.svg", "p/{pk}/", "p/{pk}/order/"])
def test_a_suspended_shop_answers_404(client: Client, stk_only_shop, path: str) -> None:
    pk = _item(stk_only_shop, "Pool Slide Navy").pk
    assert client.get(f"/shop/kicks/{path.format(pk=pk)}").status_code == 200 or "order" in path
    update_tenant(stk_only_shop, status=Tenant.Status.SUSPENDED)
    assert client.get(f"/shop/kicks/{path.format(pk=pk)}").status_code == 404


def test_an_unpublished_page_answers_404(client: Client, stk_only_shop) -> None:
    with tenant_context(stk_only_shop.id) as tid:
        ShopProfile.objects.create(tenant_id=tid, is_published=False)
    assert client.get("/shop/kicks/").status_code == 404
    assert client.get("/shop/no-such-shop/").status_code == 404


def _wa(response: Any) -> tuple[str, str]:
    assert response.status_code == 302
    target = urlparse(response["Location"])
    assert target.netloc == "wa.me"
    return target.path.strip("/"), parse_qs(target.query)["text"][0]


def test_order_button_opens_whatsapp_with_the_variant_code(client: Client, stk_only_shop) -> None:
    item = _item(stk_only_shop, "Air Runner Black")
    with tenant_context(stk_only_shop.id):
        size42 = item.variants.get(attributes__size="42")
    number, text = _wa(client.get(f"/shop/kicks/p/{item.pk}/order/", {"v": size42.pk}))
    assert number == "254711000001"
    assert text == f"Hi Kicks Nairobi! I'd like Air Runner Black (42) #P{item.pk}V{size42.pk}"


def test_order_without_a_size_goes_back_to_the_product(client: Client, stk_only_shop) -> None:
    item = _item(stk_only_shop, "Air Runner Black")
    with tenant_context(stk_only_shop.id):
        sold_out = item.variants.get(attributes__size="43")
    for params in ({}, {"v": str(sold_out.pk)}):
        response = client.get(f"/shop/kicks/p/{item.pk}/order/", params)
        assert response["Location"] == f"/shop/kicks/p/{item.pk}/"


def test_the_swahili_grocers_page_speaks_swahili(client: Client, mboga) -> None:
    item = _item(mboga, "Sukuma Wiki Fresh")
    _, page = _get(client, f"/shop/mama-mboga/p/{item.pk}/")
    assert "Agiza kwa WhatsApp" in page
    assert 'lang="sw"' in page
    _, text = _wa(client.get(f"/shop/mama-mboga/p/{item.pk}/order/"))
    assert text == f"Habari Mama Mboga! Nataka Sukuma Wiki Fresh #P{item.pk}"


def _counts(tenant: Tenant) -> dict[str, tuple[int, int]]:
    with tenant_context(tenant.id) as tid:
        rows = SourceVisits.objects.filter(tenant_id=tid)
        return {r.source: (r.visits, r.order_taps) for r in rows}


def test_visits_and_order_taps_are_counted_per_source(client: Client, stk_only_shop, mboga) -> None:
    item = _item(stk_only_shop, "Pool Slide Navy")
    client.get("/shop/kicks/", {"q": "slides", "src": "chat"})
    # A click inside the page is no new visit; the tap counts for the chat that brought it.
    client.get(f"/shop/kicks/p/{item.pk}/", HTTP_REFERER="http://testserver/shop/kicks/")
    client.get(f"/shop/kicks/p/{item.pk}/order/")
    Client().get("/shop/kicks/")
    Client().get("/shop/kicks/", {"src": "<script>"})
    assert _counts(stk_only_shop) == {"chat": (1, 1), "direct": (1, 0), "other": (1, 0)}
    assert _counts(mboga) == {}


def test_about_page_shows_hours_location_delivery_and_qr(client: Client, stk_only_shop) -> None:
    hours = {"business_hours": {"mon": [{"opens": "08:00", "closes": "18:00"}]}}
    update_tenant(stk_only_shop, handoff=hours)
    with tenant_context(stk_only_shop.id) as tid:
        ShopProfile.objects.create(
            tenant_id=tid, location="Moi Avenue, Nairobi", delivery_options="CBD - KES 200\n"
        )
    _, page = _get(client, "/shop/kicks/info/")
    assert "Moi Avenue, Nairobi" in page
    assert "CBD - KES 200" in page
    assert "08:00-18:00" in page
    assert "Closed" in page
    qr = client.get("/shop/kicks/qr.svg")
    assert qr["Content-Type"] == "image/svg+xml"
    assert b"<svg" in qr.content


def test_about_page_lists_the_shops_policies(
    client: Client, stk_only_shop, mboga, settings, tmp_path
) -> None:
    from kb.demo import demo_documents, seed_one

    settings.MEDIA_ROOT = str(tmp_path / "media")
    for doc in demo_documents("kicks-nairobi"):
        if doc.topic == "returns" and doc.language == "en":
            seed_one(stk_only_shop, doc)
            title = doc.title
    _, page = _get(client, "/shop/kicks/info/")
    assert title in page
    _, theirs = _get(client, "/shop/mama-mboga/info/")
    assert title not in theirs


def test_thumbnails_are_made_once_and_small(client: Client, stk_only_shop, photos) -> None:
    item = factories.item(stk_only_shop, "Photo Boot", 100, image_url=f"{photos.base_url}/b.jpg")
    _, page = _get(client, "/shop/kicks/")
    found = re.search(rf'src="(/shop/kicks/img/{item.pk}-s\.webp[^"]*)"', page)
    assert found is not None
    src = unquote(found[1])
    first = client.get(src)
    assert first["Content-Type"] == "image/webp"
    assert "immutable" in first["Cache-Control"]
    small = b"".join(first.streaming_content)  # type: ignore[attr-defined]
    assert len(small) < len(photos.photo) / 20
    again = b"".join(client.get(src).streaming_content)  # type: ignore[attr-defined]
    assert again == small
    assert photos.requests == ["/b.jpg"]


def test_a_dead_photo_is_tried_once_not_on_every_view(
    client: Client, stk_only_shop, photos
) -> None:
    item = factories.item(stk_only_shop, "Lost Boot", 100, image_url=f"{photos.base_url}/gone.png")
    for _ in range(3):
        assert client.get(f"/shop/kicks/img/{item.pk}-s.webp").status_code == 404
    assert photos.requests == ["/gone.png"]
