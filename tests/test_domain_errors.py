"""One error shape: every domain error reaches a tool caller as the same ToolError, and
a customer reads its facts in their own language, never its (English) message."""

from __future__ import annotations

import pytest

from journeys.flows.common import refusal
from payments.errors import NotConfigured, ProviderError
from payments.reconcile import ReconcileError
from tenants.errors import NotFound
from tools.contract import ToolFailure
from tools.errors import error_for
from tulia.commerce.errors import CouponRejected, OutOfStock
from tulia.errors import DomainError
from tulia.handoff.errors import IllegalTransition

ERRORS = [
    OutOfStock("only 2 of Air Max in stock", item="Air Max", available=2),
    CouponRejected("coupon 'SAVE10': fully_used", reason="fully_used"),
    NotFound("item 5 not found"),
    IllegalTransition("the conversation is closed"),
    ToolFailure("unavailable", "provider down", retryable=True),
    ProviderError("provider_unavailable", "daraja answered 503", retryable=True),
    NotConfigured("no M-Pesa account for this shop"),
    ReconcileError("the order is already paid"),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: e.code)
def test_every_domain_error_maps_to_the_same_tool_error_shape(error: DomainError) -> None:
    mapped = error_for("some_tool", error)
    assert (mapped.code, mapped.message) == (error.code, error.message)
    assert mapped.retryable is error.retryable
    assert mapped.facts == error.facts


def test_out_of_stock_reads_swahili_with_the_facts_and_no_english() -> None:
    mapped = error_for("order_create", ERRORS[0])
    said = refusal(mapped.code, mapped.facts, "sw")
    assert "Air Max" in said
    assert "2" in said
    assert "in stock" not in said


def test_a_coupon_reason_is_worded_per_language() -> None:
    mapped = error_for("order_apply_coupon", ERRORS[1])
    assert refusal(mapped.code, mapped.facts, "en") == "offer has been fully used"
    assert refusal(mapped.code, mapped.facts, "sheng") != refusal(mapped.code, mapped.facts, "en")


def test_a_code_the_catalog_does_not_word_reads_as_a_plain_refusal() -> None:
    assert refusal("payment_conflict", {}, "sw") == refusal("other", {}, "sw")
