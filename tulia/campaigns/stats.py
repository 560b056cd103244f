"""A campaign's figures: sending, delivery (from Twilio's status callbacks), response.

Delivery and reads come from the outbound rows the status callbacks update
(tulia/whatsapp/status.py): nothing is copied, so the figures are live. Replies,
opt-outs and orders count per recipient within `attribution_days` of their message:
an inbound message from them to the campaign's number (stored by the webhook before
any turn runs), a marketing (or all) consent withdrawal, a paid order.
Every figure is a database aggregate; no recipient list is loaded.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any
from uuid import UUID

from django.db.models import (
    Count,
    DateTimeField,
    DurationField,
    Exists,
    ExpressionWrapper,
    OuterRef,
    Sum,
    Value,
)

from tenants.context import tenant_context
from tenants.models import ConsentEvent
from tulia.campaigns.audience import BOUGHT
from tulia.campaigns.models import Campaign, CampaignRecipient
from tulia.commerce.models import Order
from tulia.conversations.models import InboundMessage, OutboundMessage

Recipient = CampaignRecipient
Out = OutboundMessage.Status


def campaign_stats(tenant_id: UUID | str, campaign_id: int) -> dict[str, Any]:
    with tenant_context(tenant_id) as tid:
        campaign = Campaign.objects.get(tenant_id=tid, pk=campaign_id)
        recipients = Recipient.objects.filter(tenant_id=tid, campaign_id=campaign.pk)
        by_status = dict(
            recipients.values_list("status").annotate(n=Count("id")).values_list("status", "n")
        )
        by_doubt = dict(
            recipients.exclude(doubt="")
            .values_list("doubt")
            .annotate(n=Count("id"))
            .values_list("doubt", "n")
        )
        sent = recipients.filter(status=Recipient.Status.SENT)
        delivery = dict(
            sent.values_list("outbound__status")
            .annotate(n=Count("id"))
            .values_list("outbound__status", "n")
        )
        window = Value(timedelta(days=campaign.attribution_days), output_field=DurationField())
        until = ExpressionWrapper(OuterRef("sent_at") + window, output_field=DateTimeField())
        replies = sent.filter(
            Exists(
                InboundMessage.objects.filter(
                    tenant_id=tid,
                    sender_id=campaign.sender_id,
                    from_e164=OuterRef("customer__phone_e164"),
                    received_at__gt=OuterRef("sent_at"),
                    received_at__lte=until,
                )
            )
        ).count()
        opt_outs = sent.filter(
            Exists(
                ConsentEvent.objects.filter(
                    tenant_id=tid,
                    customer_id=OuterRef("customer_id"),
                    action=ConsentEvent.Action.WITHDRAWN,
                    kind__in=(ConsentEvent.Kind.MARKETING, ConsentEvent.Kind.ALL),
                    created_at__gt=OuterRef("sent_at"),
                    created_at__lte=until,
                )
            )
        ).count()
        attributed = Order.objects.filter(
            Exists(
                sent.filter(
                    customer_id=OuterRef("customer_id"),
                    sent_at__lt=OuterRef("created_at"),
                    sent_at__gte=ExpressionWrapper(
                        OuterRef("created_at") - window, output_field=DateTimeField()
                    ),
                )
            ),
            tenant_id=tid,
            status__in=BOUGHT,
        ).aggregate(orders=Count("id"), revenue=Sum("total"))
    return {
        "queued": by_status.get(Recipient.Status.QUEUED, 0),
        "sending": by_status.get(Recipient.Status.SENDING, 0),
        "sent": by_status.get(Recipient.Status.SENT, 0),
        "skipped": by_status.get(Recipient.Status.SKIPPED, 0),
        "failed": by_status.get(Recipient.Status.FAILED, 0)
        + delivery.get(Out.FAILED, 0)
        + delivery.get(Out.UNDELIVERED, 0),
        "delivered": delivery.get(Out.DELIVERED, 0) + delivery.get(Out.READ, 0),
        "read": delivery.get(Out.READ, 0),
        "replies": replies,
        "opt_outs": opt_outs,
        "orders": attributed["orders"],
        "revenue_kes": str(attributed["revenue"] or Decimal("0.00")),
        "in_doubt_found": by_doubt.get(Recipient.Doubt.FOUND, 0),
        "in_doubt_resent": by_doubt.get(Recipient.Doubt.RESENT, 0),
        "lost": by_doubt.get(Recipient.Doubt.LOST, 0),
        "attribution_days": campaign.attribution_days,
    }
