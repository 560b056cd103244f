"""Admin views of conversations and their messages, scoped to the staff user's tenant.

Messages are a record of what was said: read-only here. Conversation changes (handoff
transitions, agent replies) belong to the handoff admin and go through its services.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from tenants.admin_scoping import ReadOnlyScopedAdmin
from tulia.conversations.models import Conversation, InboundMessage, OutboundMessage


class _InboundInline(admin.TabularInline):
    model = InboundMessage
    fields = ("received_at", "kind", "body", "status", "attempts")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("id",)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class _OutboundInline(admin.TabularInline):
    model = OutboundMessage
    fields = ("created_at", "body", "part_index", "status", "error_code")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("id",)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Conversation)
class ConversationAdmin(ReadOnlyScopedAdmin):
    list_display = ("id", "customer", "sender", "status", "turn_count", "last_inbound_at")
    list_filter = ("status",)
    search_fields = ("customer__phone_e164", "customer__display_name")
    readonly_fields = ("customer", "sender", "status", "state", "turn_count", "last_inbound_at")
    inlines = (_InboundInline, _OutboundInline)
    list_select_related = ("customer", "sender")


@admin.register(InboundMessage)
class InboundMessageAdmin(ReadOnlyScopedAdmin):
    list_display = ("message_sid", "received_at", "from_e164", "kind", "status", "attempts")
    list_filter = ("status", "kind")
    search_fields = ("message_sid", "from_e164", "request_id")
    exclude = ("tenant",)


@admin.register(OutboundMessage)
class OutboundMessageAdmin(ReadOnlyScopedAdmin):
    list_display = ("id", "created_at", "conversation", "status", "error_code", "backend")
    list_filter = ("status", "backend")
    search_fields = ("twilio_sid", "request_id")
    exclude = ("tenant",)
