"""The demo shops as the benchmark uses them: migrated and seeded, M-Pesa pointed at a
local Daraja emulator, and the customer "paying" by a stored Daraja callback."""

from __future__ import annotations

import io
import json
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from turns_parts.scripts import SHOPS


def share_servers() -> None:
    """Workers connect to the servers started here rather than each managing them."""
    from django.conf import settings

    os.environ.setdefault("DATABASE_URL", settings.DATABASE_URL)
    os.environ.setdefault("REDIS_URL", settings.REDIS_URL)


def prepare_database() -> None:
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("seed_demo", stdout=io.StringIO())


@contextmanager
def daraja_for_demo_shops() -> Iterator[None]:
    """A Daraja emulator the demo shops' M-Pesa accounts point at, for this run."""
    from payments.demo import SANDBOX_PASSKEY, SHORTCODES, demo_credentials
    from payments.emulators.daraja import DarajaEmulator, StkScript
    from tenants.models import Tenant

    emulator = DarajaEmulator(*demo_credentials(SHOPS[0]), SANDBOX_PASSKEY)
    emulator.default_script = StkScript(deliver=False)  # the bench delivers callbacks itself
    for slug in SHOPS[1:]:
        emulator.add_app(*demo_credentials(slug))
    with emulator:
        for tenant in Tenant.objects.filter(slug__in=SHOPS):
            point_mpesa_at(tenant.pk, tenant.slug, emulator.base_url, SHORTCODES, SANDBOX_PASSKEY)
        yield


def point_mpesa_at(
    tenant_id: Any, slug: str, url: str, shortcodes: dict[str, str], passkey: str
) -> None:
    from payments.accounts import configure_mpesa
    from payments.demo import demo_credentials

    key, secret = demo_credentials(slug)
    configure_mpesa(
        tenant_id,
        base_url=url,
        shortcode=shortcodes[slug],
        consumer_key=key,
        consumer_secret=secret,
        passkey=passkey,
        source_ip_check="off",
        stk_query_after_seconds=60,
    )


def deliver_stk_callback(tenant_id: Any, payment_id: int) -> int:
    """The customer pays: Daraja's success callback, stored and processed (1 if paid)."""
    from payments.inbox import store_event
    from payments.models import PaymentEvent, PaymentMethod, PaymentRequest
    from payments.mpesa.stk import verify_stk_claim
    from payments.tasks import process_stk_callback
    from tenants.context import tenant_context

    with tenant_context(tenant_id) as tid:
        payment = PaymentRequest.objects.filter(tenant_id=tid, pk=payment_id).first()
    if payment is None or payment.method != PaymentMethod.MPESA_STK:
        return 0  # paybill: the customer pays by hand, nothing to call back
    body = stk_success_body(payment)
    event = store_event(
        tid, PaymentEvent.Kind.STK_CALLBACK, json.dumps(body), reference=payment.provider_reference
    )
    result = process_stk_callback(str(tid), event.pk)
    if result == PaymentEvent.Outcome.VERIFYING:
        # The success is only a claim: confirmed by STK Query at the emulator, as the
        # worker's first check would (no worker runs in this bench).
        result = verify_stk_claim(str(tid), payment.pk, 1)
    return int(result == PaymentEvent.Outcome.APPLIED)


def stk_success_body(payment: Any) -> dict[str, Any]:
    items = [
        {"Name": "Amount", "Value": float(payment.amount)},
        {"Name": "MpesaReceiptNumber", "Value": f"BN{uuid.uuid4().hex[:8].upper()}"},
        {"Name": "TransactionDate", "Value": int(time.strftime("%Y%m%d%H%M%S"))},
        {"Name": "PhoneNumber", "Value": int(payment.phone_e164.lstrip("+"))},
    ]
    callback = {
        "MerchantRequestID": payment.merchant_request_id or "bench",
        "CheckoutRequestID": payment.provider_reference,
        "ResultCode": 0,
        "ResultDesc": "The service request is processed successfully.",
        "CallbackMetadata": {"Item": items},
    }
    return {"Body": {"stkCallback": callback}}


def demo_senders() -> dict[str, tuple[Any, int]]:
    from tenants.context import tenant_context
    from tenants.models import Tenant, WhatsAppSender

    senders = {}
    for tenant in Tenant.objects.filter(slug__in=SHOPS):
        with tenant_context(tenant.pk) as tid:
            sender = WhatsAppSender.objects.filter(tenant_id=tid).order_by("id").first()
        assert sender is not None, f"seed_demo registers a sender for {tenant.slug}"
        senders[tenant.slug] = (tenant.pk, sender.pk)
    return senders
