"""Return and refund eligibility: a pure, ordered decision over plain facts.

Nothing here reads the database or the clock; the caller gathers the order, the
tenant's policy and `now`, so the same facts always give the same verdict and the
decision table can be tested exhaustively. The bot reports the verdict and opens a
ticket; only a person grants money back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from zoneinfo import ZoneInfo

from tulia import words
from tulia.normalise import find_phrase

DEFAULT_DAMAGE_WORDS = words.phrases("damage")  # when the shop has not set its own


class Action(StrEnum):
    RETURN = "return"
    REFUND = "refund"
    EXCHANGE = "exchange"  # the same item in another size or colour


class ReasonCode(StrEnum):
    APPROVED = "approved"
    TIME_EXPIRED = "time_expired"
    ITEM_EXCLUDED = "item_excluded"
    NOT_DELIVERED = "not_delivered"
    ALREADY_RETURNED = "already_returned"
    RISK_MANUAL = "risk_manual"
    DAMAGED_MANUAL = "damaged_manual"
    DATA_ERROR = "data_error"


MANUAL_CODES = frozenset({ReasonCode.RISK_MANUAL, ReasonCode.DAMAGED_MANUAL})


@dataclass(frozen=True)
class CategoryRule:
    """A category's own windows; None keeps the tenant-wide window."""

    return_days: int | None = None
    refund_days: int | None = None
    returnable: bool = True


@dataclass(frozen=True)
class Policy:
    version: str = "1"
    return_days: int = 30
    refund_days: int = 14
    categories: dict[str, CategoryRule] = field(default_factory=dict)
    damage_words: tuple[str, ...] = DEFAULT_DAMAGE_WORDS
    max_returns_30d: int = 3
    timezone: str = "Africa/Nairobi"
    exchange_days: int | None = None  # None: the return window


@dataclass(frozen=True)
class Item:
    sku: str
    category: str = ""
    returnable: bool = True
    final_sale: bool = False
    already_returned: bool = False


@dataclass(frozen=True)
class Request:
    action: Action
    items: Sequence[Item]
    reason_text: str
    delivered_at: datetime | None
    now: datetime
    fraud_flag: bool = False
    returns_last_30d: int = 0


@dataclass(frozen=True)
class Verdict:
    eligible: bool
    manual_review: bool
    reason: ReasonCode
    days_since_delivery: int | None
    window_days: int | None
    policy_version: str
    skus: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {
            "eligible": self.eligible,
            "manual_review": self.manual_review,
            "reason": self.reason.value,
            "days_since_delivery": self.days_since_delivery,
            "window_days": self.window_days,
            "policy_version": self.policy_version,
            "skus": list(self.skus),
        }


def days_since(delivered_at: datetime, now: datetime, timezone: str) -> int:
    """Whole calendar days in the tenant's timezone: delivered today is day 0."""
    zone = ZoneInfo(timezone)
    return (now.astimezone(zone).date() - delivered_at.astimezone(zone).date()).days


def window_for(policy: Policy, action: Action, item: Item) -> int:
    rule = policy.categories.get(item.category, CategoryRule())
    if action is Action.REFUND:
        return policy.refund_days if rule.refund_days is None else rule.refund_days
    if action is Action.EXCHANGE and policy.exchange_days is not None:
        return policy.exchange_days
    return policy.return_days if rule.return_days is None else rule.return_days


def _excluded(policy: Policy, item: Item) -> bool:
    rule = policy.categories.get(item.category, CategoryRule())
    return item.final_sale or not item.returnable or not rule.returnable


def _early_refusal(request: Request) -> ReasonCode | None:
    """Refusals that do not depend on the policy: bad data, not delivered, returned."""
    if not request.items:
        return ReasonCode.DATA_ERROR
    if request.delivered_at is None:
        return ReasonCode.NOT_DELIVERED
    if request.delivered_at > request.now:
        return ReasonCode.DATA_ERROR
    if any(item.already_returned for item in request.items):
        return ReasonCode.ALREADY_RETURNED
    return None


def _review_or_exclusion(policy: Policy, request: Request) -> ReasonCode | None:
    if find_phrase(request.reason_text, policy.damage_words):
        return ReasonCode.DAMAGED_MANUAL
    if request.fraud_flag or request.returns_last_30d >= policy.max_returns_30d:
        return ReasonCode.RISK_MANUAL
    if any(_excluded(policy, item) for item in request.items):
        return ReasonCode.ITEM_EXCLUDED
    return None


def check_eligibility(policy: Policy, request: Request) -> Verdict:
    """The verdict for a return/refund request; same inputs, same verdict."""
    skus = tuple(item.sku for item in request.items)
    days = None
    if request.delivered_at is not None and request.delivered_at <= request.now:
        days = days_since(request.delivered_at, request.now, policy.timezone)
    window = min((window_for(policy, request.action, i) for i in request.items), default=None)
    code = _early_refusal(request) or _review_or_exclusion(policy, request)
    if code is None:
        expired = days is not None and window is not None and days > window
        code = ReasonCode.TIME_EXPIRED if expired else ReasonCode.APPROVED
    return Verdict(
        eligible=code is ReasonCode.APPROVED,
        manual_review=code in MANUAL_CODES,
        reason=code,
        days_since_delivery=days,
        window_days=window,
        policy_version=policy.version,
        skus=skus,
    )
