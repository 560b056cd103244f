"""Consent audit is append-only; health probes answer; settings fail loudly."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.db import DatabaseError, transaction

from tenants.context import operator_context, tenant_context
from tenants.models import ConsentEvent, Customer
from tenants.services import get_or_create_customer, record_consent


@pytest.mark.django_db
def test_withdrawal_updates_flags_and_appends_an_event(tenant) -> None:
    customer, _ = get_or_create_customer(tenant.id, "0712000444")
    record_consent(tenant.id, customer.id, kind="marketing", action="granted", source="whatsapp")
    record_consent(
        tenant.id, customer.id, kind="all", action="withdrawn", source="whatsapp", evidence="STOP"
    )
    with tenant_context(tenant.id):
        customer = Customer.objects.get(pk=customer.pk)
        actions = list(ConsentEvent.objects.order_by("id").values_list("kind", "action"))
    assert not customer.marketing_opt_in
    assert not customer.notifications_opt_in
    assert customer.consent_withdrawn_at is not None
    assert actions == [("marketing", "granted"), ("all", "withdrawn")]


@pytest.mark.django_db
@pytest.mark.parametrize("operation", ["update", "delete"])
def test_consent_events_cannot_be_rewritten(tenant, operation) -> None:
    customer, _ = get_or_create_customer(tenant.id, "0712000555")
    event = record_consent(
        tenant.id, customer.id, kind="marketing", action="granted", source="admin"
    )
    with tenant_context(tenant.id):
        rows = ConsentEvent.objects.filter(pk=event.pk)
        change = (lambda: rows.update(action="withdrawn")) if operation == "update" else rows.delete
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            change()


@pytest.mark.django_db
def test_operator_may_erase_consent_history_with_the_customer(tenant) -> None:
    customer, _ = get_or_create_customer(tenant.id, "0712000666")
    record_consent(tenant.id, customer.id, kind="marketing", action="granted", source="admin")
    with operator_context("customer erasure request"):
        Customer.objects.filter(pk=customer.pk).delete()
        assert not ConsentEvent.objects.filter(customer_id=customer.pk).exists()


@pytest.mark.django_db
def test_healthz_and_readyz_answer(client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["failures"] == []


@pytest.mark.django_db
def test_readyz_reports_an_unreachable_redis(client, settings) -> None:
    settings.REDIS_URL = "unix:///nonexistent/tulia-redis.sock"
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["failures"] == ["redis: ConnectionError"]


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("DJANGO_DEBUG", "maybe", "DJANGO_DEBUG must be a boolean"),
        ("DB_CONN_MAX_AGE", "soon", "DB_CONN_MAX_AGE must be an integer"),
        ("TULIA_PROFILE", "staging", "TULIA_PROFILE must be one of"),
        ("REDIS_URL", "http://nope", "REDIS_URL must start with"),
        ("TULIA_PUBLIC_BASE_URL", "example.com", "TULIA_PUBLIC_BASE_URL must start with"),
        ("TULIA_SWEEP_AGE_SECONDS", "soon", "TULIA_SWEEP_AGE_SECONDS must be a number"),
        ("TULIA_SENDER_CACHE_SECONDS", "-1", "TULIA_SENDER_CACHE_SECONDS must be >= 0"),
        ("TULIA_TWILIO_API_BASE", "emulator:9", "TULIA_TWILIO_API_BASE must start with"),
        ("TULIA_EMBEDDER", "gpu", "TULIA_EMBEDDER must be one of"),
        ("TULIA_REDIS_TIMEOUT_SECONDS", "0", "TULIA_REDIS_TIMEOUT_SECONDS must be >= 0.1"),
    ],
)
@pytest.mark.process
def test_bad_settings_stop_start_up_with_the_variable_named(name, value, message) -> None:
    env = {**os.environ, name: value, "DJANGO_SETTINGS_MODULE": "tulia.settings"}
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode != 0
    assert message in result.stderr


@pytest.mark.deploy
def test_production_requires_its_secrets() -> None:
    secrets = {"DJANGO_SECRET_KEY", "TULIA_FIELD_KEYS"}
    env = {k: v for k, v in os.environ.items() if k not in secrets}
    env.update(TULIA_PROFILE="production", DJANGO_SETTINGS_MODULE="tulia.settings")
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "DJANGO_SECRET_KEY must be set when TULIA_PROFILE=production" in result.stderr


@pytest.mark.django_db
@pytest.mark.deploy
def test_production_settings_pass_djangos_deploy_checks() -> None:
    from cryptography.fernet import Fernet
    from django.conf import settings as live

    env = {
        **os.environ,
        "TULIA_PROFILE": "production",
        "DJANGO_SECRET_KEY": "x" * 20 + "-production-only-secret-key-value-0123456789",
        "TULIA_FIELD_KEYS": Fernet.generate_key().decode(),
        "TULIA_OPERATOR_KEY": "operator-key-for-the-deploy-check",
        "TULIA_METRICS_TOKEN": "metrics-token-for-the-deploy-check",
        "DATABASE_URL": live.DATABASE_URL,
        "REDIS_URL": live.REDIS_URL,
        "DJANGO_ALLOWED_HOSTS": "api.tulia.example",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
