"""Per-purpose callback secrets: one never opens another URL; rotation needs the owner."""

from __future__ import annotations

import io
import logging
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from payments.accounts import mpesa_account, pesapal_account
from payments.models import CallbackPurpose, MpesaAccount, PesapalAccount
from payments.routes import (
    PURPOSE_OF,
    callback_path,
    current_secret,
    rotation_state,
    tenant_for_secret,
)
from tenants.services import add_staff_member
from tests.payments.conftest import events_of, mpesa_fixture, pesapal_fixture
from tulia.observability.logs import logging_config

pytestmark = pytest.mark.django_db
PASSWORD = "x-Admin-Pass-42"


def login(tenant, username: str, role: str = "owner") -> Client:
    add_staff_member(tenant.id, username=username, password=PASSWORD, role=role)
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


def admin_url(model, action: str = "changelist", *args: Any) -> str:
    return reverse(f"admin:payments_{model._meta.model_name}_{action}", args=args)


def test_every_purpose_has_its_own_secret(shop) -> None:
    secrets = {purpose: current_secret(shop.id, purpose) for purpose in CallbackPurpose.values}
    assert len(set(secrets.values())) == len(secrets)
    assert all(len(secret) >= 40 for secret in secrets.values())
    for purpose, secret in secrets.items():
        assert tenant_for_secret(secret, purpose) == shop.id


def test_the_card_return_secret_opens_no_other_callback(shop, client) -> None:
    """Every card customer sees the return URL: its secret must authorise nothing."""
    seen = current_secret(shop.id, CallbackPurpose.CARD_RETURN)
    bodies = {
        "stk_callback": mpesa_fixture("stk_callback_success.json"),
        "c2b_confirmation": mpesa_fixture("c2b_confirmation.json"),
        "c2b_validation": mpesa_fixture("c2b_validation.json"),
        "txn_status_result": mpesa_fixture("txn_status_result_completed.json"),
        "txn_status_timeout": mpesa_fixture("txn_status_queue_timeout.json"),
        "pesapal_ipn": pesapal_fixture("ipn_post.json"),
    }
    for name, body in bodies.items():
        path = reverse(f"payments:{name}", kwargs={"token": seen})
        response = client.post(path, body, content_type="application/json")
        assert response.status_code == 404, name
    assert events_of(shop) == []


def test_the_return_page_changes_nothing_and_says_we_are_checking(shop, client) -> None:
    response = client.get(
        callback_path(shop.id, "pesapal_return"),
        {"OrderTrackingId": "x", "OrderMerchantReference": "y"},
    )
    assert response.status_code == 200
    assert "checking your payment" in response.json()["message"]
    assert events_of(shop) == []


def test_rotation_keeps_old_urls_until_the_owner_confirms(shop, client) -> None:
    owner = login(shop, "owner_rot")
    old = {name: callback_path(shop.id, name) for name in PURPOSE_OF}
    account = mpesa_account(shop.id)
    action = {"_selected_action": [account.pk]}
    owner.post(admin_url(MpesaAccount), {"action": "start_callback_rotation", **action})
    new = {name: callback_path(shop.id, name) for name in PURPOSE_OF}
    assert all(old[name] != new[name] for name in PURPOSE_OF)
    assert rotation_state(shop.id).in_progress
    body = mpesa_fixture("c2b_validation.json")
    for path in (old["c2b_validation"], new["c2b_validation"]):  # in-flight payments land
        assert client.post(path, body, content_type="application/json").status_code == 200
    owner.post(admin_url(MpesaAccount), {"action": "confirm_callback_rotation", **action})
    assert not rotation_state(shop.id).in_progress
    assert (
        client.post(old["c2b_validation"], body, content_type="application/json").status_code == 404
    )
    assert (
        client.post(new["c2b_validation"], body, content_type="application/json").status_code == 200
    )


def test_pesapal_admin_rotates_the_same_secrets(shop) -> None:
    owner = login(shop, "owner_rot_pp")
    before = callback_path(shop.id, "pesapal_ipn")
    account = pesapal_account(shop.id)
    owner.post(
        admin_url(PesapalAccount),
        {"action": "start_callback_rotation", "_selected_action": [account.pk]},
    )
    assert callback_path(shop.id, "pesapal_ipn") != before


def test_an_agent_cannot_rotate(shop) -> None:
    agent = login(shop, "agent_rot", role="agent")
    before = callback_path(shop.id, "stk_callback")
    agent.post(
        admin_url(MpesaAccount),
        {"action": "start_callback_rotation", "_selected_action": [mpesa_account(shop.id).pk]},
    )
    assert callback_path(shop.id, "stk_callback") == before
    assert not rotation_state(shop.id).in_progress


def test_owner_sees_the_c2b_urls_and_portal_steps_agents_do_not(shop) -> None:
    page_url = admin_url(MpesaAccount, "change", mpesa_account(shop.id).pk)
    c2b_path = callback_path(shop.id, "c2b_confirmation")
    owner_page = login(shop, "owner_steps").get(page_url).content.decode()
    assert c2b_path in owner_page
    assert "URL Management" in owner_page
    agent_page = login(shop, "agent_steps", role="agent").get(page_url).content.decode()
    assert c2b_path not in agent_page


def test_a_strangers_rotation_leaves_this_shop_alone(shop, other_shop) -> None:
    mine = callback_path(shop.id, "stk_callback")
    stranger_owner = login(other_shop, "stranger_rot")
    stranger_owner.post(
        admin_url(MpesaAccount),
        {"action": "start_callback_rotation", "_selected_action": [mpesa_account(shop.id).pk]},
    )
    assert callback_path(shop.id, "stk_callback") == mine
    assert not rotation_state(shop.id).in_progress


def _render(logger: str, message: str) -> str:
    spec = dict(logging_config("DEBUG", json=True)["formatters"]["structured"])
    formatter = spec.pop("()")(**spec)
    buffer = io.StringIO()
    sink = logging.StreamHandler(buffer)
    sink.setFormatter(formatter)
    log = logging.getLogger(logger)
    log.addHandler(sink)
    try:
        log.warning("%s", message)
    finally:
        log.removeHandler(sink)
    return buffer.getvalue()


def test_secrets_in_callback_paths_are_scrubbed_from_logs(shop) -> None:
    path = callback_path(shop.id, "stk_callback")
    secret = current_secret(shop.id, CallbackPurpose.STK)
    line = _render("django.request", f"Bad Request: {path}")
    assert secret not in line
    assert "/payments/cb/[redacted]/stk/" in line


def test_gunicorn_access_lines_are_scrubbed(shop) -> None:
    from gunicorn.config import Config

    from tulia.observability.access_log import ScrubbingLogger

    path = callback_path(shop.id, "pesapal_return")
    secret = current_secret(shop.id, CallbackPurpose.CARD_RETURN)
    environ = {
        "REQUEST_METHOD": "GET",
        "RAW_URI": f"{path}?OrderTrackingId=1",
        "PATH_INFO": path,
        "QUERY_STRING": "OrderTrackingId=1",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
    }
    response = SimpleNamespace(status="200 OK", response_length=10, sent=10, headers=[])
    request = SimpleNamespace(headers=[], uri=path, path=path, query="", method="GET")
    atoms = ScrubbingLogger(Config()).atoms(response, request, environ, _elapsed())
    assert secret not in atoms["r"]
    assert secret not in atoms["U"]
    assert "/cb/[redacted]/card/return/" in atoms["U"]


def _elapsed() -> Any:
    from datetime import timedelta

    return timedelta(milliseconds=3)


def test_the_request_object_django_logs_is_scrubbed_too(shop, rf) -> None:
    """django.request adds the request as an extra; its repr shows the path."""
    path = callback_path(shop.id, "txn_status_result")
    secret = current_secret(shop.id, CallbackPurpose.TXN_STATUS)
    spec = dict(logging_config("DEBUG", json=True)["formatters"]["structured"])
    formatter = spec.pop("()")(**spec)
    buffer = io.StringIO()
    sink = logging.StreamHandler(buffer)
    sink.setFormatter(formatter)
    log = logging.getLogger("django.request")
    log.addHandler(sink)
    try:
        log.error("Internal Server Error: %s", path, extra={"request": rf.post(path)})
    finally:
        log.removeHandler(sink)
    assert "WSGIRequest" in buffer.getvalue()
    assert secret not in buffer.getvalue()
