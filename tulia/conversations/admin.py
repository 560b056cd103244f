"""Admin views of conversations and their messages, scoped to the staff user's tenant.

Messages are a record of what was said: read-only here. Conversation changes (handoff
transitions, agent replies) belong to the handoff admin and go through its services.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import Http404, HttpRequest, HttpResponse

from tenants.admin_scoping import ReadOnlyScopedAdmin
from tulia.conversations.models import Conversation, InboundMessage, OutboundMessage
from tulia.handoff import inbox


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
    """Staff read the conversation as the inbox shows it (thread, customer, tickets);
    the engine's raw state and the message rows are for platform operators only."""

    list_display = ("id", "customer", "sender", "status", "turn_count", "last_inbound_at")
    list_filter = ("status",)
    search_fields = ("customer__phone_e164", "customer__display_name")
    readonly_fields = ("customer", "sender", "status", "state", "turn_count", "last_inbound_at")
    inlines = (_InboundInline, _OutboundInline)
    list_select_related = ("customer", "sender")
    change_form_template = "admin/conversations/conversation/change_form.html"

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        shown = ("customer", "sender", "status", "turn_count", "last_inbound_at")
        if not request.user.is_superuser:
            return ((None, {"fields": shown}),)
        raw = {"fields": ("state",), "classes": ("collapse",)}
        return ((None, {"fields": shown}), ("Raw engine state (operators)", raw))

    def get_inlines(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.inlines if request.user.is_superuser else ()

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        conversation = self.get_object(request, object_id)
        if conversation is None:
            raise Http404("conversation not found")
        readable = inbox.conversation_page(conversation)
        return super().change_view(
            request, object_id, form_url, {**(extra_context or {}), **readable}
        )


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
