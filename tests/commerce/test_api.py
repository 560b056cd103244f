"""Tenant REST API: hashed revocable keys, tenant scoping on every endpoint, schema."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from tenants.context import tenant_context
from tests.commerce import factories as f
from tulia.api.keys import KEY_PREFIX, issue_key, revoke_key, verify_key
from tulia.commerce.checkout import LineRequest, create_order
from tulia.commerce.models import ApiKey, CatalogItem, Offer

pytestmark = pytest.mark.django_db


def _client(tenant) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issue_key(tenant.id, 'pos').plaintext}")
    return client


@pytest.fixture
def theirs(stranger):
    item = f.item(stranger, "Sukuma Wiki", 20)
    order = create_order(stranger.id, f.customer(stranger).pk, [LineRequest(item.pk, 2)])
    offer = f.offer(stranger, "MBOGA5")
    return {"item": item, "order": order, "offer": offer}


def test_key_is_stored_hashed_and_can_be_revoked(tenant) -> None:
    issued = issue_key(tenant.id, "pos")
    with tenant_context(tenant.id):
        stored = ApiKey.objects.get()
    # The secret is what follows the key's public prefix; it may itself contain "_".
    secret = issued.plaintext.removeprefix(KEY_PREFIX).partition("_")[2]
    assert len(secret) >= 32
    assert secret not in stored.secret_hash
    assert verify_key(issued.plaintext) == stored
    assert verify_key(issued.plaintext + "x") is None
    revoke_key(tenant.id, stored.pk)
    assert verify_key(issued.plaintext) is None


def test_requests_without_a_valid_key_are_refused(tenant) -> None:
    assert APIClient().get("/api/v1/catalog/items/").status_code in (401, 403)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer tulia_abc_def")
    assert client.get("/api/v1/catalog/items/").status_code == 401


def test_stranger_key_cannot_revoke_or_see_my_key(tenant, stranger) -> None:
    mine = issue_key(tenant.id, "pos")
    revoke_key(stranger.id, mine.key.pk)
    assert verify_key(mine.plaintext) is not None


def test_items_are_listed_created_and_scoped(tenant, stranger, theirs) -> None:
    client = _client(tenant)
    made = client.post(
        "/api/v1/catalog/items/",
        {"sku": "AF1", "name": "Air Force 1", "price": "9500", "stock": 3, "category": "Sneakers"},
        format="json",
    )
    assert made.status_code == 201, made.content
    listed = client.get("/api/v1/catalog/items/").json()
    assert [i["sku"] for i in listed] == ["AF1"]
    assert listed[0]["category"] == "Sneakers"
    with tenant_context(stranger.id):
        assert not CatalogItem.objects.filter(sku="AF1").exists()


def test_cents_are_refused(tenant) -> None:
    response = _client(tenant).post(
        "/api/v1/catalog/items/", {"sku": "X", "name": "X", "price": "10.50"}, format="json"
    )
    assert response.status_code == 400


@pytest.mark.parametrize("method", ["get", "patch", "delete"])
def test_stranger_item_is_not_found_and_untouched(tenant, theirs, method) -> None:
    url = f"/api/v1/catalog/items/{theirs['item'].pk}/"
    response = getattr(_client(tenant), method)(url, {"name": "hacked"}, format="json")
    assert response.status_code == 404
    with tenant_context(theirs["item"].tenant_id):
        item = CatalogItem.objects.get(pk=theirs["item"].pk)
    assert (item.name, item.is_active) == ("Sukuma Wiki", True)


def test_bulk_import_endpoint(tenant, stranger) -> None:
    rows = [{"sku": "A", "name": "Ok", "price": 100}, {"sku": "B", "name": "Bad", "price": "x"}]
    client = _client(tenant)
    bad = client.post(
        "/api/v1/catalog/items/import/",
        {"format": "json", "content": json.dumps(rows)},
        format="json",
    )
    assert bad.status_code == 400
    assert bad.json()["errors"][0]["row"] == 2
    good = client.post(
        "/api/v1/catalog/items/import/",
        {"format": "json", "content": json.dumps(rows[:1])},
        format="json",
    )
    assert good.status_code == 200
    assert good.json()["created"] == 1
    with tenant_context(stranger.id):
        assert CatalogItem.objects.count() == 0


def test_orders_are_read_only_and_scoped(tenant, theirs) -> None:
    mine = f.item(tenant, "Vans", 7000)
    order = create_order(tenant.id, f.customer(tenant).pk, [LineRequest(mine.pk, 1)])
    client = _client(tenant)
    listed = client.get("/api/v1/orders/").json()
    assert [o["reference"] for o in listed] == [order.reference]
    assert listed[0]["paid"] is False
    assert listed[0]["total"] == "7000.00"
    assert client.get(f"/api/v1/orders/{theirs['order'].pk}/").status_code == 404
    assert client.post("/api/v1/orders/", {}, format="json").status_code == 405


def test_offers_are_scoped(tenant, stranger, theirs) -> None:
    client = _client(tenant)
    made = client.post(
        "/api/v1/offers/", {"name": "Ten", "kind": "percentage", "value": "10"}, format="json"
    )
    assert made.status_code == 201, made.content
    assert [o["name"] for o in client.get("/api/v1/offers/").json()] == ["Ten"]
    assert client.get(f"/api/v1/offers/{theirs['offer'].pk}/").status_code == 404
    stolen = client.post(
        "/api/v1/offers/",
        {"name": "X", "kind": "fixed", "value": "5", "scope": "item", "item": theirs["item"].pk},
        format="json",
    )
    assert stolen.status_code == 400
    with tenant_context(stranger.id):
        assert Offer.objects.count() == 1


def test_openapi_schema_lists_the_resources(db) -> None:
    response = APIClient().get("/api/v1/schema/", {"format": "json"})
    assert response.status_code == 200
    paths = json.loads(response.content)["paths"]
    assert {"/api/v1/catalog/items/", "/api/v1/orders/", "/api/v1/offers/"} <= set(paths)
