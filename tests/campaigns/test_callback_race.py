"""A status callback racing the recording of its own sid, every interleaving.

A campaign records Twilio's answers in groups, so Twilio's callback for a message can
arrive while the batch is recording that very sid. The callback (status.py's
`apply_status_steps`: try the row, look for it, hold in Redis, try again) and the
recorder (batch.py: commit the sid, then `release_held`) are each run one step at a
time in one thread, and Hypothesis chooses where the recorder's two steps fall among
the callback's. Whatever the order, the callback's status must end on the row.

Covered: the order of the steps as the code takes them, each step committed before the
next. Not covered: two statements overlapping inside PostgreSQL (each step here is one
committed statement or one Redis pipeline, so they cannot overlap in ways this misses
short of a second connection), nor the webhook's HTTP layer (test_during_a_batch.py).
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenants.context import tenant_context
from tests.gateway.conftest import event
from tests.hypothesis_profiles import examples
from tulia.campaigns import batch, control, sending
from tulia.campaigns.models import CampaignRecipient
from tulia.conversations.models import OutboundMessage
from tulia.redis_client import get_redis
from tulia.whatsapp.schemas import parse_status
from tulia.whatsapp.status import HOLD_SECONDS, _held_key, apply_status_steps, release_held

from .conftest import add_customers

pytestmark = pytest.mark.django_db
CALLBACK_STEPS = 5  # before "apply", "look", "hold", "apply again", and after the end


def _claimed_one(tenant: Any, make_campaign: Any) -> batch.Claimed:
    add_customers(tenant, 1)
    campaign = make_campaign()
    control.schedule(tenant.id, campaign.pk)
    assert control.start_due(tenant.id, campaign.pk)
    sending.build_audience(tenant.id, campaign)
    with ExitStack() as stack:
        claim = batch._claim(tenant.id, campaign, 1, stack, batch.BatchOutcome())
        assert claim is not None
    (item,) = claim.items
    return item


@settings(
    max_examples=examples(40),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    status=st.sampled_from(["sent", "delivered", "read", "failed"]),
    commit_at=st.integers(min_value=0, max_value=CALLBACK_STEPS - 1),
    release_after=st.integers(min_value=0, max_value=CALLBACK_STEPS - 1),
)
def test_the_callback_lands_whichever_side_of_the_recording_it_falls(
    tenant: Any, make_campaign: Any, status: str, commit_at: int, release_after: int
) -> None:
    release_at = min(CALLBACK_STEPS - 1, commit_at + release_after)  # never before the commit
    with tenant_context(tenant.id):
        OutboundMessage.objects.all().delete()
        CampaignRecipient.objects.all().delete()
    item = _claimed_one(tenant, make_campaign)
    sid = f"SM{item.outbound_id:032x}"
    codes = {"ErrorCode": "30008"} if status == "failed" else {}  # not a template refusal
    form = parse_status(event(f"status_{status}", MessageSid=sid, SmsSid=sid, **codes))
    answer = batch.Answer(item, OutboundMessage.Status.QUEUED, sid=sid, at=timezone.now())
    recorder = {
        commit_at: lambda: batch.write_answers(tenant.id, "twilio", [answer], batch.BatchOutcome()),
    }
    steps = apply_status_steps(tenant.id, form)
    for position in range(CALLBACK_STEPS):
        if position in recorder:
            recorder.pop(position)()
        if position == release_at:
            release_held(tenant.id, [sid])
        next(steps, None)
    with tenant_context(tenant.id):
        row = OutboundMessage.objects.get(pk=item.outbound_id)
    assert (row.twilio_sid, row.status) == (sid, status)
    # A hold the callback applied itself is left to expire (deleting it could take
    # another callback's hold with it): it must not outlive HOLD_SECONDS.
    assert get_redis().ttl(_held_key(tenant.id, sid)) <= HOLD_SECONDS
