"""Tenant API for returns and refunds: the shop's system does what staff do in admin.

Registered on the tenant API router (tulia/api/urls.py):
    router.register("returns", ReturnRequestViewSet, basename="return-request")

List and read return requests (with their refunds), approve or reject one, record the
item back, and refund it by the method paid. The customer is told each step on
WhatsApp (tulia/returns/decisions.py). A step the request's state does not allow
answers 409 in the API's one error shape; another shop's request is a 404.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from payments.models import Refund
from tulia.api.errors import Conflict
from tulia.api.views import TenantViewSet
from tulia.errors import DomainError
from tulia.observability.tracing import current_request_id as request_id
from tulia.returns import decisions
from tulia.returns.models import ReturnRequest


class RefundSerializer(serializers.ModelSerializer[Refund]):
    class Meta:
        model = Refund
        fields = (
            "id", "amount", "method", "status", "needs_attention", "result_note", "created_at",
            "completed_at",
        )  # fmt: skip
        read_only_fields = fields


class ReturnRequestSerializer(serializers.ModelSerializer[ReturnRequest]):
    order_reference = serializers.CharField(source="order.reference", read_only=True)
    refunds = serializers.SerializerMethodField()

    class Meta:
        model = ReturnRequest
        fields = (
            "id", "order", "order_reference", "action", "skus", "wanted", "reason_text",
            "verdict", "decision", "decided_by", "decided_at", "received_at", "created_at",
            "refunds",
        )  # fmt: skip
        read_only_fields = fields

    @extend_schema(responses=RefundSerializer(many=True))
    def get_refunds(self, request: ReturnRequest) -> list[dict[str, Any]]:
        rows = Refund.objects.filter(
            tenant_id=request.tenant_id, idempotency_key=f"return:{request.pk}"
        )
        return list(RefundSerializer(rows, many=True).data)


DECISIONS = {"pending": "", "approved": "approved", "rejected": "rejected"}
STEP = {200: ReturnRequestSerializer, 404: None, 409: None}


class ReturnRequestViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, TenantViewSet):
    serializer_class = ReturnRequestSerializer
    queryset = ReturnRequest.objects.none()  # for the schema only; see get_queryset

    def get_queryset(self) -> QuerySet[ReturnRequest]:
        found = ReturnRequest.objects.filter(tenant_id=self.tenant_id())
        wanted = self.request.query_params.get("decision")
        if wanted in DECISIONS:
            found = found.filter(decision=DECISIONS[wanted])
        return found.select_related("order").order_by("-id")

    @extend_schema(
        parameters=[OpenApiParameter("decision", str, enum=list(DECISIONS), required=False)]
    )
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    def _step(self, decided: str | None = None, *, received: bool = False) -> Response:
        """One staff step; asked twice it answers the same, against the state it is 409."""
        found = self.get_object()  # another tenant's request is a 404, like an absent one
        actor, tid = str(self.request.user), self.tenant_id()
        if decided is not None:
            try:
                decisions.decide(tid, found.pk, approve=decided == "approved", actor=actor)
            except DomainError as exc:
                # Answered, not raised: the customer's "not in stock" notice must commit.
                body = {"detail": exc.message, "code": exc.code, "request_id": request_id()}
                return Response(body, status=409)
        if received:
            decisions.mark_received(tid, found.pk, actor=actor)
        found = self.get_queryset().get(pk=found.pk)
        if decided is not None and found.decision != decided:
            raise Conflict(f"return {found.pk} is already {found.decision}", "already_decided")
        if received and found.received_at is None:
            raise Conflict(f"return {found.pk} is not approved", "not_approved")
        return Response(self.get_serializer(found).data)

    @extend_schema(request=None, responses=STEP, description="Approve; the customer is told.")
    @action(detail=True, methods=["post"])
    def approve(self, request: Request, pk: str | None = None) -> Response:
        return self._step("approved")

    @extend_schema(request=None, responses=STEP, description="Reject; the customer is told.")
    @action(detail=True, methods=["post"])
    def reject(self, request: Request, pk: str | None = None) -> Response:
        return self._step("rejected")

    @extend_schema(
        request=None, responses=STEP, description="The item is back in the shop (approved only)."
    )
    @action(detail=True, methods=["post"])
    def receive(self, request: Request, pk: str | None = None) -> Response:
        return self._step(received=True)

    @extend_schema(
        request=None,
        responses={200: RefundSerializer, 404: None, 409: None},
        description="Refund an approved return by the method paid, once (asked again, the "
        "same refund answers). Card and M-Pesa refunds start as requested/submitted; the "
        "customer is told when the provider confirms.",
    )
    @action(detail=True, methods=["post"])
    def refund(self, request: Request, pk: str | None = None) -> Response:
        found = self.get_object()
        made = decisions.refund(self.tenant_id(), found.pk, actor=str(request.user))
        return Response(RefundSerializer(Refund.objects.get(pk=made.pk)).data)
