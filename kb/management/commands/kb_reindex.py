"""Queue re-indexing of every document not yet embedded by the current embedder."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from kb.documents import queue_stale
from tenants.models import Tenant


class Command(BaseCommand):
    help = "After changing the embedder: re-embed every tenant's documents (queued)."

    def handle(self, *args: Any, **options: Any) -> None:
        total = 0
        for tenant in Tenant.objects.order_by("slug"):
            queued = queue_stale(tenant.id)
            total += queued
            if queued:
                self.stdout.write(f"{tenant.slug}: {queued} document(s) queued")
        self.stdout.write(f"{total} document(s) queued for re-indexing")
