"""Conversations for a shop's helpdesk: list, read, page through messages, reply.

Only keys with the conversations scope get in (403 otherwise); such a key is bound to a
staff login and its replies are that agent's, sent and audited by the desk itself.
"""

from __future__ import annotations

from typing import Any
from uuid import uuid4

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tulia.api.authentication import ApiClient
from tulia.api.conversation_serializers import (
    ConversationFilterSerializer,
    ConversationMessageSerializer,
    ConversationSerializer,
    ConversationStateSerializer,
    EngineStateSerializer,
    ReplyRequestSerializer,
    ReplySerializer,
)
from tulia.api.schema import TenantApiSchema
from tulia.api.views import TenantViewSet
from tulia.commerce.models import ApiScope
from tulia.conversations import queries
from tulia.conversations.agent_replies import reply_as_agent
from tulia.conversations.models import Conversation
from tulia.handoff.api import TicketSerializer


class HasConversationsScope(BasePermission):
    message = "this API key lacks the conversations scope"

    def has_permission(self, request: Request, view: APIView) -> bool:
        client = request.user
        return isinstance(client, ApiClient) and client.key.has_scope(ApiScope.CONVERSATIONS)


class ConversationsSchema(TenantApiSchema):
    write_refusals = ("409",)  # no open ticket, or another agent's

    def _error_codes(self) -> list[str]:
        codes = super()._error_codes()
        # A page past the end is a 404 (DRF's page-number pagination), lists included.
        return codes if "404" in codes else [*codes, "404"]


class Page(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


_FILTERS = [
    OpenApiParameter("status", str, enum=list(Conversation.Status.values)),
    OpenApiParameter("waiting", bool, description="Only (true) or never (false) waiting"),
]


class ConversationViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, TenantViewSet):
    permission_classes = [IsAuthenticated, HasConversationsScope]
    schema = ConversationsSchema()
    serializer_class = ConversationSerializer
    pagination_class = Page
    queryset = Conversation.objects.none()  # for the schema only; see get_queryset

    def get_queryset(self) -> QuerySet[Conversation]:
        filters = ConversationFilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        return queries.conversations(self.tenant_id(), **filters.validated_data)

    @extend_schema(parameters=_FILTERS)
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    @extend_schema(responses=ConversationStateSerializer)
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        summary = queries.state_summary(self.tenant_id(), self._pk())
        return Response(
            {
                **ConversationSerializer(summary.conversation).data,
                "in_reply_window": summary.in_reply_window,
                "engine": EngineStateSerializer(summary.engine).data,
                "tickets": TicketSerializer(summary.tickets, many=True).data,
            }
        )

    @extend_schema(responses=ConversationMessageSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=Page)
    def messages(self, request: Request, pk: str | None = None) -> Response:
        rows = queries.messages(self.tenant_id(), self._pk())
        page: Any = self.paginate_queryset(rows)
        return self.get_paginated_response(ConversationMessageSerializer(page, many=True).data)

    @extend_schema(
        request=ReplyRequestSerializer,
        responses={201: ReplySerializer},
        description="Send a reply as the key's agent. Replying to a waiting customer "
        "claims the ticket; outside WhatsApp's 24-hour window the shop's agent-reply "
        "template carries it, or the message is recorded as not sent with the reason. "
        "409 when no ticket is open (the bot has the chat).",
    )
    @action(detail=True, methods=["post"])
    def reply(self, request: Request, pk: str | None = None) -> Response:
        incoming = ReplyRequestSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        key = self._client().key
        if key.agent_id is None:
            raise PermissionDenied("this API key is not bound to an agent")
        request_id = request.headers.get("X-Request-ID") or f"api-{key.prefix}-{uuid4().hex}"
        # A desk refusal or an absent conversation is answered by tulia.api.errors.
        sent = reply_as_agent(
            self.tenant_id(),
            self._pk(),
            key.agent_id,
            incoming.validated_data["body"],
            request_id[:64],
        )
        body = {"ticket": sent.ticket, "messages": sent.messages}
        return Response(ReplySerializer(body).data, status=status.HTTP_201_CREATED)

    def _client(self) -> ApiClient:
        client = self.request.user
        assert isinstance(client, ApiClient)  # HasConversationsScope let only keys in
        return client

    def _pk(self) -> int:
        try:
            return int(self.kwargs["pk"])
        except (TypeError, ValueError) as exc:
            raise NotFound() from exc
