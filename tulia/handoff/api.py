"""Tenant REST API for an external helpdesk: the agent desk's operations over HTTP.

Each view resolves the caller's tenant from their staff membership, calls one desk
function and shapes the answer; domain errors become 404/409/422 with a stable code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID, uuid4

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.authentication import BasicAuthentication, SessionAuthentication
from rest_framework.exceptions import NotFound as HttpNotFound
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tenants.accessors import membership_of
from tenants.models import TenantMembership
from tenants.roles import role_may
from tulia.api.schema import DeskApiSchema
from tulia.handoff import desk, queries
from tulia.handoff.errors import actor_id
from tulia.handoff.models import HandoffTicket

ACTIONS = ["claim", "reply", "notes", "transfer", "hand-back", "resolve"]


class TicketSerializer(serializers.ModelSerializer[HandoffTicket]):
    customer_phone = serializers.CharField(source="customer.phone_e164", read_only=True)

    class Meta:
        model = HandoffTicket
        fields = [
            "id", "conversation_id", "customer_id", "customer_phone", "category", "priority",
            "reason", "status", "outcome", "assigned_to_id", "opened_at", "assigned_at",
            "resolved_at", "context",
        ]  # fmt: skip


class BodySerializer(serializers.Serializer[dict[str, Any]]):
    body = serializers.CharField(max_length=1500, trim_whitespace=True)


# Shapes for the OpenAPI schema of answers built from plain dicts.
class QueueRowSerializer(TicketSerializer):
    queue_position = serializers.IntegerField(allow_null=True)
    waiting_seconds = serializers.IntegerField()

    class Meta(TicketSerializer.Meta):
        fields = [*TicketSerializer.Meta.fields, "queue_position", "waiting_seconds"]


class EventSerializer(serializers.Serializer[dict[str, Any]]):
    kind = serializers.CharField()
    actor_id = serializers.IntegerField(allow_null=True)
    body = serializers.CharField()
    at = serializers.DateTimeField()


class MessageSerializer(serializers.Serializer[dict[str, Any]]):
    direction = serializers.CharField()
    body = serializers.CharField()
    at = serializers.CharField()


class TicketDetailSerializer(TicketSerializer):
    events = EventSerializer(many=True)
    messages = MessageSerializer(many=True)

    class Meta(TicketSerializer.Meta):
        fields = [*TicketSerializer.Meta.fields, "events", "messages"]


class CannedReplySerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    title = serializers.CharField()
    body = serializers.CharField()


class HandoffAPIView(APIView):
    authentication_classes = [SessionAuthentication, BasicAuthentication]
    schema = DeskApiSchema()

    def membership(self, request: Request) -> TenantMembership:
        membership = membership_of(request.user.pk) if request.user.is_authenticated else None
        if membership is None or not request.user.is_staff:
            raise PermissionDenied("only a tenant's staff can use the handoff desk")
        return membership

    def tenant_id(self, request: Request) -> UUID:
        return self.membership(request).tenant_id


class QueueView(HandoffAPIView):
    @extend_schema(operation_id="handoff_queue", responses=QueueRowSerializer(many=True))
    def get(self, request: Request) -> Response:
        entries = queries.queue(self.tenant_id(request))
        return Response(
            [
                {
                    **TicketSerializer(e.ticket).data,
                    "queue_position": e.position,
                    "waiting_seconds": e.waiting_seconds,
                }
                for e in entries
            ]
        )


class TicketView(HandoffAPIView):
    @extend_schema(operation_id="handoff_ticket", responses=TicketDetailSerializer)
    def get(self, request: Request, ticket_id: int) -> Response:
        tid = self.tenant_id(request)
        ticket = queries.ticket(tid, ticket_id)
        events = [
            {"kind": e.kind, "actor_id": e.actor_id, "body": e.body, "at": e.created_at}
            for e in queries.events(tid, ticket_id)
        ]
        messages = [m.model_dump() for m in queries.transcript(tid, ticket.conversation_id)]
        return Response({**TicketSerializer(ticket).data, "events": events, "messages": messages})


class TicketActionView(HandoffAPIView):
    """POST tickets/<id>/<action>/ for claim, reply, notes, transfer, hand-back, resolve."""

    @extend_schema(
        operation_id="handoff_ticket_action",
        parameters=[OpenApiParameter("action", str, "path", enum=ACTIONS)],
        request=BodySerializer,
        responses={200: TicketSerializer, 403: None, 404: None, 409: None, 422: None},
    )
    def post(self, request: Request, ticket_id: int, action: str) -> Response:
        membership = self.membership(request)
        tid, user_id = membership.tenant_id, actor_id(request.user)
        request_id = request.headers.get("X-Request-ID") or f"desk-{uuid4().hex}"
        operations: dict[str, Callable[[], Any]] = {
            "claim": lambda: desk.claim(tid, ticket_id, user_id),
            "transfer": lambda: desk.transfer(tid, ticket_id, user_id),
            "hand-back": lambda: desk.hand_back(tid, ticket_id, user_id),
            "resolve": lambda: desk.resolve(
                tid, ticket_id, user_id, close=bool(request.data.get("close"))
            ),
            "reply": lambda: desk.reply(tid, ticket_id, user_id, _body(request), request_id[:64]),
            "notes": lambda: desk.add_note(tid, ticket_id, user_id, _body(request)),
        }
        if action not in operations:
            raise HttpNotFound("unknown action")
        if not role_may(membership.role, _DESK_OPERATION[action]):
            raise PermissionDenied("your role may not do that")
        operations[action]()  # refusals: tulia.api.errors
        return Response(TicketSerializer(queries.ticket(tid, ticket_id)).data)


# URL spellings of the desk operations named in tenants/roles.py.
_DESK_OPERATION = {
    "claim": "handoff.desk.claim",
    "transfer": "handoff.desk.transfer",
    "hand-back": "handoff.desk.hand_back",
    "resolve": "handoff.desk.resolve",
    "reply": "handoff.desk.reply",
    "notes": "handoff.desk.note",
}


def _body(request: Request) -> str:
    serializer = BodySerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    return str(serializer.validated_data["body"])


class CannedRepliesView(HandoffAPIView):
    @extend_schema(
        operation_id="handoff_canned_replies", responses=CannedReplySerializer(many=True)
    )
    def get(self, request: Request) -> Response:
        replies = queries.canned_replies(self.tenant_id(request))
        return Response([{"id": r.pk, "title": r.title, "body": r.body} for r in replies])
