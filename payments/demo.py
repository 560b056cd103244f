"""Demo wiring: the demo shops' payment accounts point at the local emulators.

`manage.py payment_emulators` runs the emulators on the ports below; the seeder gives
each demo shop an account on them (never overwriting an account aimed elsewhere).
"""

from __future__ import annotations

import os

from payments.accounts import configure_mpesa, configure_pesapal
from payments.models import MpesaAccount, PesapalAccount
from tenants.context import tenant_context
from tenants.crypto import Secret
from tenants.models import Tenant

DARAJA_URL = os.environ.get("TULIA_DARAJA_EMULATOR_URL", "http://127.0.0.1:8701")
PESAPAL_URL = os.environ.get("TULIA_PESAPAL_EMULATOR_URL", "http://127.0.0.1:8702")
# Daraja's public sandbox test passkey (protocols.md §2.7), not a secret.
SANDBOX_PASSKEY = "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919"
SHORTCODES = {"kicks-nairobi": "174379", "mama-mboga": "600984"}


def demo_credentials(slug: str) -> tuple[str, str]:
    return f"demo-{slug}-key", f"demo-{slug}-secret"


def _untouched(model: type[MpesaAccount] | type[PesapalAccount], tenant: Tenant, url: str) -> bool:
    with tenant_context(tenant.pk) as tid:
        account = model.objects.filter(tenant_id=tid).first()
    return account is None or account.base_url == url


def seed_payment_accounts(tenants: list[Tenant]) -> None:
    for tenant in tenants:
        key, secret = demo_credentials(tenant.slug)
        wants_mpesa = {"mpesa_stk", "mpesa_c2b"} & set(tenant.payment_methods)
        if wants_mpesa and _untouched(MpesaAccount, tenant, DARAJA_URL):
            configure_mpesa(
                tenant.pk,
                base_url=DARAJA_URL,
                shortcode=SHORTCODES.get(tenant.slug, "174379"),
                consumer_key=key,
                consumer_secret=secret,
                passkey=SANDBOX_PASSKEY,
                source_ip_check=MpesaAccount.IpCheck.OFF,
                stk_query_after_seconds=60,
                # The emulator takes any initiator: C2B payments are then confirmed by
                # Transaction Status, as a shop with Daraja API access would have them.
                initiator_name="demo-api",
                security_credential=Secret(f"demo-{tenant.slug}-credential"),
            )
        wants_card = "pesapal_card" in tenant.payment_methods
        if wants_card and _untouched(PesapalAccount, tenant, PESAPAL_URL):
            configure_pesapal(
                tenant.pk, base_url=PESAPAL_URL, consumer_key=key, consumer_secret=secret
            )
