"""Seed (or refresh) the demo tenants and everything later apps add to them."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from tenants.demo import seed_tenants


class Command(BaseCommand):
    help = "Create or update the demo tenants, staff logins and data. Safe to run again."

    def handle(self, *args: Any, **options: Any) -> None:
        with transaction.atomic():
            tenants = seed_tenants()
        for tenant in tenants:
            self.stdout.write(f"seeded {tenant.slug}")
