"""Every documented Daraja and PesaPal payload parses into its typed schema (or is refused)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from pydantic import ValidationError

from payments.models import PaymentStatus
from payments.mpesa import schemas as mpesa
from payments.outcomes import pesapal_outcome, stk_outcome
from payments.pesapal import schemas as pesapal
from payments.pesapal.handlers import parse_ipn
from tests.payments.conftest import mpesa_fixture, pesapal_fixture


def stk(name: str) -> mpesa.StkCallback:
    return mpesa.StkCallbackEnvelope.model_validate_json(mpesa_fixture(name)).callback


def test_oauth_token_expiry_arriving_as_a_string_is_an_int() -> None:
    token = mpesa.TokenResponse.model_validate_json(mpesa_fixture("oauth_token.json"))
    assert token.expires_in == 3599


def test_stk_push_accepted_and_error_shapes() -> None:
    accepted = mpesa.StkPushAccepted.model_validate_json(mpesa_fixture("stk_push_accepted.json"))
    assert accepted.checkout_request_id.startswith("ws_CO_")
    error = mpesa.ApiError.model_validate_json(mpesa_fixture("stk_push_error_invalid_phone.json"))
    assert error.error_code == "400.002.02"


@pytest.mark.parametrize(
    "name",
    [
        "stk_callback_success.json",
        "stk_callback_success_valueless_balance.json",
        "stk_callback_success_balance_string.json",
    ],
)
def test_success_callbacks_read_items_by_name(name: str) -> None:
    callback = stk(name)
    assert callback.result_code == 0
    assert callback.amount == Decimal("1500")
    assert callback.receipt == "TKM4QX81ZP"
    assert callback.phone == "254712345678"


@pytest.mark.parametrize(
    ("name", "status", "reason"),
    [
        ("stk_callback_cancelled_1032.json", PaymentStatus.CANCELLED, "cancelled"),
        ("stk_callback_timeout_1037.json", PaymentStatus.TIMEOUT, "timeout"),
        ("stk_callback_smsc_timeout_1036.json", PaymentStatus.TIMEOUT, "timeout"),
        ("stk_callback_insufficient_funds_1.json", PaymentStatus.FAILED, "insufficient_funds"),
        ("stk_callback_wrong_pin_2001.json", PaymentStatus.FAILED, "wrong_pin"),
    ],
)
def test_failure_callbacks_have_no_metadata_and_map_by_code(
    name: str, status: str, reason: str
) -> None:
    callback = stk(name)
    assert callback.metadata is None
    assert callback.amount is None
    outcome = stk_outcome(callback.result_code)
    assert (outcome.status, outcome.reason) == (status, reason)


def test_success_without_metadata_has_no_amount_or_receipt() -> None:
    callback = stk("stk_callback_success_missing_metadata.json")
    assert callback.result_code == 0
    assert (callback.amount, callback.receipt) == (None, "")


def test_malformed_callback_is_refused() -> None:
    with pytest.raises(ValidationError):
        mpesa.StkCallbackEnvelope.model_validate_json(mpesa_fixture("stk_callback_malformed.txt"))


def test_stk_query_codes_are_strings_and_map_like_callbacks() -> None:
    paid = mpesa.StkQueryResponse.model_validate_json(mpesa_fixture("stk_query_success.json"))
    cancelled = mpesa.StkQueryResponse.model_validate_json(
        mpesa_fixture("stk_query_cancelled_1032.json")
    )
    assert stk_outcome(paid.result_code).status == PaymentStatus.PAID
    assert stk_outcome(cancelled.result_code).status == PaymentStatus.CANCELLED
    processing = mpesa.ApiError.model_validate_json(
        mpesa_fixture("stk_query_still_processing.json")
    )
    assert processing.error_code == "500.001.1001"


def test_c2b_register_response_keeps_the_upstream_typo() -> None:
    parsed = mpesa.C2BRegisterResponse.model_validate_json(
        mpesa_fixture("c2b_register_response.json")
    )
    assert parsed.originator_conversation_id == "7619-37765134-1"


@pytest.mark.parametrize(
    "name",
    ["c2b_validation.json", "c2b_confirmation.json", "c2b_confirmation_hashed_msisdn.json"],
)
def test_c2b_payloads_normalise_the_typed_account(name: str) -> None:
    txn = mpesa.C2BTransaction.model_validate_json(mpesa_fixture(name))
    assert txn.account_reference == "KIC-7H2Q"
    assert txn.trans_amount == Decimal("1500.00")


def test_pesapal_token_and_error_bodies() -> None:
    ok = pesapal.TokenResponse.model_validate_json(pesapal_fixture("request_token.json"))
    assert ok.ok
    assert ok.token
    refused = pesapal.TokenResponse.model_validate_json(pesapal_fixture("request_token_error.json"))
    assert not refused.ok
    assert refused.error is not None
    assert refused.error.code == "invalid_consumer_key_or_secret_provided"


def test_pesapal_register_ipn_and_submit_order() -> None:
    ipn = pesapal.RegisterIpnResponse.model_validate_json(pesapal_fixture("register_ipn.json"))
    order = pesapal.SubmitOrderResponse.model_validate_json(pesapal_fixture("submit_order.json"))
    assert ipn.ok
    assert ipn.ipn_id
    assert order.ok
    assert order.redirect_url
    assert order.order_tracking_id


@pytest.mark.parametrize(
    ("name", "status"),
    [
        ("status_pending.json", PaymentStatus.PENDING),
        ("status_completed.json", PaymentStatus.PAID),
        ("status_failed.json", PaymentStatus.FAILED),
        ("status_reversed.json", PaymentStatus.UNKNOWN),
    ],
)
def test_pesapal_status_maps_pending_invalid_to_pending(name: str, status: str) -> None:
    parsed = pesapal.TransactionStatus.model_validate_json(pesapal_fixture(name))
    assert pesapal_outcome(parsed.status_code).status == status


@pytest.mark.parametrize("status_code", [0, None, 7])
def test_an_error_in_the_status_body_leaves_the_card_payment_pending(status_code) -> None:
    """PesaPal reports its own trouble as an error in an HTTP 200 body; that is no verdict
    on the card, so the payment is queried again rather than failed."""
    assert pesapal_outcome(status_code).status == PaymentStatus.PENDING


@pytest.mark.parametrize("name", ["ipn_post.json", "ipn_post_camelcase.json", "ipn_get.txt"])
def test_ipn_in_every_shape_gives_the_tracking_id(name: str) -> None:
    ipn = parse_ipn(pesapal_fixture(name))
    assert ipn.order_tracking_id == "b8f0c6d2-5a1e-4c7b-9d3f-2e6a8c4b1f09"
    assert ipn.acknowledgement(200) == {
        "orderNotificationType": "IPNCHANGE",
        "orderTrackingId": ipn.order_tracking_id,
        "orderMerchantReference": "KIC-7H2Q-1",
        "status": 200,
    }


def test_malformed_ipn_is_refused() -> None:
    with pytest.raises(ValueError, match=r"."):
        parse_ipn(pesapal_fixture("ipn_malformed.txt"))


def test_transaction_status_acknowledgement_carries_the_conversation_id() -> None:
    raw = mpesa_fixture("txn_status_accepted.json")
    accepted = mpesa.TxnStatusAccepted.model_validate_json(raw)
    assert accepted.conversation_id.startswith("AG_")


def txn_result(name: str) -> mpesa.TxnStatusResult:
    return mpesa.TxnStatusEnvelope.model_validate_json(mpesa_fixture(name)).result


def test_completed_transaction_status_gives_receipt_and_amount() -> None:
    result = txn_result("txn_status_result_completed.json")
    assert (result.completed, result.receipt, result.amount) == (True, "TKN2L5Y7QA", Decimal(1500))


@pytest.mark.parametrize(
    ("name", "code"),
    [("txn_status_result_not_found.json", "R000001"), ("txn_status_queue_timeout.json", "1")],
)
def test_failed_or_timed_out_transaction_status_is_not_completed(name: str, code: str) -> None:
    result = txn_result(name)
    assert (result.completed, result.result_code, result.receipt) == (False, code, "")


def test_a_lone_result_parameter_object_is_read_as_a_list() -> None:
    raw = mpesa_fixture("txn_status_result_completed.json")
    data = json.loads(raw)
    data["Result"]["ResultParameters"]["ResultParameter"] = {"Key": "ReceiptNo", "Value": "X1"}
    assert mpesa.TxnStatusEnvelope.model_validate(data).result.receipt == "X1"
