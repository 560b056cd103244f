"""Seed (or refresh) the demo tenants and everything later apps add to them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from tenants.demo import seed_tenants
from tenants.models import Tenant

# Each app that has demo data adds its seeder here: "module:function", called with the
# demo tenants in order. Seeders must be idempotent.
DEMO_SEEDERS: Sequence[str] = (
    "tulia.commerce.demo:seed_commerce",
    "kb.demo:seed_documents",
    "payments.demo:seed_payment_accounts",
    "tulia.whatsapp.demo:seed_templates",
    "tulia.returns.demo:seed_return_policies",
    "tulia.commerce.demo_fulfilment:seed_fulfilment",
)


def _load(path: str) -> Callable[[list[Tenant]], object]:
    module, _, name = path.partition(":")
    seeder: Callable[[list[Tenant]], object] = getattr(import_module(module), name)
    return seeder


class Command(BaseCommand):
    help = "Create or update the demo tenants, staff logins and data. Safe to run again."

    def handle(self, *args: Any, **options: Any) -> None:
        if settings.IS_PRODUCTION:
            # Demo logins have published passwords; they must never exist in production.
            raise CommandError("seed_demo refuses to run with TULIA_PROFILE=production")
        with transaction.atomic():
            tenants = seed_tenants()
            for path in DEMO_SEEDERS:
                _load(path)(tenants)
        for tenant in tenants:
            self.stdout.write(f"seeded {tenant.slug}")
