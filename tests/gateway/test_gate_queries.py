"""The gate costs the hot path nothing: an in-window reply needs no extra query."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tenants.context import tenant_context
from tulia.conversations.models import Conversation
from tulia.whatsapp.outbound import queue_reply

from .window_support import customer_who_just_wrote

pytestmark = pytest.mark.django_db


def _queries(tenant, conversation_id: int, bodies: list[str]) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        queue_reply(tenant.id, conversation_id, bodies, "req")
    return [q["sql"] for q in captured.captured_queries]


def test_in_window_reply_reads_the_conversation_once_and_writes_once(tenant) -> None:
    customer = customer_who_just_wrote(tenant.id)
    with tenant_context(tenant.id):
        conversation = Conversation.objects.get(customer=customer)
    queries = _queries(tenant, conversation.pk, ["Hello", "Size 42 is in stock"])
    reads = [q for q in queries if q.startswith("SELECT") and "set_config" not in q]
    writes = [q for q in queries if q.startswith("INSERT")]
    assert len(reads) == 1, reads
    assert len(writes) == 1, writes
