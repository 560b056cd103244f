"""Agent desk in Django admin: the queue, each ticket's desk page, canned replies, presence."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.timesince import timesince
from django.utils.translation import gettext_lazy as _

from tenants.admin_scoping import TenantScopedAdmin
from tenants.roles import role_action
from tulia.handoff import admin_desk, desk
from tulia.handoff.errors import HandoffError, actor_id
from tulia.handoff.models import AgentPresence, CannedReply, HandoffTicket, TicketStatus


@admin.register(HandoffTicket)
class HandoffTicketAdmin(TenantScopedAdmin):
    list_display = (
        "desk_link", "phone", "category", "priority", "status", "queue_position", "waiting",
        "assigned_to",
    )  # fmt: skip
    list_display_links = None  # every row leads to its desk, never to a raw record page
    list_select_related = ("customer", "assigned_to")
    list_filter = ("status", "category", "priority")
    ordering = ("opened_at",)
    actions = ("claim_selected",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # tickets are opened by the bot or the API, never typed in

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # changes go through the desk operations only

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # tickets are the record of what was promised to a customer

    @admin.display(description="position")
    def queue_position(self, obj: HandoffTicket) -> int | None:
        if obj.status != TicketStatus.OPEN:
            return None
        return (
            HandoffTicket.objects.filter(
                tenant_id=obj.tenant_id, status=TicketStatus.OPEN, opened_at__lt=obj.opened_at
            ).count()
            + 1
        )

    @admin.display(description="waiting")
    def waiting(self, obj: HandoffTicket) -> str:
        end = obj.assigned_at or obj.resolved_at or timezone.now()
        return timesince(obj.opened_at, end)

    @admin.display(description="customer")
    def desk_link(self, obj: HandoffTicket) -> str:
        return format_html(
            '<a class="inbox-open" href="{}">{} <span>open desk &rsaquo;</span></a>',
            reverse("admin:handoff_desk", args=[obj.pk]),
            obj.customer,
        )

    @admin.display(description="phone")
    def phone(self, obj: HandoffTicket) -> str:
        return obj.customer.phone_e164

    @role_action("handoff.ticket.claim_selected", description="Claim selected tickets")
    def claim_selected(self, request: HttpRequest, queryset: QuerySet[HandoffTicket]) -> None:
        for ticket in queryset:
            try:
                desk.claim(ticket.tenant_id, ticket.pk, actor_id(request.user))
                messages.success(request, f"Claimed ticket {ticket.pk}.")
            except HandoffError as exc:
                messages.error(request, f"Ticket {ticket.pk}: {exc}")

    def get_urls(self) -> list[URLPattern]:
        desk_url = path(
            "<int:ticket_id>/desk/",
            self.admin_site.admin_view(self.desk_view),
            name="handoff_desk",
        )
        live_url = path("live/", self.admin_site.admin_view(admin_desk.live), name="handoff_live")
        return [desk_url, live_url, *super().get_urls()]

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        titled = {"title": _("Inbox: customers waiting and chats in progress")}
        return super().changelist_view(request, {**titled, **(extra_context or {})})

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        """A ticket's page is its desk (the record itself is the desk's context)."""
        if not object_id.isdigit():
            raise Http404("ticket not found")
        return HttpResponseRedirect(reverse("admin:handoff_desk", args=[int(object_id)]))

    def desk_view(self, request: HttpRequest, ticket_id: int) -> HttpResponse:
        ticket = self.get_queryset(request).filter(pk=ticket_id).first()
        if ticket is None or not self.has_view_permission(request, ticket):
            raise Http404("ticket not found")
        if request.method == "POST":
            return admin_desk.perform(request, ticket)
        base = {**self.admin_site.each_context(request), "opts": self.model._meta}
        return admin_desk.render_desk(request, ticket, base)


@admin.register(CannedReply)
class CannedReplyAdmin(TenantScopedAdmin):
    list_display = ("title", "body")
    search_fields = ("title", "body")
    agent_can_add = True
    agent_can_change = True


@admin.register(AgentPresence)
class AgentPresenceAdmin(TenantScopedAdmin):
    list_display = ("user", "status", "capacity", "updated_at")
    list_filter = ("status",)
