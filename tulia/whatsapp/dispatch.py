"""Enqueueing gateway tasks without ever failing the caller.

A webhook that already stored its message must still answer 200 when the broker is
down: the message is safe in PostgreSQL and the sweeper will enqueue it later. So
broker errors are logged here, not raised, and the connection is tried once
without retries (kombu's default connect retry would hold the webhook for seconds).
"""

from __future__ import annotations

import logging
from uuid import UUID

from kombu.exceptions import OperationalError

logger = logging.getLogger(__name__)
_BROKER_ERRORS = (OperationalError, ConnectionError, OSError, TimeoutError)


def _publish(task_name: str, args: list[object], countdown: float | None = None) -> bool:
    from tulia.celery import app

    try:
        with app.producer_or_acquire() as producer:
            producer.connection.ensure_connection(max_retries=0, interval_start=0)
            app.send_task(task_name, args=args, producer=producer, retry=False, countdown=countdown)
    except _BROKER_ERRORS as exc:
        logger.warning("broker unavailable, %s left to the sweeper: %s", task_name, exc)
        return False
    return True


def enqueue_turn(tenant_id: UUID | str, message_id: int) -> bool:
    from tulia.conversations.pipeline import debounce_seconds
    from tulia.whatsapp.tasks import process_inbound

    if process_inbound.app.conf.task_always_eager:
        process_inbound.apply(args=(str(tenant_id), message_id))
        return True
    # Scheduled, not slept on: the turn runs once the customer paused for the debounce
    # wait, and a worker holds nothing meanwhile (pipeline._burst_still_arriving).
    countdown = debounce_seconds() or None
    return _publish(process_inbound.name, [str(tenant_id), message_id], countdown)


def enqueue_delivery(tenant_id: UUID | str, conversation_id: int) -> bool:
    from tulia.whatsapp.tasks import deliver_outbound

    if deliver_outbound.app.conf.task_always_eager:
        deliver_outbound.apply(args=(str(tenant_id), conversation_id))
        return True
    return _publish(deliver_outbound.name, [str(tenant_id), conversation_id])
