"""`manage.py install_templates --tenant SLUG` (or `--all`): the starter template set.

For shops that existed before templates did. Safe to run again: existing templates
are kept; `--sync` then asks Twilio for the approval status of the open ones.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tenants.context import operator_context
from tenants.models import Tenant
from tulia.whatsapp import templates


class Command(BaseCommand):
    help = "Install (and submit) the starter WhatsApp templates for one shop or all."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", help="shop slug")
        parser.add_argument("--all", action="store_true", help="every active shop")
        parser.add_argument("--no-submit", action="store_true", help="create drafts only")
        parser.add_argument("--sync", action="store_true", help="sync approval status after")

    def handle(self, *args: Any, **options: Any) -> None:
        if bool(options["tenant"]) == bool(options["all"]):
            raise CommandError("give exactly one of --tenant SLUG or --all")
        with operator_context("install starter templates"):
            shops = Tenant.objects.filter(status=Tenant.Status.ACTIVE).order_by("slug")
            if options["tenant"]:
                shops = shops.filter(slug=options["tenant"])
            ids = list(shops.values_list("pk", "slug"))
        if not ids:
            raise CommandError("no such active shop")
        for tenant_id, slug in ids:
            installed = templates.install_starter_templates(
                tenant_id, submit_now=not options["no_submit"]
            )
            synced = templates.sync_open(tenant_id) if options["sync"] else 0
            self.stdout.write(f"{slug}: {len(installed)} templates, {synced} synced")
