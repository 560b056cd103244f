"""Tenant API for campaigns and the shop's messaging settings (quiet hours, nudges).

Registered on the tenant API router (tulia/api/urls.py):
    router.register("campaigns", CampaignViewSet, basename="campaign")
    path("messaging/settings/", MessagingSettingsView.as_view())

A campaign is created as a draft, previewed (recipients and cost), then sent now or at
a time (a time without an offset is the shop's local time); pause, resume and cancel
answer 409 when the campaign's status does not allow them.
"""

from __future__ import annotations

import re
from datetime import datetime, time
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from drf_spectacular.utils import extend_schema, extend_schema_field
from pydantic import ValidationError as SegmentError
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from tenants.models import WhatsAppSender
from tulia.api.authentication import TenantScoped
from tulia.api.errors import Conflict
from tulia.campaigns import audience, control, schedule, stats
from tulia.campaigns.models import Campaign, CampaignEvent, MessagingSettings
from tulia.campaigns.tasks import start_now
from tulia.whatsapp.models import MessageTemplate

MARKETING = MessageTemplate.Category.MARKETING


def _segment(value: Any) -> dict[str, Any]:
    try:
        return audience.parse(value).model_dump(mode="json", exclude_defaults=True)
    except SegmentError as exc:
        raise serializers.ValidationError(
            [f"{'.'.join(map(str, e['loc'])) or 'audience'}: {e['msg']}" for e in exc.errors()]
        ) from exc


class CampaignSerializer(serializers.ModelSerializer[Campaign]):
    template_id = serializers.IntegerField(help_text="An approved marketing template")
    sender_id = serializers.IntegerField(help_text="The shop's WhatsApp number that sends it")
    variables = serializers.DictField(
        child=serializers.CharField(max_length=300), required=False, default=dict
    )
    audience = serializers.JSONField(
        required=False, default=dict, help_text="Segment filters (tags, languages, …)"
    )

    class Meta:
        model = Campaign
        fields = (
            "id", "name", "template_id", "sender_id", "variables", "audience", "rate_per_second",
            "attribution_days", "status", "scheduled_at", "pause_reason", "created_at",
            "started_at", "finished_at",
        )  # fmt: skip
        read_only_fields = (
            "status", "scheduled_at", "pause_reason", "created_at", "started_at", "finished_at",
        )  # fmt: skip

    def validate_audience(self, value: Any) -> dict[str, Any]:
        return _segment(value)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        tenant_id = self.context["tenant_id"]
        if "template_id" in attrs:
            template = MessageTemplate.objects.filter(
                tenant_id=tenant_id, pk=attrs["template_id"]
            ).first()
            if template is None or template.category != MARKETING:
                raise serializers.ValidationError({"template_id": "not a marketing template"})
            numbers = set(template.examples)
            if set(attrs.get("variables", {})) != numbers:
                wanted = ", ".join(sorted(numbers)) or "none"
                raise serializers.ValidationError({"variables": f"give exactly: {wanted}"})
        if "sender_id" in attrs:
            exists = WhatsAppSender.objects.filter(tenant_id=tenant_id, pk=attrs["sender_id"])
            if not exists.exists():
                raise serializers.ValidationError({"sender_id": "not one of this shop's numbers"})
        return attrs


class CampaignPreviewSerializer(serializers.Serializer[Any]):
    recipients = serializers.IntegerField()
    cost_kes = serializers.DecimalField(max_digits=14, decimal_places=2)
    price_kes = serializers.DecimalField(max_digits=8, decimal_places=4)


class CampaignAudienceSerializer(serializers.Serializer[Any]):
    audience = serializers.JSONField(default=dict)

    def validate_audience(self, value: Any) -> dict[str, Any]:
        return _segment(value)


class CampaignSendSerializer(serializers.Serializer[Any]):
    scheduled_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="When to send (without an offset: shop time); omit to send now",
    )


class CampaignStatsSerializer(serializers.Serializer[Any]):
    queued = serializers.IntegerField()
    sending = serializers.IntegerField()
    sent = serializers.IntegerField()
    skipped = serializers.IntegerField()
    failed = serializers.IntegerField()
    delivered = serializers.IntegerField()
    read = serializers.IntegerField()
    replies = serializers.IntegerField()
    opt_outs = serializers.IntegerField()
    orders = serializers.IntegerField()
    revenue_kes = serializers.DecimalField(max_digits=14, decimal_places=2)
    in_doubt_found = serializers.IntegerField()
    in_doubt_resent = serializers.IntegerField()
    lost = serializers.IntegerField()
    attribution_days = serializers.IntegerField()


class CampaignEventSerializer(serializers.ModelSerializer[CampaignEvent]):
    class Meta:
        model = CampaignEvent
        fields = ("created_at", "kind", "text")
        read_only_fields = fields


class CampaignViewSet(
    TenantScoped,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = CampaignSerializer
    queryset = Campaign.objects.none()  # for the schema only; see get_queryset

    def get_queryset(self) -> QuerySet[Campaign]:
        return Campaign.objects.filter(tenant_id=self.tenant_id()).order_by("-id")

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        if hasattr(self.request, "user"):
            context["tenant_id"] = getattr(self.request.user, "tenant_id", None)
        return context

    def perform_create(self, serializer: Any) -> None:
        serializer.save(tenant_id=self.tenant_id())

    def perform_update(self, serializer: Any) -> None:
        if serializer.instance.status != Campaign.Status.DRAFT:
            raise Conflict("only a draft campaign can be changed", "campaign_not_draft")
        serializer.save()

    def _price(self) -> Any:
        return schedule.messaging_settings(self.tenant_id()).price(MARKETING)

    @extend_schema(
        responses=CampaignPreviewSerializer, description="Who it reaches now, and the cost"
    )
    @action(detail=True, methods=["get"])
    def preview(self, request: Request, pk: str | None = None) -> Response:
        campaign = self.get_object()
        seen = audience.preview(self.tenant_id(), audience.parse(campaign.audience), self._price())
        return Response(CampaignPreviewSerializer(seen).data)

    @extend_schema(request=CampaignAudienceSerializer, responses=CampaignPreviewSerializer)
    @action(detail=False, methods=["post"], url_path="preview")
    def preview_audience(self, request: Request) -> Response:
        """Preview an audience before creating the campaign."""
        incoming = CampaignAudienceSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        segment = audience.parse(incoming.validated_data["audience"])
        return Response(
            CampaignPreviewSerializer(
                audience.preview(self.tenant_id(), segment, self._price())
            ).data
        )

    @extend_schema(responses=CampaignStatsSerializer, description="Live figures of the campaign")
    @action(detail=True, methods=["get"])
    def stats(self, request: Request, pk: str | None = None) -> Response:
        campaign = self.get_object()
        return Response(
            CampaignStatsSerializer(stats.campaign_stats(self.tenant_id(), campaign.pk)).data
        )

    @extend_schema(
        responses=CampaignEventSerializer(many=True), description="What the shop was told"
    )
    @action(detail=True, methods=["get"])
    def events(self, request: Request, pk: str | None = None) -> Response:
        campaign = self.get_object()
        rows = CampaignEvent.objects.filter(tenant_id=self.tenant_id(), campaign_id=campaign.pk)
        return Response(CampaignEventSerializer(rows[:200], many=True).data)

    def _step(self, step: Any, *args: Any) -> Response:
        campaign = self.get_object()
        moved = step(self.tenant_id(), campaign.pk, *args)  # a refusal: tulia.api.errors
        return Response(self.get_serializer(moved).data)

    @extend_schema(request=CampaignSendSerializer, responses={200: CampaignSerializer, 409: None})
    @action(detail=True, methods=["post"])
    def send(self, request: Request, pk: str | None = None) -> Response:
        incoming = CampaignSendSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        when: datetime | None = incoming.validated_data["scheduled_at"]
        if when is not None and timezone.is_naive(when):
            when = timezone.make_aware(when, schedule.shop_zone(self.tenant_id()))
        response = self._step(control.schedule, when)
        if when is None or when <= timezone.now():
            campaign_id = response.data["id"]
            tenant_id = self.tenant_id()
            # After the view's transaction commits, or the runner would not see it.
            transaction.on_commit(lambda: start_now(tenant_id, campaign_id))
        return response

    @extend_schema(request=None, responses={200: CampaignSerializer, 409: None})
    @action(detail=True, methods=["post"])
    def pause(self, request: Request, pk: str | None = None) -> Response:
        return self._step(control.pause)

    @extend_schema(request=None, responses={200: CampaignSerializer, 409: None})
    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str | None = None) -> Response:
        response = self._step(control.resume)
        tenant_id, campaign_id = self.tenant_id(), response.data["id"]
        transaction.on_commit(lambda: start_now(tenant_id, campaign_id))
        return response

    @extend_schema(request=None, responses={200: CampaignSerializer, 409: None})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        return self._step(control.cancel)


HOUR_MINUTE = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"


@extend_schema_field({"type": "string", "pattern": HOUR_MINUTE, "example": "21:00"})
class ShopTimeField(serializers.Field):
    """A time of day as HH:MM in the shop's timezone (JSON Schema's "time" needs an offset)."""

    default_error_messages = {"invalid": "give the time as HH:MM, e.g. 21:00"}

    def to_internal_value(self, data: Any) -> time:
        if not isinstance(data, str) or not re.fullmatch(HOUR_MINUTE, data):
            self.fail("invalid")
        return time(int(data[:2]), int(data[3:]))

    def to_representation(self, value: time) -> str:
        return value.strftime("%H:%M")


class MessagingSettingsSerializer(serializers.ModelSerializer[MessagingSettings]):
    quiet_from = ShopTimeField(required=False, help_text="Quiet hours start (HH:MM shop time)")
    quiet_until = ShopTimeField(required=False, help_text="…and end (HH:MM shop time)")

    class Meta:
        model = MessagingSettings
        exclude = ("id", "tenant")


class MessagingSettingsView(TenantScoped, GenericAPIView):
    """Quiet hours, preview prices and the nudges (each switched on here) with their cap."""

    serializer_class = MessagingSettingsSerializer
    queryset = MessagingSettings.objects.none()

    def get(self, request: Request) -> Response:
        return Response(self.get_serializer(schedule.messaging_settings(self.tenant_id())).data)

    def patch(self, request: Request) -> Response:
        current = schedule.messaging_settings(self.tenant_id())
        incoming = self.get_serializer(current, data=request.data, partial=True)
        incoming.is_valid(raise_exception=True)
        incoming.save()
        return Response(incoming.data)
