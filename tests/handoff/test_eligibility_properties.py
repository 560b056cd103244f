"""Eligibility is a function of its facts: deterministic and monotone in time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hypothesis_profiles import examples
from tulia.returns.eligibility import (
    Action,
    CategoryRule,
    Item,
    Policy,
    ReasonCode,
    Request,
    check_eligibility,
)

DELIVERED = datetime(2026, 1, 10, 8, 0, tzinfo=UTC)

# Mostly-clean facts, so every branch of the decision (expiry included) is reached.
rarely = st.sampled_from([False, False, False, False, True])
usually = st.sampled_from([True, True, True, True, False])
items = st.builds(
    Item,
    sku=st.sampled_from(["A", "B", "C"]),
    category=st.sampled_from(["", "shoes", "electronics", "food"]),
    returnable=usually,
    final_sale=rarely,
    already_returned=rarely,
)
policies = st.builds(
    Policy,
    version=st.just("p"),
    return_days=st.integers(0, 90),
    refund_days=st.integers(0, 90),
    categories=st.dictionaries(
        st.sampled_from(["shoes", "electronics", "food"]),
        st.builds(
            CategoryRule,
            return_days=st.none() | st.integers(0, 60),
            refund_days=st.none() | st.integers(0, 60),
            returnable=usually,
        ),
    ),
    max_returns_30d=st.integers(1, 5),
)


def _request(data: dict, day: int) -> Request:
    return Request(now=DELIVERED + timedelta(days=day, hours=data["hour"]), **data["facts"])


requests = st.fixed_dictionaries(
    {
        "hour": st.integers(0, 23),
        "facts": st.fixed_dictionaries(
            {
                "action": st.sampled_from(list(Action)),
                "items": st.lists(items, min_size=1, max_size=3).map(tuple),
                "reason_text": st.sampled_from(
                    ["too big", "sipendi rangi", "wrong colour", "imevunjika", "Broken!"]
                ),
                "delivered_at": st.sampled_from([DELIVERED, DELIVERED, DELIVERED, None]),
                "fraud_flag": rarely,
                "returns_last_30d": st.sampled_from([0, 0, 1, 2, 3, 5]),
            }
        ),
    }
)


@settings(max_examples=examples(150), deadline=None)
@given(policy=policies, data=requests, day=st.integers(-2, 120))
def test_eligibility_is_deterministic(policy: Policy, data: dict, day: int) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 14: Behavioral Consistency
    (return/refund eligibility determinism).

    The same policy and facts give the same verdict, and only `approved` is eligible.
    """
    first = check_eligibility(policy, _request(data, day))
    assert check_eligibility(policy, _request(data, day)) == first
    assert first.eligible == (first.reason is ReasonCode.APPROVED)
    assert first.manual_review == (
        first.reason in {ReasonCode.RISK_MANUAL, ReasonCode.DAMAGED_MANUAL}
    )


@settings(max_examples=examples(150), deadline=None)
@given(policy=policies, data=requests)
def test_time_expired_stays_expired_on_every_later_day(policy: Policy, data: dict) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 14: Behavioral Consistency
    (return/refund eligibility is monotone in time).

    Sweeping the request day by day, once the verdict is time_expired it never changes
    back: no later day is approved, sent to review or refused for another reason.
    """
    reasons = [check_eligibility(policy, _request(data, day)).reason for day in range(130)]
    if ReasonCode.TIME_EXPIRED in reasons:
        first = reasons.index(ReasonCode.TIME_EXPIRED)
        assert set(reasons[first:]) == {ReasonCode.TIME_EXPIRED}


def test_the_sweep_does_reach_expiry() -> None:
    """Guards the property above against being vacuous."""
    data = {
        "hour": 0,
        "facts": {
            "action": Action.RETURN,
            "items": (Item("A", "shoes"),),
            "reason_text": "too big",
            "delivered_at": DELIVERED,
            "fraud_flag": False,
            "returns_last_30d": 0,
        },
    }
    policy = Policy(return_days=10)
    assert check_eligibility(policy, _request(data, 10)).reason is ReasonCode.APPROVED
    assert check_eligibility(policy, _request(data, 11)).reason is ReasonCode.TIME_EXPIRED
