"""Accepting a store webhook: find the connection, check the signature, store it once.

The tenant comes from the URL and the connection from its unguessable token; the body
must be signed with that connection's secret (base64 HMAC-SHA256 of the raw body, the
same scheme for Shopify and WooCommerce). The raw body is stored with `INSERT … ON
CONFLICT DO NOTHING` on the platform's delivery id, so a redelivery is recognised in one
statement, and only the delivery that inserted the row enqueues its processing.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from django.db import connection as db
from django.db import transaction
from django.utils import timezone

from tenants.context import tenant_context
from tulia.catalog_sync.models import Platform, StoreConnection, WebhookDelivery

logger = logging.getLogger("tulia.security")

# Header names as Django's request.headers spells them, per platform.
HEADERS = {
    Platform.SHOPIFY: ("X-Shopify-Hmac-Sha256", "X-Shopify-Webhook-Id", "X-Shopify-Topic"),
    Platform.WOOCOMMERCE: (
        "X-WC-Webhook-Signature",
        "X-WC-Webhook-Delivery-ID",
        "X-WC-Webhook-Topic",
    ),
}
# Kept with the body: what tells a delivery's time and origin apart later.
KEPT_HEADERS = (
    "X-Shopify-Triggered-At",
    "X-Shopify-Event-Id",
    "X-Shopify-Shop-Domain",
    "X-WC-Webhook-Source",
    "X-WC-Webhook-Resource",
    "X-WC-Webhook-Event",
)

_INSERT = f"""
INSERT INTO {WebhookDelivery._meta.db_table}
    (tenant_id, connection_id, delivery_id, topic, raw_body, headers, status, error, received_at)
VALUES (%s, %s, %s, %s, %s, %s::jsonb, 'received', '', %s)
ON CONFLICT (tenant_id, connection_id, delivery_id) DO NOTHING
RETURNING id
"""  # noqa: S608 - the table name is our own model's, values are parameters


class Refused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


@dataclass(frozen=True)
class Envelope:
    """What the view read off the request: nothing here is trusted before `accept`."""

    platform: str
    tenant_id: str
    token: str
    body: bytes
    headers: dict[str, str]


def signature_of(secret: str, body: bytes) -> str:
    return base64.b64encode(hmac.new(secret.encode(), body, hashlib.sha256).digest()).decode()


def _connection(envelope: Envelope) -> StoreConnection:
    try:
        tenant_id = UUID(envelope.tenant_id)
    except ValueError as exc:
        raise Refused(404, "no such connection") from exc
    with tenant_context(tenant_id) as tid:
        found = StoreConnection.objects.filter(
            tenant_id=tid, webhook_token=envelope.token, platform=envelope.platform, is_active=True
        ).first()
    if found is None:
        raise Refused(404, "no such connection")
    return found


def accept(envelope: Envelope) -> int | None:
    """Store a verified delivery once; its id, or None for a redelivery."""
    connection = _connection(envelope)
    signature_header, id_header, topic_header = HEADERS[Platform(envelope.platform)]
    given = envelope.headers.get(signature_header, "")
    expected = signature_of(connection.webhook_secret.reveal(), envelope.body)
    if not given or not hmac.compare_digest(given.encode(), expected.encode()):
        logger.warning("store webhook refused: bad or missing signature (%s)", envelope.platform)
        raise Refused(401, "bad signature")
    delivery_id = envelope.headers.get(id_header, "").strip()[:100]
    topic = envelope.headers.get(topic_header, "").strip()[:60]
    if not delivery_id or not topic:
        raise Refused(400, "delivery id and topic are required")
    try:
        if not isinstance(json.loads(envelope.body), dict):
            raise Refused(400, "the body is not a JSON object")
    except (ValueError, UnicodeDecodeError) as exc:
        raise Refused(400, "the body is not JSON") from exc
    return _store(connection, delivery_id, topic, envelope)


def _store(
    connection: StoreConnection, delivery_id: str, topic: str, envelope: Envelope
) -> int | None:
    kept = {name: envelope.headers[name] for name in KEPT_HEADERS if name in envelope.headers}
    params: list[str | int | datetime] = [
        str(connection.tenant_id),
        connection.pk,
        delivery_id,
        topic,
        envelope.body.decode(),
        json.dumps(kept),
        timezone.now(),
    ]
    with tenant_context(connection.tenant_id), db.cursor() as cursor:
        cursor.execute(_INSERT, params)
        row = cursor.fetchone()
        if row is None:
            return None
        delivery_pk = int(row[0])
        from tulia.catalog_sync.tasks import apply_delivery

        tenant = str(connection.tenant_id)
        transaction.on_commit(lambda: apply_delivery.delay(tenant, delivery_pk))
        return delivery_pk


def triggered_at(delivery: WebhookDelivery) -> datetime:
    """When the platform says the event happened; our receipt time when it does not say."""
    stamp = (delivery.headers or {}).get("X-Shopify-Triggered-At", "")
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return delivery.received_at
    return moment if moment.tzinfo else delivery.received_at
