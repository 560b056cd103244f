"""Marketing templates follow the consent ledger; STOP is final until a new opt-in.

The property: whatever sequence of consent events and marketing sends happens, no
marketing template is ever queued for a customer whose latest consent event is a
withdrawal. A grant of marketing (or all) as the latest event does let it through.
"""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from tenants.accessors import active_senders, forget_tenant
from tenants.context import tenant_context
from tenants.models import ConsentEvent, Tenant
from tenants.services import record_consent
from tulia.conversations.models import Conversation, OutboundMessage
from tulia.whatsapp import limits
from tulia.whatsapp.models import MessageTemplate, SenderLimit
from tulia.whatsapp.outbound import queue_template

from .window_support import customer_who_just_wrote

pytestmark = pytest.mark.django_db
_phones = itertools.count(1)
SEND = ("send", "")
EVENTS = [(kind, action) for kind in ("marketing", "all", "notifications")
          for action in ("granted", "withdrawn")]  # fmt: skip


@pytest.fixture
def sale(tenant) -> MessageTemplate:
    limit = limits.limit_for(tenant.id, active_senders(tenant.id)[0].pk)
    with tenant_context(tenant.id) as tid:
        SenderLimit.objects.filter(pk=limit.pk).update(tier=SenderLimit.Tier.UNLIMITED)
        return MessageTemplate.objects.create(
            tenant_id=tid, name="sale", language="en", category="marketing",
            body="Hello! {{1}} off this week. Reply STOP to opt out.", examples={"1": "10%"},
            content_sid="HX" + "2" * 32, status=MessageTemplate.Status.APPROVED,
        )  # fmt: skip


def _set_opt_in_rule(tenant: Tenant, required: bool) -> None:
    Tenant.objects.filter(pk=tenant.pk).update(
        compliance={**tenant.compliance, "marketing_requires_opt_in": required}
    )
    forget_tenant(tenant.pk)


def _latest(tenant_id, customer_id) -> ConsentEvent | None:
    with tenant_context(tenant_id):
        return (
            ConsentEvent.objects.filter(customer_id=customer_id)
            .order_by("-created_at", "-id")
            .first()
        )


@given(
    steps=st.lists(st.sampled_from([SEND, *EVENTS]), min_size=1, max_size=8),
    opt_in_required=st.booleans(),
    window_open=st.booleans(),
)
@hsettings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_no_marketing_after_a_withdrawal(tenant, sale, steps, opt_in_required, window_open) -> None:
    _set_opt_in_rule(tenant, opt_in_required)
    customer = customer_who_just_wrote(tenant.id, f"+25479{next(_phones):07d}")
    with tenant_context(tenant.id):
        conversation = Conversation.objects.get(customer=customer)
        if not window_open:
            Conversation.objects.filter(pk=conversation.pk).update(
                last_inbound_at=timezone.now() - timedelta(hours=25)
            )
    for kind, action in steps:
        if kind != "send":
            record_consent(tenant.id, customer.pk, kind=kind, action=action, source="whatsapp")
            continue
        (row_id,) = queue_template(tenant.id, conversation.pk, sale.pk, {"1": "10%"}, "m")
        with tenant_context(tenant.id):
            status = OutboundMessage.objects.get(pk=row_id).status
        latest = _latest(tenant.id, customer.pk)
        if latest is not None and latest.action == "withdrawn":
            assert status == OutboundMessage.Status.NOT_SENT
        if latest is not None and latest.action == "granted" and latest.kind != "notifications":
            assert status == OutboundMessage.Status.PENDING


def test_stop_then_send_is_recorded_with_the_reason(tenant, sale) -> None:
    customer = customer_who_just_wrote(tenant.id, "+254798000001")
    record_consent(tenant.id, customer.pk, kind="marketing", action="granted", source="whatsapp")
    record_consent(tenant.id, customer.pk, kind="all", action="withdrawn", source="whatsapp",
                   evidence="STOP")  # fmt: skip
    with tenant_context(tenant.id):
        conversation = Conversation.objects.get(customer=customer)
    (row_id,) = queue_template(tenant.id, conversation.pk, sale.pk, {"1": "10%"}, "m")
    with tenant_context(tenant.id):
        row = OutboundMessage.objects.get(pk=row_id)
    assert row.status == OutboundMessage.Status.NOT_SENT
    assert "latest consent event is a withdrawal" in row.error_message


def test_marketing_without_any_consent_needs_the_shop_not_to_require_opt_in(tenant, sale) -> None:
    customer = customer_who_just_wrote(tenant.id, "+254798000002")
    with tenant_context(tenant.id):
        conversation = Conversation.objects.get(customer=customer)
    (row_id,) = queue_template(tenant.id, conversation.pk, sale.pk, {"1": "10%"}, "m")
    with tenant_context(tenant.id):
        assert OutboundMessage.objects.get(pk=row_id).status == OutboundMessage.Status.NOT_SENT
    _set_opt_in_rule(tenant, required=False)
    (row_id,) = queue_template(tenant.id, conversation.pk, sale.pk, {"1": "10%"}, "m")
    with tenant_context(tenant.id):
        assert OutboundMessage.objects.get(pk=row_id).status == OutboundMessage.Status.PENDING


def test_stranger_cannot_send_the_shops_template(tenant, stranger, sale) -> None:
    from tenants.errors import NotFound

    customer = customer_who_just_wrote(tenant.id, "+254798000003")
    with tenant_context(tenant.id):
        conversation = Conversation.objects.get(customer=customer)
    with pytest.raises(NotFound):
        queue_template(stranger.id, conversation.pk, sale.pk, {"1": "10%"}, "m")
    with tenant_context(tenant.id):
        assert not OutboundMessage.objects.exists()
