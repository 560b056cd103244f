"""No secret reaches the logs along a full flow.

Everything logged while a signed webhook arrives, an API key is used (and a wrong one
tried), an STK push and a PesaPal checkout run against their emulators and a turn calls
the LLM emulator is rendered through the production formatter (structlog JSON with the
scrubbing step) at DEBUG. None of the secrets may appear, nor their base64 Basic-auth
forms, nor the tokens the providers issued, nor the STK password.
"""

from __future__ import annotations

import base64
import io
import logging
from collections.abc import Iterator
from decimal import Decimal

import pytest
import structlog
from django.test import Client
from rest_framework.test import APIClient

from journeys import handler
from journeys.llm_emulator import LLMEmulator, Reply, Text, by_kind
from payments.accounts import configure_mpesa, configure_pesapal
from payments.emulators.daraja import DarajaEmulator, StkScript
from payments.emulators.pesapal import PesapalEmulator
from payments.mpesa.stk import initiate_stk_push
from payments.pesapal.checkout import create_checkout
from tenants.models import Tenant
from tenants.services import update_tenant
from tests.commerce import factories
from tests.flows.chat import start_chat
from tests.gateway.conftest import event, sign
from tulia.api.keys import issue_key
from tulia.commerce.checkout import LineRequest, create_order
from tulia.observability.logs import logging_config

pytestmark = pytest.mark.django_db

TWILIO_TOKEN = "token-a-123456789"  # what tests/conftest.py registers for the tenant
DARAJA_KEY, DARAJA_SECRET = "ck-logs-7Qp2", "cs-logs-Secret-9f8e7d6c"
PASSKEY = "pk-logs-passkey-5b4a39281706f5e4d3c2b1a0"
PESAPAL_KEY, PESAPAL_SECRET = "pp-logs-key-1x2y", "pp-logs-Secret-0a9b8c7d"
OPENAI_KEY = "sk-logsSecretKey1234567890abcdefXYZ"


def _basic(key: str, secret: str) -> str:
    return base64.b64encode(f"{key}:{secret}".encode()).decode()


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    """Every record reaching the root logger, rendered as production renders it."""
    spec = dict(logging_config("DEBUG", json=True)["formatters"]["structured"])
    formatter = spec.pop("()")(**spec)
    buffer = io.StringIO()
    sink = logging.StreamHandler(buffer)
    sink.setFormatter(formatter)
    sink.setLevel(logging.DEBUG)
    root = logging.getLogger()
    level = root.level
    root.addHandler(sink)
    root.setLevel(logging.DEBUG)
    yield buffer
    root.removeHandler(sink)
    root.setLevel(level)


@pytest.fixture
def providers() -> Iterator[tuple[DarajaEmulator, PesapalEmulator]]:
    with (
        DarajaEmulator(DARAJA_KEY, DARAJA_SECRET, PASSKEY) as daraja,
        PesapalEmulator(PESAPAL_KEY, PESAPAL_SECRET) as pesapal,
    ):
        assert isinstance(daraja, DarajaEmulator)
        assert isinstance(pesapal, PesapalEmulator)
        daraja.default_script = StkScript(deliver=False)  # no callback server here
        yield daraja, pesapal


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[LLMEmulator]:
    with LLMEmulator().running() as emulator:
        monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", emulator.base_url)
        handler._deps.cache_clear()
        yield emulator
    handler._deps.cache_clear()


def _configure(tenant: Tenant, daraja: DarajaEmulator, pesapal: PesapalEmulator) -> None:
    update_tenant(tenant, payment_methods=["mpesa_stk", "mpesa_c2b", "pesapal_card"])
    configure_mpesa(
        tenant.id,
        base_url=daraja.base_url,
        shortcode="174379",
        consumer_key=DARAJA_KEY,
        consumer_secret=DARAJA_SECRET,
        passkey=PASSKEY,
        source_ip_check="off",
    )
    configure_pesapal(
        tenant.id,
        base_url=pesapal.base_url,
        consumer_key=PESAPAL_KEY,
        consumer_secret=PESAPAL_SECRET,
    )


def _webhooks(client: Client) -> None:
    path = "/whatsapp/inbound"
    form = event("inbound_text")
    signature = sign(path, form, TWILIO_TOKEN)
    assert client.post(path, form, headers={"X-Twilio-Signature": signature}).status_code == 200
    forged = event("inbound_text", MessageSid="SM" + "2" * 32)
    client.post(path, forged, headers={"X-Twilio-Signature": signature})  # logged rejection


def _api(tenant: Tenant) -> str:
    plaintext = issue_key(tenant.id, "logs").plaintext
    good, bad = APIClient(), APIClient()
    good.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    bad.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}x")
    assert good.get("/api/v1/catalog/items/").status_code == 200
    assert bad.get("/api/v1/orders/").status_code == 401  # logged as Unauthorized
    return plaintext


def _payments(tenant: Tenant) -> None:
    item = factories.item(tenant, "Air Runner Black", 1500)
    customer = factories.customer(tenant)
    for pay in (initiate_stk_push, create_checkout):
        order = create_order(tenant.id, customer.pk, [LineRequest(item.pk, 1)])
        pay(tenant.id, order.pk, confirmed_amount=Decimal(1500))


def _llm_turn(tenant: Tenant, llm: LLMEmulator) -> None:
    llm.default = by_kind(Reply({"intent": "greeting", "confidence": 0.99}), Text("Karibu!"))
    start_chat(tenant).send("mambo")
    assert llm.requests, "the turn never reached the model"


def test_a_full_flow_logs_no_secret(
    tenant: Tenant,
    client: Client,
    captured: io.StringIO,
    providers: tuple[DarajaEmulator, PesapalEmulator],
    llm: LLMEmulator,
) -> None:
    daraja, pesapal = providers
    _configure(tenant, daraja, pesapal)
    _webhooks(client)
    api_key = _api(tenant)
    _payments(tenant)
    _llm_turn(tenant, llm)

    issued = [*daraja.tokens.values(), *pesapal.tokens]
    stk_passwords = [push.body["Password"] for push in daraja.pushes.values()]
    assert issued, "the providers were never called: nothing was tested"
    assert stk_passwords, "no STK push was sent: nothing was tested"
    secrets = {
        "twilio auth token": TWILIO_TOKEN,
        "daraja consumer secret": DARAJA_SECRET,
        "daraja basic auth": _basic(DARAJA_KEY, DARAJA_SECRET),
        "daraja passkey": PASSKEY,
        "pesapal consumer secret": PESAPAL_SECRET,
        "openai key": OPENAI_KEY,
        "api key": api_key,
        # The secret is URL-safe base64 and may itself hold "_": split after the prefix.
        "api key secret": api_key.removeprefix("tulia_").partition("_")[2],
        **{f"issued token {n}": token for n, token in enumerate(issued)},
        **{f"stk password {n}": pw for n, pw in enumerate(stk_passwords)},
    }
    logs = captured.getvalue()
    # The capture saw the flow: the refused key, the provider calls and the LLM call.
    for seen in (
        "Unauthorized: /api/v1/orders/",
        "stkpush",
        "SubmitOrderRequest",
        "chat/completions",
    ):
        assert seen in logs, seen
    leaked = sorted(name for name, value in secrets.items() if value in logs)
    assert not leaked, leaked


def test_secrets_nested_in_logged_structures_are_redacted(captured: io.StringIO) -> None:
    structlog.get_logger("tulia.payments").warning(
        "provider_call",
        request={
            "headers": {"Authorization": f"Basic {_basic(DARAJA_KEY, DARAJA_SECRET)}"},
            "json": {"consumer_key": PESAPAL_KEY, "consumer_secret": PESAPAL_SECRET},
            "attempts": [{"Password": PASSKEY}, f"Bearer {OPENAI_KEY}"],
        },
    )
    logs = captured.getvalue()
    assert "provider_call" in logs
    assert PESAPAL_KEY in logs  # the line is logged; only the secrets are masked
    for secret in (
        DARAJA_SECRET,
        _basic(DARAJA_KEY, DARAJA_SECRET),
        PESAPAL_SECRET,
        PASSKEY,
        OPENAI_KEY,
    ):
        assert secret not in logs
