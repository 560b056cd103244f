"""An opt-out recorded in the instant before a send, after its recipient was claimed,
means that send does not happen, whichever send of the batch it falls before.

A batch judges consent when it claims its recipients and then calls Twilio one by one;
the last step before each call is the rate grant, with the read of the shop's opt-out
counter (in the grant's own Redis call when the rate is exact, a GET of its own when
slots were granted ahead). Here the withdrawal is recorded as that grant is asked for:
after the claim committed, before that send's check, as late as it can come. Hypothesis
picks who withdraws, before which send, and which of the two rate paths is taken.

Covered: withdrawals through the consent ledger's own entry point (`record_consent`,
which a STOP on the webhook also reaches), at every send position of a batch. Not
covered: a withdrawal committed after the counter was read and before Twilio answers;
that message was already on its way, as it would be with any check.
"""

from __future__ import annotations

import itertools
from typing import Any
from uuid import UUID

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenants.context import tenant_context
from tenants.services import record_consent
from tests.hypothesis_profiles import examples
from tulia.campaigns import batch, control, optouts, sending
from tulia.campaigns.models import CampaignRecipient
from tulia.campaigns.rate import EXACT_UP_TO, RateGate
from tulia.conversations.models import OutboundMessage
from tulia.whatsapp.backends.twilio_rest import TwilioBackend

from .conftest import add_customers

pytestmark = pytest.mark.django_db
BATCH = 5
_numbers = itertools.count(100)


class WithdrawsAsTheGrantIsAsked(RateGate):
    """Records the given customers' withdrawals as the n-th send's grant is asked for."""

    def __init__(self, tenant_id: UUID, sender_id: int, per_second: int,
                 withdrawals: dict[int, list[int]]) -> None:  # fmt: skip
        super().__init__(tenant_id, sender_id, per_second, watch=optouts.key(tenant_id))
        self.tenant_id, self.withdrawals, self.asked = tenant_id, withdrawals, 0

    def take(self, wanted: int = 1) -> int:
        for customer_id in self.withdrawals.get(self.asked, []):
            record_consent(
                self.tenant_id, customer_id, kind="all", action="withdrawn", source="whatsapp"
            )
        self.asked += 1
        return super().take(wanted)


@settings(
    max_examples=examples(30),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    # customer position in the batch → before which send its withdrawal is recorded
    withdrawn=st.dictionaries(st.integers(0, BATCH - 1), st.integers(0, BATCH - 1), max_size=BATCH),
    per_second=st.sampled_from([EXACT_UP_TO, 30_000]),  # exact grants, or slots ahead
)
def test_an_optout_just_before_a_send_stops_that_send(
    tenant: Any, twilio: Any, make_campaign: Any, withdrawn: dict[int, int], per_second: int
) -> None:
    number = next(_numbers)  # the examples share the shop: each its own customers
    tag = f"example-{number}"
    customers = add_customers(tenant, BATCH, start=number * BATCH, tags=[tag])
    campaign = make_campaign(audience={"tags": [tag]})
    control.schedule(tenant.id, campaign.pk)
    assert control.start_due(tenant.id, campaign.pk)
    sending.build_audience(tenant.id, campaign)
    withdrawals: dict[int, list[int]] = {}
    for position, before_send in withdrawn.items():
        withdrawals.setdefault(before_send, []).append(customers[position].pk)
    gate = WithdrawsAsTheGrantIsAsked(tenant.id, campaign.sender_id, per_second, withdrawals)

    outcome = batch.send_batch(tenant.id, campaign, gate, TwilioBackend(), size=BATCH)

    # The queue is in recipient order, which is the customers' order here.
    stopped = {p for p, before_send in withdrawn.items() if before_send <= p}
    numbers = {f"whatsapp:{c.phone_e164}": p for p, c in enumerate(customers)}
    reached = {numbers[m.to] for m in twilio.sent if m.to in numbers}
    assert reached == set(range(BATCH)) - stopped
    assert (outcome.sent, outcome.skipped) == (BATCH - len(stopped), len(stopped))
    with tenant_context(tenant.id):
        rows = CampaignRecipient.objects.filter(campaign_id=campaign.pk).select_related("outbound")
        skipped = {r.customer_id for r in rows if r.status == CampaignRecipient.Status.SKIPPED}
        unsent = {
            r.customer_id for r in rows if r.outbound.status == OutboundMessage.Status.NOT_SENT
        }
    assert skipped == unsent == {customers[p].pk for p in stopped}
