"""One error shape: every domain error reaches a tool caller as the same ToolError and an
API caller as the same refusal, and a customer reads its facts in their own language,
never its (English) message."""

from __future__ import annotations

import pytest

from journeys.flows.common import refusal
from kb.extract import ExtractionError
from payments.errors import NotConfigured, ProviderError
from payments.reconcile import ReconcileError
from payments.statement_csv import StatementError
from tenants.errors import NotFound
from tools.contract import ToolFailure
from tools.errors import error_for
from tulia.api import errors as api_errors
from tulia.campaigns.control import CampaignStateError
from tulia.catalog_sync.errors import SyncError
from tulia.commerce.errors import CouponRejected, OutOfStock
from tulia.commerce.import_rows import FileError
from tulia.errors import DomainError
from tulia.handoff.errors import IllegalTransition, NotYourTicket

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

# Refusals that never reach a tool: shop-side files, campaign steps, store syncs.
SHOP_SIDE = [
    SyncError("store_refused", "401 from the store", retryable=False),
    StatementError("the file is empty"),
    FileError("format must be csv or json"),
    ExtractionError("the file is empty"),
    CampaignStateError("campaign is done; cannot do that now"),
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


@pytest.mark.parametrize("error", ERRORS + SHOP_SIDE, ids=lambda e: e.code)
def test_every_domain_error_maps_to_one_api_refusal(error: DomainError) -> None:
    answer = api_errors.refusal(error)
    if isinstance(error, NotFound):  # absent and another shop's look alike: no message
        assert (answer.status_code, str(answer.detail)) == (404, "Not found.")
        return
    assert answer.status_code == 409
    assert answer.detail == {"code": error.code, "detail": error.message}


def test_a_desk_rule_about_who_may_act_is_a_403() -> None:
    said = "claim this ticket before acting on it"
    answer = api_errors.refusal(NotYourTicket(said))
    assert answer.status_code == 403
    assert answer.detail == {"code": "not_your_ticket", "detail": said}


def test_each_shop_side_refusal_has_its_own_code() -> None:
    codes = [error.code for error in SHOP_SIDE]
    assert "domain_error" not in codes
    assert len(set(codes)) == len(codes)
