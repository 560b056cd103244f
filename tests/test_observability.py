"""Request ids, structured logs without secrets, metrics, and trace propagation to Celery."""

from __future__ import annotations

import io
import json
import logging
import time
import uuid

import pytest
import redis
import structlog
from celery.contrib.testing.worker import start_worker
from django.conf import settings

from tulia.celery import app as celery_app
from tulia.observability import metrics
from tulia.observability.logs import logging_config
from tulia.observability.tracing import current_request_id, traced


@pytest.mark.django_db
def test_every_response_carries_a_request_id(client) -> None:
    first = client.get("/healthz")["X-Request-ID"]
    second = client.get("/healthz")["X-Request-ID"]
    assert len(first) == 32
    assert first != second


@pytest.mark.django_db
def test_a_well_formed_incoming_request_id_is_kept(client) -> None:
    response = client.get("/healthz", headers={"X-Request-ID": "edge-proxy-1234abcd"})
    assert response["X-Request-ID"] == "edge-proxy-1234abcd"


@pytest.mark.django_db
def test_a_malicious_request_id_is_replaced(client) -> None:
    response = client.get("/healthz", headers={"X-Request-ID": "x\r\nSet-Cookie: a=b"})
    assert "Set-Cookie" not in response["X-Request-ID"]


def _capture_json_log(emit) -> dict:
    """Render what `emit` logs through the production formatter; return the last line."""
    config = logging_config("INFO", json=True)
    formatter_spec = dict(config["formatters"]["structured"])
    formatter_class = formatter_spec.pop("()")
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(formatter_class(**formatter_spec))
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        emit()
    finally:
        root.removeHandler(handler)
    return json.loads(buffer.getvalue().strip().splitlines()[-1])


def test_log_lines_are_json_with_the_bound_identity() -> None:
    def emit() -> None:
        with traced(request_id="req-0001abcd", tenant_id="t-1"):
            structlog.get_logger("tulia.test").info("turn_done", turns=1)

    line = _capture_json_log(emit)
    assert line["event"] == "turn_done"
    assert line["request_id"] == "req-0001abcd"
    assert line["tenant_id"] == "t-1"
    assert line["level"] == "info"


def test_secrets_are_redacted_from_log_lines() -> None:
    def emit() -> None:
        structlog.get_logger("tulia.test").warning(
            "provider_call",
            auth_token="demo-kicks-twilio-token",
            header="Basic QUMxMTExOnNlY3JldHRva2Vu",
            stored="fernet:gAAAAABlongciphertext",
        )

    line = _capture_json_log(emit)
    text = json.dumps(line)
    assert "demo-kicks-twilio-token" not in text
    assert "QUMxMTExOnNlY3JldHRva2Vu" not in text
    assert "gAAAAABlongciphertext" not in text
    assert line["auth_token"] == "[redacted]"


def test_stdlib_log_lines_are_structured_too() -> None:
    def emit() -> None:
        with traced(request_id="req-0002abcd"):
            logging.getLogger("django.request").warning("plain %s", "message")

    line = _capture_json_log(emit)
    assert line["event"] == "plain message"
    assert line["request_id"] == "req-0002abcd"


@pytest.mark.django_db
def test_metrics_endpoint_serves_prometheus_text(client) -> None:
    metrics.TURNS.labels(tenant="t-metrics", outcome="replied").inc()
    body = client.get("/metrics").content.decode()
    assert 'tulia_turns_total{outcome="replied",tenant="t-metrics"}' in body


@pytest.mark.django_db
def test_metrics_token_is_enforced_when_configured(client, settings) -> None:
    settings.TULIA_METRICS_TOKEN = "scrape-secret-123"
    assert client.get("/metrics").status_code == 401
    authorised = client.get("/metrics", headers={"Authorization": "Bearer scrape-secret-123"})
    assert authorised.status_code == 200


@celery_app.task(name="tests.record_trace")
def record_trace(key: str) -> None:
    redis.Redis.from_url(settings.REDIS_URL).set(key, current_request_id() or "", ex=60)


def test_request_id_travels_with_a_celery_task() -> None:
    key = f"test:trace:{uuid.uuid4().hex}"
    queue = f"trace-test-{uuid.uuid4().hex[:12]}"  # nothing else is ever queued here
    store = redis.Redis.from_url(settings.REDIS_URL)
    was_eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False  # a real round trip through the broker
    try:
        with start_worker(celery_app, perform_ping_check=False, pool="solo", queues=[queue]):
            with traced(request_id="req-celery-42"):
                record_trace.apply_async(args=(key,), queue=queue)
            for _ in range(100):
                if store.get(key) is not None:
                    break
                time.sleep(0.05)
    finally:
        celery_app.conf.task_always_eager = was_eager
    assert store.get(key) == b"req-celery-42"
