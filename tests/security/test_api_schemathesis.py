"""Schemathesis over the tenant API's own OpenAPI schema, through the real WSGI app.

Every operation gets generated requests with tenant A's key, against real Postgres
with a stranger tenant full of marked rows. Checked per response: no 5xx, status code,
content type and body match the schema, and nothing of the stranger appears.

Examples are capped per operation (POSITIVE_EXAMPLES, NEGATIVE_EXAMPLES) so the whole
module stays near a minute; path ids are drawn half the time from real rows of both
tenants, so lookups of the stranger's ids are exercised, not only random 404s.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core import signals as signal
from django.core.handlers.wsgi import WSGIHandler
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from werkzeug.test import Client as WsgiClient

from tenants.accessors import active_senders
from tenants.models import Tenant
from tests.commerce import factories
from tests.handoff.conftest import make_agent, make_conversation
from tests.security.conftest import MARKER, StrangerData, leaked
from tulia.api.keys import issue_key
from tulia.commerce.checkout import LineRequest, create_order
from tulia.conversations.services import open_conversation
from tulia.handoff.escalation import HandoffRequest, escalate
from tulia.handoff.models import Category

pytestmark = pytest.mark.django_db

POSITIVE_EXAMPLES = 12
NEGATIVE_EXAMPLES = 6
STAFF_API = "/api/v1/handoff/"
AGENT_PASSWORD = "x-Pass-1234"  # what tests/handoff/conftest.py make_agent sets
# Content types are not checked on negative cases: an id that does not match the URL
# pattern gets Django's HTML 404 (a JSON handler404 for /api/ is reported to the lead).
NEGATIVE_CHECKS = [not_a_server_error, response_schema_conformance]
CONFORMANCE = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _seed_mine(tenant: Tenant) -> list[int]:
    item = factories.item(tenant, "Air Runner Black", 4500)
    order = create_order(tenant.id, factories.customer(tenant).pk, [LineRequest(item.pk, 1)])
    offer = factories.offer(tenant, "SAVE10")
    return [item.pk, order.pk, offer.pk]


def _waiting_conversations(tenant: Tenant, data: StrangerData) -> list[int]:
    """A customer waiting for a person in each shop (the stranger's is its marked one)."""
    mine = make_conversation(tenant)
    sender = active_senders(data.tenant.id)[0]
    theirs = open_conversation(data.tenant.id, data.customer.pk, sender.pk)
    for shop, conversation in ((tenant, mine), (data.tenant, theirs)):
        escalate(shop.id, conversation.pk, HandoffRequest("wants a person", Category.KEYWORD))
    return [mine.pk, theirs.pk]


@pytest.fixture
def connection_kept() -> Iterator[None]:
    """The WSGI handler closes the connection per request, which would end the test's
    transaction; Django's own test client unhooks the same signal handlers."""
    signal.request_started.disconnect(close_old_connections)
    signal.request_finished.disconnect(close_old_connections)
    yield
    signal.request_started.connect(close_old_connections)
    signal.request_finished.connect(close_old_connections)


def _load_schema() -> Any:
    return schemathesis.openapi.from_wsgi("/api/v1/schema/?format=json", WSGIHandler())


def _cases(operation: Any, mode: GenerationMode, auth: dict[str, str], ids: list[int]) -> Any:
    generated = operation.as_strategy(generation_mode=mode, headers=auth)
    names = [p.name for p in operation.path_parameters]
    if not names:
        return generated
    # Real ids of both tenants: the stranger's must answer exactly like absent ones.
    known = st.sampled_from(ids).flatmap(
        lambda pk: operation.as_strategy(
            generation_mode=mode, headers=auth, path_parameters=dict.fromkeys(names, pk)
        )
    )
    return st.one_of(generated, known)


def _fuzz(operation: Any, mode: GenerationMode, checks: list[Any], **ctx: Any) -> None:
    data: StrangerData = ctx["data"]
    examples = POSITIVE_EXAMPLES if mode is GenerationMode.POSITIVE else NEGATIVE_EXAMPLES

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=_cases(operation, mode, ctx["auth"], ctx["ids"]))
    def run(case: Any) -> None:
        response = case.call_and_validate(checks=checks)
        assert not leaked(response.text, data), f"{case.method} {case.formatted_path}"

    try:
        run()
    except Unsatisfiable:
        # Nothing to break: an operation without parameters or body has no negative case.
        if mode is GenerationMode.POSITIVE:
            raise


def _operations(prefix: str = "") -> list[Any]:
    found = [result.ok() for result in _load_schema().get_all_operations()]
    return [op for op in found if op.path.startswith(prefix)]


def test_every_operation_conforms_and_never_leaks_the_stranger(
    tenant: Tenant, stranger_data: StrangerData, connection_kept: None
) -> None:
    ids = [
        *_seed_mine(tenant),
        stranger_data.item.pk,
        stranger_data.order.pk,
        stranger_data.offer.pk,
        stranger_data.document_id,
        *_waiting_conversations(tenant, stranger_data),
    ]
    # The key reaches everything, conversations included, and speaks as a real agent.
    agent = make_agent(tenant, "fuzzer")
    key = issue_key(tenant.id, "fuzz", scopes=["conversations"], agent_id=agent.pk)
    auth = {"Authorization": f"Bearer {key.plaintext}"}
    operations = _operations()
    assert len(operations) >= 20, "the schema lost its operations"
    for operation in operations:
        # The desk API authenticates staff, not keys, and does not document its 401/403
        # (reported): with a key it must still refuse cleanly and leak nothing.
        strict = not operation.path.startswith(STAFF_API)
        checks = CONFORMANCE if strict else [not_a_server_error]
        _fuzz(operation, GenerationMode.POSITIVE, checks, auth=auth, data=stranger_data, ids=ids)
        # Negative cases are refused with codes the schema need not list (415, 405...),
        # but a documented answer must still have its documented shape.
        refusals = NEGATIVE_CHECKS if strict else [not_a_server_error]
        _fuzz(operation, GenerationMode.NEGATIVE, refusals, auth=auth, data=stranger_data, ids=ids)


def _ticket(tenant: Tenant, reason: str) -> int:
    conversation = make_conversation(tenant)
    found = escalate(tenant.id, conversation.pk, HandoffRequest(reason, Category.KEYWORD))
    assert found.ticket_id is not None
    return found.ticket_id


def test_the_desk_api_as_my_staff_never_shows_the_strangers_tickets(
    tenant: Tenant, stranger_data: StrangerData, connection_kept: None
) -> None:
    make_agent(tenant, "alice")
    make_agent(stranger_data.tenant, "bob")
    ids = [_ticket(tenant, "wants a person"), _ticket(stranger_data.tenant, f"{MARKER} person")]
    basic = base64.b64encode(f"alice-{tenant.slug}:{AGENT_PASSWORD}".encode()).decode()
    auth = {"Authorization": f"Basic {basic}"}
    # Through the bare WSGI app like schemathesis: Django's test client would re-hook
    # the connection-closing signal handlers on its way out.
    queue = WsgiClient(WSGIHandler()).get("/api/v1/handoff/tickets/", headers=auth)
    assert [row["id"] for row in queue.json] == ids[:1], "alice must see her own queue"
    # Its 404/409/422 answers are partly undocumented (reported): bodies and content
    # types are checked wherever a code is documented, status codes are not.
    checks = [not_a_server_error, content_type_conformance, response_schema_conformance]
    operations = _operations(STAFF_API)
    assert len(operations) >= 4, "the desk API left the schema"
    for operation in operations:
        _fuzz(operation, GenerationMode.POSITIVE, checks, auth=auth, data=stranger_data, ids=ids)
        _fuzz(
            operation,
            GenerationMode.NEGATIVE,
            [not_a_server_error],
            auth=auth,
            data=stranger_data,
            ids=ids,
        )
