"""The low-severity findings of the issue-15 probe, each pinned by the attack that found it."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from tenants.services import add_staff_member
from tulia.api.keys import issue_key
from tulia.commerce.importer import import_catalog
from tulia.json_depth import MAX_JSON_DEPTH, json_depth_exceeds

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "x-Low-Pass-42"


@pytest.fixture
def owner(tenant, stranger) -> Client:
    add_staff_member(tenant.id, username="owner_low", password=PASSWORD, role="owner")
    client = Client()
    assert client.login(username="owner_low", password=PASSWORD)
    return client


# --- /metrics needs its token wherever the production profile runs --------------------
def test_production_refuses_to_start_without_a_metrics_token() -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "TULIA_PROFILE": "production",
        "DJANGO_SETTINGS_MODULE": "tulia.settings",
        "DJANGO_SECRET_KEY": "k" * 60,
        "TULIA_FIELD_KEYS": "YnVpbGQtb25seS1rZXktMzItYnl0ZXMtbG9uZyEhISE=",
        "TULIA_OPERATOR_KEY": "operator",
        "DATABASE_URL": "postgresql://x@localhost/x",
        "REDIS_URL": "redis://localhost:6379/0",
    }
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert "TULIA_METRICS_TOKEN must be set" in result.stderr


def test_compose_requires_the_metrics_token() -> None:
    compose = (ROOT / "deploy" / "compose.yaml").read_text()
    assert "TULIA_METRICS_TOKEN: ${TULIA_METRICS_TOKEN:?" in compose


# --- sign-in throttling --------------------------------------------------------------
@pytest.fixture
def throttled(settings, tenant):
    settings.AXES_ENABLED = True
    settings.AXES_FAILURE_LIMIT = 3
    add_staff_member(tenant.id, username="agent_low", password=PASSWORD, role="agent")


def test_admin_sign_in_locks_after_repeated_failures(throttled) -> None:
    client = Client()
    url = reverse("admin:login")
    for _ in range(3):
        client.post(url, {"username": "agent_low", "password": "wrong-guess"})
    response = client.post(url, {"username": "agent_low", "password": PASSWORD})
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session


def test_http_basic_on_the_desk_api_locks_too(throttled) -> None:
    client = APIClient()
    url = "/api/v1/handoff/tickets/"
    for _ in range(3):
        client.credentials(HTTP_AUTHORIZATION=_basic("agent_low", "wrong-guess"))
        client.get(url)
    client.credentials(HTTP_AUTHORIZATION=_basic("agent_low", PASSWORD))
    assert client.get(url).status_code in (403, 429)


def _basic(username: str, password: str) -> str:
    import base64

    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


# --- catalog import ------------------------------------------------------------------
def test_import_page_lists_no_shops(owner) -> None:
    page = owner.get(reverse("admin:commerce_catalogitem_import")).content.decode()
    assert "Mama Mboga" not in page
    assert "Kicks Nairobi" not in page or 'name="tenant"' not in page


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,<b>x</b>", "vbscript:x"]
)
@pytest.mark.parametrize("field", ["link_url", "image_url"])
def test_import_refuses_script_urls(tenant, url, field) -> None:
    rows = [{"name": "Sneaker", "price": "1500", "sku": "SN-1", field: url}]
    report = import_catalog(tenant.id, json.dumps(rows), "json")
    assert not report.ok
    assert any(error.field == field for error in report.errors)


# --- a new API key is shown once on the page, never put in the messages cookie --------
def test_new_api_key_is_on_the_page_and_not_in_cookies(owner) -> None:
    response = owner.post(reverse("admin:commerce_apikey_add"), {"name": "POS"})
    assert response.status_code == 200
    assert "tulia_" in response.content.decode()
    assert "no-store" in response["Cache-Control"]
    for morsel in response.cookies.values():
        assert "tulia_" not in morsel.value
    assert "tulia_" not in owner.get(reverse("admin:commerce_apikey_changelist")).content.decode()


# --- Swagger UI from our own static files --------------------------------------------
def test_swagger_ui_is_served_locally(tenant) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issue_key(tenant.id, 'docs').plaintext}")
    page = client.get(reverse("api-docs")).content.decode()
    assert "drf_spectacular_sidecar/swagger-ui-dist" in page
    assert "cdn.jsdelivr.net" not in page
    assert "@latest" not in page


# --- seed_demo ------------------------------------------------------------------------
def test_seed_demo_refuses_production(settings) -> None:
    settings.IS_PRODUCTION = True
    with pytest.raises(CommandError, match="production"):
        call_command("seed_demo")


# --- log injection through an unknown To ----------------------------------------------
def test_unknown_to_cannot_forge_log_lines(caplog) -> None:
    forged = "+254700000000\n2026-01-01 INFO payment confirmed " + "x" * 5000
    with caplog.at_level(logging.WARNING, logger="tulia.whatsapp"):
        response = Client().post("/whatsapp/inbound", {"To": forged, "From": "+1"})
    assert response.status_code == 404
    lines = [r.getMessage() for r in caplog.records if "unknown number" in r.getMessage()]
    assert lines
    assert all("\n" not in line and len(line) < 300 for line in lines)


# --- deeply nested JSON is a 400, not a 500 ------------------------------------------
NESTED = b"[" * 100_000 + b"]" * 100_000


def test_nested_json_to_the_api_is_a_400(tenant) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issue_key(tenant.id, 'pos').plaintext}")
    response = client.generic(
        "POST", "/api/v1/catalog/items/", NESTED.decode(), content_type="application/json"
    )
    assert response.status_code == 400


def test_nested_json_to_the_pesapal_ipn_is_a_400() -> None:
    response = Client().generic(
        "POST", "/payments/cb/any-token/card/ipn/", NESTED, content_type="application/json"
    )
    assert response.status_code == 400


def test_depth_check_reads_strings_and_escapes() -> None:
    assert not json_depth_exceeds(json.dumps({"a": "[" * 500}).encode())
    assert not json_depth_exceeds(json.dumps({"a": '\\"[' * 500}).encode())
    deep = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
    assert json_depth_exceeds(deep.encode())
    ok = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert not json_depth_exceeds(ok.encode())


# --- unique collisions through the API are a 409 -------------------------------------
def test_duplicate_sku_through_the_api_is_a_conflict_not_a_500(tenant) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issue_key(tenant.id, 'pos').plaintext}")
    item = {"name": "Sneaker", "price": "1500.00", "sku": "DUP-1"}
    assert client.post("/api/v1/catalog/items/", item, format="json").status_code == 201
    second = client.post("/api/v1/catalog/items/", item, format="json")
    assert 400 <= second.status_code < 500


def test_a_unique_violation_the_serializer_missed_answers_409() -> None:
    # What a race between two identical creates, or a shop-crossing unique value hidden by
    # RLS, raises from the database once validation has passed.
    from django.db import IntegrityError

    from tulia.api.errors import exception_handler

    response = exception_handler(IntegrityError("duplicate key"), {"request": None})
    assert response is not None
    assert response.status_code == 409
    assert "duplicate key" not in str(response.data)
