"""Admin for WhatsApp templates, sender limits and the messages the gate held back.

Templates: owners create them, submit them for WhatsApp approval and sync their
status (a rejection shows its reason); "Install starter templates" gives the shop the
platform's utility set. Agents see everything here and change nothing.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden, HttpResponseRedirect
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_POST

from tenants.admin_scoping import ReadOnlyScopedAdmin, TenantScopedAdmin, request_tenant_id
from tenants.roles import role_action
from tulia.conversations.models import OutboundMessage
from tulia.whatsapp import limits, templates
from tulia.whatsapp.backends import SendError
from tulia.whatsapp.models import MessageTemplate, NotSentMessage, SenderLimit


def _each(request: HttpRequest, queryset: QuerySet[MessageTemplate], step: Any, done: str) -> None:
    count = 0
    for template in queryset:
        try:
            step(template.tenant_id, template.pk)
            count += 1
        except SendError as exc:
            messages.error(request, f"{template.name}: Twilio refused ({exc})")
    messages.success(request, f"{count} template(s) {done}.")


@admin.register(MessageTemplate)
class MessageTemplateAdmin(TenantScopedAdmin):
    list_display = ("name", "purpose", "language", "category", "status", "rejection_reason")
    list_filter = ("status", "category", "language", "purpose")
    search_fields = ("name", "body", "content_sid")
    readonly_fields = (
        "content_sid", "account_sid", "status", "rejection_reason", "submitted_at", "synced_at"
    )  # fmt: skip
    actions = ("submit_for_approval", "sync_status")

    @role_action("whatsapp.template.submit", description="Submit to WhatsApp for approval")
    def submit_for_approval(
        self, request: HttpRequest, queryset: QuerySet[MessageTemplate]
    ) -> None:
        _each(request, queryset, templates.submit, "submitted")

    @role_action("whatsapp.template.sync", description="Sync approval status from Twilio")
    def sync_status(self, request: HttpRequest, queryset: QuerySet[MessageTemplate]) -> None:
        _each(request, queryset, templates.sync, "synced")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = tuple(super().get_readonly_fields(request, obj))
        # Twilio content cannot be edited once created: make a new template instead.
        locked = ("name", "language", "body", "examples", "category")
        return (*fields, *locked) if obj is not None and obj.content_sid else fields

    def get_urls(self) -> list[URLPattern]:
        install = self.admin_site.admin_view(require_POST(self.install_starter_view))
        name = "whatsapp_messagetemplate_install_starter"
        return [path("install-starter/", install, name=name), *super().get_urls()]

    def install_starter_view(self, request: HttpRequest) -> HttpResponse:
        tenant_id = request_tenant_id(request)
        if tenant_id is None or not self.has_add_permission(request):
            return HttpResponseForbidden("only a shop's owner installs its templates")
        try:
            ids = templates.install_starter_templates(tenant_id)
            messages.success(request, f"{len(ids)} starter templates installed and submitted.")
        except SendError as exc:
            messages.error(request, f"Twilio refused: {exc}")
        return HttpResponseRedirect(reverse("admin:whatsapp_messagetemplate_changelist"))


@admin.register(SenderLimit)
class SenderLimitAdmin(TenantScopedAdmin):
    list_display = ("sender", "tier", "utility_reserve_percent", "usage_24h")
    fields = ("sender", "tier", "utility_reserve_percent", "usage_24h")
    readonly_fields = ("usage_24h",)
    list_select_related = ("sender",)

    @admin.display(description="Customers reached in 24 h (marketing may use)")
    def usage_24h(self, obj: SenderLimit) -> str:
        if obj.pk is None:
            return "-"
        usage = limits.usage(obj)
        if usage.capacity is None:
            return f"{usage.used} of unlimited"
        return f"{usage.used} of {usage.capacity} (marketing up to {usage.marketing_capacity})"


@admin.register(NotSentMessage)
class NotSentMessageAdmin(ReadOnlyScopedAdmin):
    """What never reached the customer, and why: the gate's refusals and Twilio's."""

    list_display = ("created_at", "customer", "purpose", "error_code", "error_message", "body")
    list_filter = ("purpose", "error_code")
    search_fields = ("conversation__customer__phone_e164", "body", "error_message")
    exclude = ("tenant",)
    list_select_related = ("conversation__customer",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).filter(status=OutboundMessage.Status.NOT_SENT)

    @admin.display(description="customer")
    def customer(self, obj: NotSentMessage) -> str:
        return str(obj.conversation.customer)
