"""The webhook hot path: pinned query count, the sender cache, concurrent duplicates."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tenants.context import tenant_context
from tenants.models import WhatsAppSender
from tulia.conversations.models import InboundMessage
from tulia.redis_client import get_redis
from tulia.whatsapp import senders

from .conftest import TEST_QUEUE, event, sign


@pytest.fixture
def sender_cache(settings):
    settings.TULIA_SENDER_CACHE_SECONDS = 60
    senders.forget_all()
    yield
    senders.forget_all()


def _statements(queries: CaptureQueriesContext) -> list[str]:
    """Queries sent, without the savepoints the test transaction adds around atomic()."""
    return [
        query["sql"]
        for query in queries
        if not query["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))
    ]


@pytest.mark.django_db
def test_inbound_webhook_query_count_is_pinned(post_signed, tenant) -> None:
    post_signed("inbound", event("inbound_text", MessageSid="SM" + "f" * 32))  # warm up
    with CaptureQueriesContext(connection) as queries:
        assert post_signed("inbound", event("inbound_text")).status_code == 200
    # Resolve: route, sender and the tenant setting set/restored; store: the same + insert.
    assert len(_statements(queries)) == 7, _statements(queries)


@pytest.mark.django_db
@pytest.mark.usefixtures("sender_cache")
def test_cached_sender_saves_the_resolution_queries(post_signed, tenant) -> None:
    post_signed("inbound", event("inbound_text", MessageSid="SM" + "f" * 32))
    with CaptureQueriesContext(connection) as queries:
        assert post_signed("inbound", event("inbound_text")).status_code == 200
    assert len(_statements(queries)) == 3, _statements(queries)


@pytest.mark.django_db
@pytest.mark.usefixtures("sender_cache")
def test_unknown_numbers_are_not_cached(post_signed, tenant) -> None:
    form = event("inbound_text", To="whatsapp:+254799999999")
    assert post_signed("inbound", form).status_code == 404
    assert senders._cache == {}


@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicate_deliveries_store_one_message(tenant) -> None:
    # Earlier tests on this xdist worker may have left turns in its queue.
    get_redis().delete(TEST_QUEUE)
    form = event("inbound_text")
    path = "/whatsapp/inbound"
    signature = sign(path, form, "token-a-123456789")
    statuses: list[int] = []
    barrier = threading.Barrier(4)

    def deliver() -> None:
        barrier.wait()
        response = Client().post(path, form, headers={"X-Twilio-Signature": signature})
        statuses.append(response.status_code)
        connection.close()

    threads = [threading.Thread(target=deliver) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [200, 200, 200, 200]
    with tenant_context(tenant.id):
        assert InboundMessage.objects.count() == 1
    queued = get_redis().llen(TEST_QUEUE)
    assert queued == 1  # one turn enqueued, for the one delivery that inserted
    get_redis().delete(TEST_QUEUE)


@pytest.mark.django_db
def test_sender_lookup_is_per_tenant(tenant, stranger) -> None:
    with tenant_context(tenant.id):
        assert WhatsAppSender.objects.get().phone_e164 == "+254711000001"
    resolved = senders.resolve_sender("whatsapp:+254711000002")
    assert resolved.tenant_id == stranger.id
