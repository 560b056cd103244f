"""Fuzzing the provider webhooks through the real views, parsers and database.

Whatever arrives (junk bytes, wrong types, huge or odd-unicode fields, missing keys,
wrong content types), the answer is a clear 4xx or the provider's documented
acknowledgement, never a 500; the Django test client re-raises any unhandled
exception, so one fails the test too. Valid but unusual payloads are stored.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from twilio.request_validator import RequestValidator

from payments.accounts import configure_mpesa, configure_pesapal
from payments.models import PaymentEvent
from payments.routes import callback_path
from tenants.context import tenant_context
from tenants.models import Tenant
from tests.gateway.conftest import event
from tests.hypothesis_profiles import examples
from tests.payments.conftest import MPESA, PESAPAL, SANDBOX_PASSKEY
from tulia.conversations.models import InboundMessage

pytestmark = pytest.mark.django_db

TOKEN_A = "token-a-123456789"  # tests/conftest.py registers it for the tenant's number
FUZZ = settings(
    max_examples=examples(100),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
FORM = "application/x-www-form-urlencoded"
CONTENT_TYPES = [
    FORM,
    "application/json",
    "multipart/form-data",
    "multipart/form-data; boundary=zz",
    "text/xml",
    "text/plain; charset=utf-16",
    "application/octet-stream",
    "",
]

# --- value strategies ------------------------------------------------------------------

odd_text = st.one_of(
    st.text(max_size=200),
    st.text(st.characters(codec="utf-8"), max_size=50),  # includes NUL and controls
    st.sampled_from(
        ["\x00", "\u202e", "\ufeff", "\u200d" * 20, "niaje 🔥 mzee", "\U0001d518\U0001d52b"]
    ),
    st.integers(2_000, 20_000).map(lambda n: "ж" * n),  # huge, multi-byte
)
json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), odd_text)
json_junk = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(odd_text, inner, max_size=4),
    max_leaves=12,
)


def mutated(template: Any, draw: Any) -> Any:
    """The template with some values replaced by junk and some keys dropped or added."""
    if isinstance(template, dict):
        out = {}
        for key, value in template.items():
            choice = draw(st.integers(0, 9))
            if choice == 0:
                continue  # missing key
            out[key] = draw(json_junk) if choice == 1 else mutated(value, draw)
        if draw(st.booleans()):
            out.update(draw(st.dictionaries(odd_text, json_junk, max_size=3)))
        return out
    if isinstance(template, list):
        return [mutated(value, draw) for value in template]
    return draw(json_junk) if draw(st.integers(0, 5)) == 0 else template


@st.composite
def json_bodies(draw: Any, template: dict[str, Any]) -> bytes:
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(st.binary(max_size=400))
    if kind == 1:
        return json.dumps(draw(json_junk)).encode()
    text = json.dumps(mutated(template, draw), ensure_ascii=draw(st.booleans()))
    return text.encode("utf-8", "surrogatepass")


@st.composite
def twilio_forms(draw: Any, template: dict[str, str]) -> dict[str, str]:
    form = {}
    for key, value in template.items():
        choice = draw(st.integers(0, 11))
        if choice == 0 and key not in ("To", "From", "AccountSid"):
            continue
        form[key] = draw(odd_text) if choice == 1 else value
    if draw(st.booleans()):
        extra = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=20)
        form.update(draw(st.dictionaries(extra, odd_text, max_size=4)))
    return form


# --- Twilio --------------------------------------------------------------------------


def _signed_post(client: Client, name: str, form: dict[str, str], token: str = TOKEN_A) -> Any:
    path = reverse(f"whatsapp:{name}")
    url = f"{django_settings.PUBLIC_BASE_URL}{path}"
    signature = RequestValidator(token).compute_signature(url, form)
    return client.post(
        path, urlencode(form), content_type=FORM, headers={"X-Twilio-Signature": signature}
    )


@pytest.mark.parametrize("fixture", ["inbound_text", "inbound_location", "inbound_image"])
def test_signed_but_malformed_inbound_forms_get_a_clear_answer(
    tenant: Tenant, client: Client, fixture: str
) -> None:
    @FUZZ
    @given(form=twilio_forms(event(fixture)))
    def run(form: dict[str, str]) -> None:
        response = _signed_post(client, "inbound", form)
        assert response.status_code in (200, 400, 403, 404)

    run()


def test_signed_but_malformed_status_callbacks_get_a_clear_answer(
    tenant: Tenant, client: Client
) -> None:
    @FUZZ
    @given(form=twilio_forms(event("status_failed")))
    def run(form: dict[str, str]) -> None:
        response = _signed_post(client, "status", form)
        assert response.status_code in (204, 400, 403, 404)

    run()


@pytest.mark.parametrize("name", ["inbound", "status"])
def test_junk_bytes_in_any_content_type_are_refused(
    tenant: Tenant, client: Client, name: str
) -> None:
    @FUZZ
    @given(
        body=st.binary(max_size=500),
        content_type=st.sampled_from(CONTENT_TYPES),
        signature=st.sampled_from(["", "x", "a" * 28 + "=", "\u00e9"]),
    )
    def run(body: bytes, content_type: str, signature: str) -> None:
        # generic(), not post(): post() re-encodes bytes to a declared charset itself.
        response = client.generic(
            "POST",
            reverse(f"whatsapp:{name}"),
            body,
            content_type=content_type,
            headers={"X-Twilio-Signature": signature},
        )
        assert 400 <= response.status_code < 500

    run()


@pytest.mark.parametrize(
    "field",
    ["Body", "ProfileName", "WaId", "ButtonPayload", "ButtonText", "ListId", "From", "MessageType"],
)
def test_a_nul_character_in_any_inbound_field_is_not_a_500(
    tenant: Tenant, client: Client, field: str
) -> None:
    form = event("inbound_text", MessageSid="SM" + "3" * 32, **{field: "54\x00321"})
    assert _signed_post(client, "inbound", form).status_code in (200, 400)
    media = event("inbound_image", MessageSid="SM" + "4" * 32, MediaContentType0="image/\x00png")
    assert _signed_post(client, "inbound", media).status_code in (200, 400)


unusual_bodies = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cc", "Cs"]), min_size=1, max_size=1500
)


def test_valid_inbound_with_unusual_text_is_stored(tenant: Tenant, client: Client) -> None:
    sids = iter(range(1, 10_000))

    @FUZZ
    @given(body=unusual_bodies, profile=odd_text.filter(lambda s: len(s) < 500))
    def run(body: str, profile: str) -> None:
        sid = f"SM{next(sids):032x}"
        form = event("inbound_text", MessageSid=sid, Body=body, ProfileName=profile)
        response = _signed_post(client, "inbound", form)
        assert response.status_code == 200
        with tenant_context(tenant.id) as tid:
            assert InboundMessage.objects.filter(tenant_id=tid, message_sid=sid).exists()

    run()


# --- Daraja and PesaPal ----------------------------------------------------------------


@pytest.fixture
def paying_tenant(tenant: Tenant) -> Tenant:
    """Accounts that are never called here: the views only parse and store."""
    configure_mpesa(
        tenant.id,
        base_url="http://127.0.0.1:9",
        shortcode="174379",
        consumer_key="ck",
        consumer_secret="cs",
        passkey=SANDBOX_PASSKEY,
        source_ip_check="off",
    )
    configure_pesapal(
        tenant.id, base_url="http://127.0.0.1:9", consumer_key="pk", consumer_secret="ps"
    )
    return tenant


def _events(tenant: Tenant) -> int:
    with tenant_context(tenant.id) as tid:
        return PaymentEvent.objects.filter(tenant_id=tid).count()


def _template(path: Any) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text())
    return loaded


Acknowledged = Callable[[Any], bool]


def _daraja_stk(response: Any) -> bool:
    answers = {200: 0, 400: 1}
    return answers.get(response.status_code) == response.json()["ResultCode"]


def _c2b_validation(response: Any) -> bool:
    return response.status_code == 200 and response.json()["ResultCode"] in (
        0,
        "0",
        "C2B00016",
        "C2B00012",
        "C2B00013",
    )


def _c2b_confirmation(response: Any) -> bool:
    return response.status_code == 200 and response.json()["ResultCode"] == 0


def _pesapal_ipn(response: Any) -> bool:
    return response.status_code == 200 and response.json()["status"] in (200, 500)


CALLBACKS: list[tuple[str, Any, Acknowledged]] = [
    ("stk_callback", MPESA / "stk_callback_success.json", _daraja_stk),
    ("c2b_validation", MPESA / "c2b_validation.json", _c2b_validation),
    ("c2b_confirmation", MPESA / "c2b_confirmation.json", _c2b_confirmation),
    ("pesapal_ipn", PESAPAL / "ipn_post.json", _pesapal_ipn),
]


@pytest.mark.parametrize(("name", "fixture", "acknowledged"), CALLBACKS)
def test_payment_callbacks_acknowledge_and_keep_whatever_arrives(
    paying_tenant: Tenant, client: Client, name: str, fixture: Any, acknowledged: Acknowledged
) -> None:
    path = callback_path(paying_tenant.id, name)

    @FUZZ
    @given(body=json_bodies(_template(fixture)), content_type=st.sampled_from(CONTENT_TYPES))
    def run(body: bytes, content_type: str) -> None:
        before = _events(paying_tenant)
        response = client.generic("POST", path, body, content_type=content_type)
        assert acknowledged(response), (response.status_code, response.content)
        # Every callback is kept raw, readable or not: money may have moved.
        assert _events(paying_tenant) == before + 1

    run()


def _unusual_stk(draw: Any) -> tuple[dict[str, Any], str]:
    data = _template(MPESA / "stk_callback_success.json")
    callback = data["Body"]["stkCallback"]
    checkout_id = draw(st.from_regex(r"ws_CO_[0-9]{20,30}", fullmatch=True))
    callback["CheckoutRequestID"] = checkout_id
    callback["ResultDesc"] = draw(unusual_bodies)
    small = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=30)
    callback["Extra"] = draw(st.dictionaries(small, small, max_size=3))  # added by Safaricom
    items = callback["CallbackMetadata"]["Item"]
    callback["CallbackMetadata"]["Item"] = draw(st.permutations(items))
    return data, checkout_id


@st.composite
def unusual_stk_callbacks(draw: Any) -> tuple[dict[str, Any], str]:
    return _unusual_stk(draw)


def test_valid_but_unusual_stk_callback_is_stored_under_its_reference(
    paying_tenant: Tenant, client: Client
) -> None:
    path = callback_path(paying_tenant.id, "stk_callback")

    @FUZZ
    @given(case=unusual_stk_callbacks())
    def run(case: tuple[dict[str, Any], str]) -> None:
        data, checkout_id = case
        response = client.post(path, json.dumps(data), content_type="application/json")
        assert response.json() == {"ResultCode": 0, "ResultDesc": "Accepted"}
        with tenant_context(paying_tenant.id) as tid:
            stored = PaymentEvent.objects.filter(tenant_id=tid, reference=checkout_id)
            assert stored.filter(needs_review=False).exists()

    run()


def test_pesapal_ipn_get_with_junk_query_is_acknowledged(
    paying_tenant: Tenant, client: Client
) -> None:
    path = callback_path(paying_tenant.id, "pesapal_ipn")

    @FUZZ
    @given(
        query=st.dictionaries(odd_text, odd_text, max_size=5)
        | st.just(
            dict(
                [
                    pair.split("=")
                    for pair in (PESAPAL / "ipn_get.txt").read_text().strip().split("&")
                ]
            )
        )
    )
    def run(query: dict[str, str]) -> None:
        response = client.get(f"{path}?{urlencode(query)}")
        assert _pesapal_ipn(response), (response.status_code, response.content)

    run()


def test_unknown_callback_token_is_a_plain_404(paying_tenant: Tenant, client: Client) -> None:
    @FUZZ
    @given(
        token=st.text(
            st.characters(codec="utf-8", exclude_characters="/?#\x00"), min_size=1, max_size=80
        )
    )
    def run(token: str) -> None:
        path = reverse("payments:stk_callback", kwargs={"token": token})
        before = _events(paying_tenant)
        response = client.post(path, b"{}", content_type="application/json")
        assert response.status_code == 404
        assert _events(paying_tenant) == before

    run()


@pytest.mark.parametrize(
    "body",
    [
        b'{"Body": {"stkCallback": {"\x00": 1}}}',  # a raw NUL byte
        (MPESA / "stk_callback_success.json").read_bytes().replace(b"ws_CO_", b"ws_CO_\\u0000"),
    ],
    ids=["raw-nul", "escaped-nul-in-reference"],
)
def test_a_nul_in_an_stk_callback_is_kept_for_review_not_a_500(
    paying_tenant: Tenant, client: Client, body: bytes
) -> None:
    path = callback_path(paying_tenant.id, "stk_callback")
    response = client.generic("POST", path, body, content_type="application/json")
    assert response.status_code == 400
    with tenant_context(paying_tenant.id) as tid:
        assert PaymentEvent.objects.filter(tenant_id=tid, needs_review=True).count() == 1
