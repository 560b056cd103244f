"""Return/refund eligibility decision table, at the boundaries."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tulia.returns.eligibility import (
    Action,
    CategoryRule,
    Item,
    Policy,
    ReasonCode,
    Request,
    check_eligibility,
)

DELIVERED = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)  # 12:00 in Nairobi
POLICY = Policy(
    version="v7",
    return_days=30,
    refund_days=14,
    categories={"electronics": CategoryRule(return_days=7), "food": CategoryRule(returnable=False)},
)


def _request(
    day: int = 5,
    *,
    action: Action = Action.RETURN,
    items: tuple[Item, ...] = (Item("SHOE-1", "shoes"),),
    reason: str = "too small",
    **extra: object,
) -> Request:
    fields: dict[str, object] = {"delivered_at": DELIVERED, "fraud_flag": False}
    fields.update(extra)
    return Request(
        action=action,
        items=items,
        reason_text=reason,
        now=DELIVERED + timedelta(days=day),
        **fields,  # type: ignore[arg-type]
    )


def test_day_30_is_inside_the_return_window() -> None:
    verdict = check_eligibility(POLICY, _request(30))
    assert (verdict.reason, verdict.eligible, verdict.days_since_delivery) == (
        ReasonCode.APPROVED,
        True,
        30,
    )


def test_day_31_is_expired() -> None:
    verdict = check_eligibility(POLICY, _request(31))
    assert (verdict.reason, verdict.eligible) == (ReasonCode.TIME_EXPIRED, False)


def test_refund_uses_the_refund_window() -> None:
    assert check_eligibility(POLICY, _request(14, action=Action.REFUND)).eligible
    assert check_eligibility(POLICY, _request(15, action=Action.REFUND)).reason == (
        ReasonCode.TIME_EXPIRED
    )


def test_category_override_shortens_the_window() -> None:
    phone = (Item("PHONE-1", "electronics"),)
    assert check_eligibility(POLICY, _request(7, items=phone)).eligible
    verdict = check_eligibility(POLICY, _request(8, items=phone))
    assert (verdict.reason, verdict.window_days) == (ReasonCode.TIME_EXPIRED, 7)


def test_days_are_counted_in_the_tenant_timezone() -> None:
    # 22:30 UTC on day 30 is already day 31 in Nairobi (UTC+3).
    late = _request(30)
    late = Request(**{**late.__dict__, "now": late.now.replace(hour=22, minute=30)})
    assert check_eligibility(POLICY, late).reason == ReasonCode.TIME_EXPIRED


@pytest.mark.parametrize(
    "item",
    [
        Item("SALE-1", "shoes", final_sale=True),
        Item("GIFT-1", "shoes", returnable=False),
        Item("MILK-1", "food"),
    ],
    ids=["final_sale", "non_returnable_item", "non_returnable_category"],
)
def test_excluded_items_are_refused(item: Item) -> None:
    verdict = check_eligibility(POLICY, _request(items=(Item("SHOE-1", "shoes"), item)))
    assert (verdict.reason, verdict.eligible, verdict.manual_review) == (
        ReasonCode.ITEM_EXCLUDED,
        False,
        False,
    )


@pytest.mark.parametrize(
    "reason",
    ["It arrived DAMAGED", "the screen is cracked.", "Viatu vimeraruka, ni mbovu", "imevunjika!"],
)
def test_damage_words_in_english_and_swahili_go_to_manual_review(reason: str) -> None:
    verdict = check_eligibility(POLICY, _request(reason=reason))
    assert (verdict.reason, verdict.eligible, verdict.manual_review) == (
        ReasonCode.DAMAGED_MANUAL,
        False,
        True,
    )


def test_fraud_flag_goes_to_manual_review() -> None:
    assert check_eligibility(POLICY, _request(fraud_flag=True)).reason == ReasonCode.RISK_MANUAL


def test_frequency_threshold_is_inclusive() -> None:
    assert check_eligibility(POLICY, _request(returns_last_30d=2)).eligible
    verdict = check_eligibility(POLICY, _request(returns_last_30d=3))
    assert (verdict.reason, verdict.manual_review) == (ReasonCode.RISK_MANUAL, True)


def test_not_delivered_is_refused_with_the_reason() -> None:
    verdict = check_eligibility(POLICY, _request(delivered_at=None))
    assert (verdict.reason, verdict.days_since_delivery) == (ReasonCode.NOT_DELIVERED, None)


def test_already_returned_item_is_refused() -> None:
    items = (Item("SHOE-1", "shoes", already_returned=True),)
    assert check_eligibility(POLICY, _request(items=items)).reason == ReasonCode.ALREADY_RETURNED


def test_no_items_or_delivery_in_the_future_is_a_data_error() -> None:
    assert check_eligibility(POLICY, _request(items=())).reason == ReasonCode.DATA_ERROR
    assert check_eligibility(POLICY, _request(-1)).reason == ReasonCode.DATA_ERROR


def test_verdict_carries_policy_version_and_skus() -> None:
    verdict = check_eligibility(POLICY, _request()).as_dict()
    assert verdict["policy_version"] == "v7"
    assert verdict["skus"] == ["SHOE-1"]
