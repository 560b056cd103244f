"""API error answers carry the request id and stay JSON under /api/ (SPEC §9)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tulia.api.keys import issue_key

pytestmark = pytest.mark.django_db


def _client(tenant) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issue_key(tenant.id, 'pos').plaintext}")
    return client


def test_a_refused_key_answer_names_the_request(client) -> None:
    response = client.get("/api/v1/catalog/items/", HTTP_AUTHORIZATION="Bearer tk_nope_nope")
    assert response.status_code in (401, 403)
    body = response.json()
    assert body["request_id"] == response["X-Request-ID"]
    assert body["detail"]


def test_a_validation_error_keeps_its_fields_and_names_the_request(tenant) -> None:
    response = _client(tenant).post("/api/v1/catalog/items/", {"name": ""}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["request_id"] == response["X-Request-ID"]
    assert "name" in body


def test_an_unknown_api_path_answers_json_with_the_request_id(tenant) -> None:
    response = _client(tenant).get("/api/v1/catalog/items/-2.2e-16/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["request_id"] == response["X-Request-ID"]


def test_outside_the_api_a_missing_page_stays_html(client) -> None:
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
