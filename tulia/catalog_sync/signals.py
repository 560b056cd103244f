"""A paid order of synced goods is sent to its store once the payment has committed.

Hooked on the order's history row (every route to "paid" writes one, in the same
transaction as the payment's settlement), so payments and commerce need not know that
store sync exists; the push runs after commit, so a rolled-back settlement sends nothing.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from tulia.commerce.models import OrderStatus, OrderStatusEvent


@receiver(post_save, sender=OrderStatusEvent, dispatch_uid="catalog_sync_push_paid_order")
def _order_paid(sender: type[OrderStatusEvent], instance: OrderStatusEvent, **kw: Any) -> None:
    if not kw.get("created") or instance.to_status != OrderStatus.PAID:
        return
    from tulia.catalog_sync.push import pushes_orders

    if not pushes_orders(instance.tenant_id):
        return
    from tulia.catalog_sync.tasks import push_order

    tenant_id, order_id = str(instance.tenant_id), instance.order_id
    transaction.on_commit(lambda: push_order.delay(tenant_id, order_id))
