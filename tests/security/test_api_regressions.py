"""Cases schemathesis found in the tenant API, pinned so they stay fixed."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tenants.models import Tenant
from tests.commerce import factories
from tulia.api.keys import issue_key
from tulia.commerce.checkout import LineRequest, create_order

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(tenant: Tenant) -> APIClient:
    # raise_request_exception: a database error must fail here, not hide in a 500.
    client = APIClient(raise_request_exception=True)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issue_key(tenant.id, 'pos').plaintext}")
    return client


OFFER = {"name": "Promo", "kind": "fixed", "value": "10"}


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"kind": "percentage", "value": "375686"}, "value"),
        ({"scope": "item"}, "item"),
        ({"scope": "category"}, "category"),
        ({"ends_at": "0457-09-25T01:14:08Z"}, "ends_at"),
        ({"starts_at": "2030-01-02T00:00:00Z", "ends_at": "2030-01-01T00:00:00Z"}, "ends_at"),
    ],
)
def test_an_offer_the_table_would_refuse_is_a_400(
    api: APIClient, fields: dict[str, Any], field: str
) -> None:
    response = api.post("/api/v1/offers/", {**OFFER, **fields}, format="json")
    assert response.status_code == 400
    assert field in response.json()


def test_a_partial_update_is_checked_against_the_stored_offer(api: APIClient) -> None:
    made = api.post("/api/v1/offers/", OFFER, format="json")
    assert made.status_code == 201
    path = f"/api/v1/offers/{made.json()['id']}/"
    assert api.patch(path, {"kind": "percentage", "value": "101"}, format="json").status_code == 400
    assert api.patch(path, {"value": "90"}, format="json").status_code == 200


def test_an_order_without_a_coupon_is_documented_as_nullable(
    tenant: Tenant, api: APIClient
) -> None:
    item = factories.item(tenant, "Air Runner Black", 4500)
    create_order(tenant.id, factories.customer(tenant).pk, [LineRequest(item.pk, 1)])
    assert api.get("/api/v1/orders/").json()[0]["coupon_code"] is None
    schema = api.get("/api/v1/schema/?format=json").json()
    assert schema["components"]["schemas"]["Order"]["properties"]["coupon_code"]["nullable"]


def test_error_answers_are_part_of_the_schema(api: APIClient) -> None:
    paths = api.get("/api/v1/schema/?format=json").json()["paths"]
    create = paths["/api/v1/offers/"]["post"]["responses"]
    detail = paths["/api/v1/catalog/items/{id}/"]["get"]["responses"]
    assert {"400", "401", "403"} <= set(create)
    assert {"401", "403", "404"} <= set(detail)
