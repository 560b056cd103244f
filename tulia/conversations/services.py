"""Opening conversations: one open conversation per (tenant, customer, sender).

A partial unique constraint decides races; the loser of a concurrent create re-reads
the winner's row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from django.db import IntegrityError, transaction
from django.db.models import F

from tenants.accessors import get_customer, get_tenant
from tenants.context import tenant_context
from tenants.errors import NotFound
from tenants.models import WhatsAppSender
from tulia.conversations.models import Conversation


def _open_for(tenant_id: UUID, customer_id: int, sender_id: int) -> Conversation | None:
    return (
        Conversation.objects.filter(
            tenant_id=tenant_id,
            customer_id=customer_id,
            sender_id=sender_id,
            status__in=Conversation.OPEN_STATUSES,
        )
        .order_by("-id")
        .first()
    )


def open_conversation(tenant_id: UUID | str, customer_id: int, sender_id: int) -> Conversation:
    """The customer's open conversation on this sender, created if there is none."""
    with tenant_context(tenant_id) as tid:
        existing = _open_for(tid, customer_id, sender_id)
        if existing is not None:
            return existing
        try:
            with transaction.atomic():
                return Conversation.objects.create(
                    tenant_id=tid, customer_id=customer_id, sender_id=sender_id
                )
        except IntegrityError:
            winner = _open_for(tid, customer_id, sender_id)
            if winner is None:
                raise
            return winner


def latest_conversation(tenant_id: UUID | str, customer_id: int) -> Conversation:
    """The customer's most recent open conversation on any sender, or one on the first
    active sender (payments tell a customer the outcome where they last talked)."""
    customer = get_customer(tenant_id, customer_id)  # NotFound when not this tenant's
    with tenant_context(tenant_id) as tid:
        conversation = (
            Conversation.objects.filter(
                tenant_id=tid, customer_id=customer_id, status__in=Conversation.OPEN_STATUSES
            )
            .order_by(F("last_inbound_at").desc(nulls_last=True), "-id")
            .first()
        )
        if conversation is not None:
            return conversation
        sender = WhatsAppSender.objects.filter(tenant_id=tid, is_active=True).order_by("id").first()
        if sender is None:
            raise NotFound("this tenant has no active WhatsApp sender")
        return open_conversation(tid, customer.pk, sender.pk)


def notice_language(tenant_id: UUID | str, customer_id: int) -> str:
    """The language of a notice sent outside a turn (order update, return or refund
    decision): the customer's stated preference, else the language their latest
    conversation was last answered in (a Sheng chat hears about its order in Sheng), else
    the shop's default. Read only: no conversation is opened to find it."""
    from tulia.text import language_of

    customer = get_customer(tenant_id, customer_id)  # NotFound when not this tenant's
    if customer.language_preference:
        return language_of(customer.language_preference)
    with tenant_context(tenant_id) as tid:
        state = (
            Conversation.objects.filter(
                tenant_id=tid, customer_id=customer_id, status__in=Conversation.OPEN_STATUSES
            )
            .order_by(F("last_inbound_at").desc(nulls_last=True), "-id")
            .values_list("state", flat=True)
            .first()
        ) or {}
    return language_of(answered_language(state) or get_tenant(tid).default_language)


def answered_language(state: Mapping[str, Any]) -> str | None:
    """The language a conversation was last answered in, from its stored state."""
    language = state.get("last_language") or state.get("response_language")
    return str(language) if language else None
