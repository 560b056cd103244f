"""Admin for campaigns (preview, live figures, what the owner was told) and nudges.

An owner drafts a campaign, reads the preview (how many opted-in customers, what it
costs in KES), then sends it now or at its scheduled time, in the shop's own timezone;
pause, resume and cancel are actions on the list. Agents see campaigns and may pause
one (stopping a mistake should not wait for the owner) but start nothing.
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from django.contrib import admin, messages
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from pydantic import ValidationError as SegmentError

from tenants.accessors import get_tenant
from tenants.admin_scoping import ReadOnlyScopedAdmin, TenantScopedAdmin, request_tenant_id
from tenants.roles import role_action
from tulia.campaigns import audience, control, schedule, stats
from tulia.campaigns.models import (
    Campaign,
    CampaignEvent,
    CampaignRecipient,
    MessagingSettings,
    Nudge,
    StockRequest,
)
from tulia.campaigns.tasks import start_now
from tulia.whatsapp.models import MessageTemplate

STAT_LABELS = (
    ("queued", "Queued"), ("sent", "Sent"), ("delivered", "Delivered"), ("read", "Read"),
    ("failed", "Failed"), ("skipped", "Skipped (consent, template…)"), ("replies", "Replies"),
    ("opt_outs", "Opt-outs"), ("orders", "Orders"), ("revenue_kes", "Revenue (KES)"),
    ("in_doubt_found", "In doubt, found at Twilio"), ("in_doubt_resent", "In doubt, resent"),
    ("lost", "Lost"),
)  # fmt: skip


def _each(
    request: HttpRequest, queryset: QuerySet[Campaign], step: Any, done: str
) -> list[Campaign]:
    moved = []
    for campaign in queryset:
        try:
            moved.append(step(campaign.tenant_id, campaign.pk))
        except control.CampaignStateError as exc:
            messages.error(request, f"{campaign.name}: {exc}")
    if moved:
        messages.success(request, f"{len(moved)} campaign(s) {done}.")
    return moved


def _start_after_commit(campaign: Campaign) -> None:
    tenant_id, campaign_id = campaign.tenant_id, campaign.pk
    transaction.on_commit(lambda: start_now(tenant_id, campaign_id))


class EventInline(admin.TabularInline):
    model = CampaignEvent
    fields = ("created_at", "kind", "text")
    readonly_fields = fields
    extra = 0
    can_delete = False
    verbose_name_plural = "What the owner was told"

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Campaign)
class CampaignAdmin(TenantScopedAdmin):
    list_display = ("name", "status", "template", "scheduled_at", "pause_reason")
    list_filter = ("status",)
    search_fields = ("name",)
    fields = (
        "name", "template", "sender", "variables", "audience", "scheduled_at",
        "rate_per_second", "attribution_days", "status", "pause_reason", "preview", "figures",
    )  # fmt: skip
    readonly_fields = ("status", "pause_reason", "preview", "figures")
    inlines = (EventInline,)
    actions = ("send", "pause", "resume", "cancel")

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        if field is not None and field.queryset is not None and db_field.name == "template":
            field.queryset = field.queryset.filter(
                category=MessageTemplate.Category.MARKETING, status=MessageTemplate.Status.APPROVED
            )
        return field

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        # Times are read and shown in the shop's timezone, not the server's.
        tenant_id = request_tenant_id(request)
        if tenant_id is not None:
            timezone.activate(ZoneInfo(get_tenant(tenant_id).timezone))
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        finally:
            timezone.deactivate()

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = tuple(super().get_readonly_fields(request, obj))
        if obj is not None and obj.status != Campaign.Status.DRAFT:
            # What goes out, and to whom, is fixed once the campaign is scheduled.
            fields += ("name", "template", "sender", "variables", "audience", "scheduled_at")
        return fields

    @admin.display(description=_("Preview"))
    def preview(self, obj: Campaign) -> str:
        if obj.pk is None:
            return "Save the draft to see how many customers it reaches and what it costs."
        try:
            segment = audience.parse(obj.audience)
        except SegmentError as exc:
            return f"The audience is not valid: {exc.errors()[0]['msg']}"
        price = schedule.messaging_settings(obj.tenant_id).price(MessageTemplate.Category.MARKETING)
        seen = audience.preview(obj.tenant_id, segment, price)
        return (
            f"{seen.recipients} opted-in customers; about KES {seen.cost_kes} "
            f"at KES {seen.price_kes} a marketing message"
        )

    @admin.display(description=_("Live figures"))
    def figures(self, obj: Campaign) -> str:
        if obj.pk is None:
            return "-"
        numbers = stats.campaign_stats(obj.tenant_id, obj.pk)
        rows = ((label, numbers[key]) for key, label in STAT_LABELS)
        return format_html(
            "<table>{}</table>", format_html_join("", "<tr><th>{}</th><td>{}</td></tr>", rows)
        )

    @role_action("campaigns.campaign.send", description="Send (now, or at the scheduled time)")
    def send(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        def go(tenant_id: Any, campaign_id: int) -> Campaign:
            found = queryset.get(pk=campaign_id)
            return control.schedule(tenant_id, campaign_id, found.scheduled_at)

        for campaign in _each(request, queryset, go, "scheduled"):
            if campaign.scheduled_at and campaign.scheduled_at <= timezone.now():
                _start_after_commit(campaign)

    @role_action("campaigns.campaign.pause", description="Pause")
    def pause(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        _each(request, queryset, control.pause, "paused")

    @role_action("campaigns.campaign.resume", description="Resume")
    def resume(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        for campaign in _each(request, queryset, control.resume, "resumed"):
            _start_after_commit(campaign)

    @role_action("campaigns.campaign.cancel", description="Cancel (the rest are not sent)")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        _each(request, queryset, control.cancel, "cancelled")


@admin.register(CampaignRecipient)
class CampaignRecipientAdmin(ReadOnlyScopedAdmin):
    list_display = ("campaign", "customer", "status", "doubt", "reason", "sent_at")
    list_filter = ("status", "doubt")
    search_fields = ("customer__phone_e164", "campaign__name")
    list_select_related = ("campaign", "customer")
    exclude = ("tenant",)


@admin.register(MessagingSettings)
class MessagingSettingsAdmin(TenantScopedAdmin):
    """Quiet hours, prices for previews, and the nudges with their cap."""

    exclude = ("tenant",)


@admin.register(Nudge)
class NudgeAdmin(ReadOnlyScopedAdmin):
    list_display = ("created_at", "kind", "subject", "customer", "outcome")
    list_filter = ("kind",)
    list_select_related = ("customer",)
    exclude = ("tenant",)


@admin.register(StockRequest)
class StockRequestAdmin(ReadOnlyScopedAdmin):
    list_display = ("created_at", "customer", "item", "notified_at")
    list_select_related = ("customer", "item")
    exclude = ("tenant",)
