"""Tenant API views: each scopes its queryset to the API key's tenant."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from tulia.api.authentication import TenantScoped
from tulia.api.serializers import (
    CatalogItemSerializer,
    ImportReportSerializer,
    ImportRequestSerializer,
    OfferSerializer,
    OrderMoveSerializer,
    OrderSerializer,
)
from tulia.commerce.import_rows import FileError
from tulia.commerce.importer import import_catalog
from tulia.commerce.indexing import schedule_indexing
from tulia.commerce.lifecycle import move_order
from tulia.commerce.models import CatalogItem, Offer, Order


class TenantViewSet(TenantScoped, viewsets.GenericViewSet):
    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        if self.request is not None and hasattr(self.request, "user"):
            context["tenant_id"] = getattr(self.request.user, "tenant_id", None)
        return context


class CatalogItemViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    TenantViewSet,
):
    serializer_class = CatalogItemSerializer
    queryset = CatalogItem.objects.none()  # for the schema only; see get_queryset

    def get_queryset(self) -> QuerySet[CatalogItem]:
        return (
            CatalogItem.objects.filter(tenant_id=self.tenant_id())
            .select_related("category")
            .prefetch_related("variants")
            .order_by("id")
        )

    def perform_destroy(self, instance: CatalogItem) -> None:
        # Ordered items must stay for order history: deleting only deactivates.
        instance.is_active = False
        instance.save(update_fields=["is_active", "updated_at"])

    @extend_schema(request=ImportRequestSerializer, responses=ImportReportSerializer)
    @action(detail=False, methods=["post"], url_path="import")
    def bulk_import(self, request: Request) -> Response:
        incoming = ImportRequestSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        try:
            data = incoming.validated_data
            report = import_catalog(self.tenant_id(), data["content"], data["format"])
        except FileError as exc:
            body = {"code": exc.code, "detail": exc.message}  # bad input: 400, not a refusal
            return Response(body, status=status.HTTP_400_BAD_REQUEST)
        body = ImportReportSerializer(
            {**report.__dict__, "ok": report.ok, "errors": [e.model_dump() for e in report.errors]}
        ).data
        return Response(body, status=status.HTTP_200_OK if report.ok else 400)

    def perform_create(self, serializer: Any) -> None:
        serializer.save()
        schedule_indexing(self.tenant_id(), [serializer.instance.pk])


class OrderViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, TenantViewSet):
    serializer_class = OrderSerializer
    queryset = Order.objects.none()  # for the schema only; see get_queryset

    def get_queryset(self) -> QuerySet[Order]:
        orders = Order.objects.filter(tenant_id=self.tenant_id())
        wanted = self.request.query_params.get("status")
        if wanted:
            orders = orders.filter(status=wanted)
        return orders.select_related("customer", "coupon").prefetch_related("lines").order_by("-id")

    @extend_schema(
        request=OrderMoveSerializer,
        responses={200: OrderSerializer, 404: None, 409: None},
        description="Move the order one lifecycle step (confirmed, packed, shipped with a "
        "tracking note, delivered, cancelled); the customer is told on WhatsApp. "
        "409 when the order's current status does not allow that step.",
    )
    @action(detail=True, methods=["post"])
    def move(self, request: Request, pk: str | None = None) -> Response:
        order = self.get_object()  # another tenant's order is a 404, like an absent one
        incoming = OrderMoveSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        moved = move_order(  # a step the status forbids is a 409 (tulia.api.errors)
            self.tenant_id(), order.pk, data["to"], actor=str(request.user), note=data["note"]
        )
        return Response(self.get_serializer(self.get_queryset().get(pk=moved.pk)).data)


class OfferViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    TenantViewSet,
):
    serializer_class = OfferSerializer
    queryset = Offer.objects.none()  # for the schema only; see get_queryset

    def get_queryset(self) -> QuerySet[Offer]:
        return Offer.objects.filter(tenant_id=self.tenant_id()).order_by("id")
