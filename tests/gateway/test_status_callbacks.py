"""Status callbacks, one Twilio event fixture per status, out-of-order tolerant."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from tenants.context import tenant_context
from tests.hypothesis_profiles import examples
from tulia.conversations.models import OutboundMessage
from tulia.whatsapp.outbound import send_to_customer
from tulia.whatsapp.schemas import parse_status
from tulia.whatsapp.status import RANK, apply_status

from .conftest import TOKEN_A, TOKEN_B, event
from .window_support import customer_who_just_wrote

pytestmark = pytest.mark.django_db
Status = OutboundMessage.Status
OUR_SID = "SM" + "9" * 32


@pytest.fixture
def sent_message(tenant) -> OutboundMessage:
    customer = customer_who_just_wrote(tenant.id)
    (message_id,) = send_to_customer(tenant.id, customer.pk, ["Your order is paid"], "req")
    with tenant_context(tenant.id):
        OutboundMessage.objects.filter(pk=message_id).update(
            twilio_sid=OUR_SID, status=Status.QUEUED
        )
    return _reload(tenant.id)


def _reload(tenant_id) -> OutboundMessage:
    with tenant_context(tenant_id):
        return OutboundMessage.objects.get(twilio_sid=OUR_SID)


def _callback(post_signed, name: str, token: str = TOKEN_A, **overrides) -> int:
    return post_signed("status", event(name, **overrides), token=token).status_code


def test_status_sent_moves_queued_to_sent(post_signed, tenant, sent_message) -> None:
    assert _callback(post_signed, "status_sent") == 204
    assert _reload(tenant.id).status == Status.SENT


def test_status_delivered_is_recorded(post_signed, tenant, sent_message) -> None:
    _callback(post_signed, "status_delivered")
    assert _reload(tenant.id).status == Status.DELIVERED


def test_status_read_is_recorded(post_signed, tenant, sent_message) -> None:
    _callback(post_signed, "status_read")
    assert _reload(tenant.id).status == Status.READ


def test_status_failed_records_the_twilio_error_code(post_signed, tenant, sent_message) -> None:
    _callback(post_signed, "status_failed")
    message = _reload(tenant.id)
    # 63016 (outside the window) ends like the gate's own refusal: not sent, with why.
    assert (message.status, message.error_code) == (Status.NOT_SENT, 63016)
    assert "window" in message.error_message


def test_status_failed_for_another_reason_stays_failed(post_signed, tenant, sent_message):
    _callback(post_signed, "status_failed", ErrorCode="63003")
    assert (_reload(tenant.id).status, _reload(tenant.id).error_code) == (Status.FAILED, 63003)


def test_status_undelivered_records_the_error_code(post_signed, tenant, sent_message) -> None:
    _callback(post_signed, "status_undelivered")
    message = _reload(tenant.id)
    assert (message.status, message.error_code) == (Status.UNDELIVERED, 63024)


def test_delivered_after_read_does_not_go_back(post_signed, tenant, sent_message) -> None:
    for name in ("status_read", "status_delivered", "status_sent"):
        assert _callback(post_signed, name) == 204
    assert _reload(tenant.id).status == Status.READ


def test_repeated_callback_changes_nothing(post_signed, tenant, sent_message) -> None:
    _callback(post_signed, "status_delivered")
    first = _reload(tenant.id).status_updated_at
    _callback(post_signed, "status_delivered")
    assert _reload(tenant.id).status_updated_at == first


_CALLBACK_STATUSES = ["queued", "sent", "delivered", "read", "failed", "undelivered"]


@given(st.lists(st.sampled_from(_CALLBACK_STATUSES), min_size=1, max_size=6))
@hsettings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
def test_any_arrival_order_ends_at_the_furthest_status(tenant, arrivals) -> None:
    customer = customer_who_just_wrote(tenant.id)
    (message_id,) = send_to_customer(tenant.id, customer.pk, ["hi"], "req")
    sid = f"SM{message_id:032x}"
    with tenant_context(tenant.id):
        OutboundMessage.objects.filter(pk=message_id).update(twilio_sid=sid, status="queued")
    for status in arrivals:
        form = event("status_sent", MessageSid=sid, MessageStatus=status)
        apply_status(tenant.id, parse_status(form))
    with tenant_context(tenant.id):
        final = OutboundMessage.objects.get(pk=message_id).status
    assert RANK[final] == max(RANK[status] for status in arrivals)


def test_ranks_never_let_a_failure_demote_read() -> None:
    assert RANK[Status.READ] > RANK[Status.FAILED] >= RANK[Status.SENT]


def test_status_callback_with_bad_signature_is_403(post_signed, tenant, sent_message) -> None:
    assert _callback(post_signed, "status_read", token="wrong-token") == 403
    assert _reload(tenant.id).status == Status.QUEUED


def test_status_for_unknown_sid_is_acknowledged_and_ignored(post_signed, tenant) -> None:
    assert _callback(post_signed, "status_read", MessageSid="SM" + "0" * 32) == 204


def test_status_from_unknown_number_is_404(post_signed, tenant, sent_message) -> None:
    assert _callback(post_signed, "status_read", From="whatsapp:+254799999999") == 404


def test_stranger_cannot_update_tenant_message(post_signed, tenant, stranger, sent_message):
    # Signed correctly for the stranger's own number, but naming the tenant's message.
    code = _callback(
        post_signed,
        "status_read",
        token=TOKEN_B,
        From="whatsapp:+254711000002",
        AccountSid="AC" + "b" * 32,
    )
    assert code == 204
    assert _reload(tenant.id).status == Status.QUEUED
