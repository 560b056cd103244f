"""Run the Daraja and PesaPal emulators for the demo until Ctrl-C."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

from django.core.management.base import BaseCommand, CommandParser

from payments.demo import DARAJA_URL, PESAPAL_URL, SANDBOX_PASSKEY, demo_credentials
from payments.emulators.daraja import DarajaEmulator, StkScript
from payments.emulators.pesapal import PesapalEmulator
from tenants.models import Tenant


class Command(BaseCommand):
    help = "Serve local Daraja and PesaPal emulators with every tenant's demo credentials."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--stk-result", type=int, default=0, help="ResultCode to answer")
        parser.add_argument("--stk-delay", type=float, default=4.0, help="Seconds to 'type PIN'")
        parser.add_argument(
            "--stk-query-lag",
            type=float,
            default=0.0,
            help="Seconds STK Query keeps saying 'being processed' after the customer acted",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        daraja = DarajaEmulator("demo", "demo", SANDBOX_PASSKEY, port=_port(DARAJA_URL))
        daraja.default_script = StkScript(
            result_code=options["stk_result"], delay=options["stk_delay"]
        )
        daraja.query_lag = options["stk_query_lag"]
        pesapal = PesapalEmulator("demo", "demo", port=_port(PESAPAL_URL))
        pesapal.refund_default = "complete"  # a card refund goes through a moment later
        for slug in Tenant.objects.values_list("slug", flat=True):
            daraja.add_app(*demo_credentials(slug))
            pesapal.add_app(*demo_credentials(slug))
        with daraja, pesapal:
            self.stdout.write(f"Daraja emulator on {daraja.base_url}")
            self.stdout.write(f"PesaPal emulator on {pesapal.base_url}")
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                self.stdout.write("stopped")


def _port(url: str) -> int:
    return urlsplit(url).port or 80
