"""Shapes of the conversations endpoints (read-only, except the reply's body)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from tulia.conversations.models import Conversation, OutboundMessage
from tulia.handoff.api import TicketSerializer


class ConversationFilterSerializer(serializers.Serializer[dict[str, Any]]):
    status = serializers.ChoiceField(choices=Conversation.Status.choices, required=False)
    waiting = serializers.BooleanField(required=False, allow_null=True, default=None)


class ConversationSerializer(serializers.ModelSerializer[Conversation]):
    customer_phone = serializers.CharField(source="customer.phone_e164", read_only=True)
    customer_name = serializers.CharField(source="customer.display_name", read_only=True)

    class Meta:
        model = Conversation
        fields = [
            "id", "status", "customer_id", "customer_phone", "customer_name", "turn_count",
            "last_inbound_at", "created_at", "updated_at",
        ]  # fmt: skip
        read_only_fields = fields


class EngineStateSerializer(serializers.Serializer[dict[str, Any]]):
    journey = serializers.CharField(allow_null=True)
    journey_step = serializers.CharField(allow_null=True)
    response_language = serializers.CharField(allow_null=True)
    cart = serializers.ListField(child=serializers.DictField(), allow_null=True)
    order_id = serializers.CharField(allow_null=True)
    order_totals = serializers.DictField(allow_null=True)
    payment_status = serializers.CharField(allow_null=True)


class ConversationStateSerializer(ConversationSerializer):
    in_reply_window = serializers.BooleanField(
        help_text="Inside WhatsApp's 24-hour window a reply goes as typed; outside it only "
        "as the shop's approved agent-reply template, or it is recorded as not sent."
    )
    engine = EngineStateSerializer()
    tickets = TicketSerializer(many=True)

    class Meta(ConversationSerializer.Meta):
        fields = [*ConversationSerializer.Meta.fields, "in_reply_window", "engine", "tickets"]


class ConversationMessageSerializer(serializers.Serializer[dict[str, Any]]):
    direction = serializers.ChoiceField(choices=["customer", "shop"])
    id = serializers.IntegerField(source="message_id")
    body = serializers.CharField(source="text")
    at = serializers.DateTimeField()
    status = serializers.CharField(source="delivery")
    purpose = serializers.CharField(source="reply_purpose", help_text="Why the shop sent it")
    error = serializers.CharField(source="problem", help_text="Why it was not sent, if not")


class ReplyRequestSerializer(serializers.Serializer[dict[str, Any]]):
    body = serializers.CharField(max_length=1500, trim_whitespace=True)


class SentMessageSerializer(serializers.ModelSerializer[OutboundMessage]):
    class Meta:
        model = OutboundMessage
        fields = ["id", "body", "status", "purpose", "content_sid", "error_message"]
        read_only_fields = fields


class ReplySerializer(serializers.Serializer[dict[str, Any]]):
    ticket = TicketSerializer()
    messages = SentMessageSerializer(many=True)
