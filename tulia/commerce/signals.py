"""Saving an item or variant re-indexes that item (text now, embedding after commit)."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save
from django.dispatch import receiver

from tulia.commerce.indexing import schedule_indexing
from tulia.commerce.models import CatalogItem, Variant


@receiver(post_save, sender=CatalogItem, dispatch_uid="commerce_item_indexing")
def _item_saved(sender: type[CatalogItem], instance: CatalogItem, **_: Any) -> None:
    schedule_indexing(instance.tenant_id, [instance.pk])


@receiver(post_save, sender=Variant, dispatch_uid="commerce_variant_indexing")
def _variant_saved(sender: type[Variant], instance: Variant, **_: Any) -> None:
    schedule_indexing(instance.tenant_id, [instance.item_id])
