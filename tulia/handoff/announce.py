"""Telling the customer who they are talking to when a person joins or leaves.

Sent only inside WhatsApp's 24-hour window (outside it a free-form message would be
refused by WhatsApp); skipping it never blocks the agent's action.
"""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum

from django.contrib.auth import get_user_model
from django.utils import timezone

from tulia.conversations.models import Conversation
from tulia.handoff.names import public_name
from tulia.text import say
from tulia.whatsapp.outbound import queue_reply

WINDOW = timedelta(hours=24)


class Notice(StrEnum):
    JOINED = "joined"
    BOT_BACK = "bot_back"


def in_window(conversation: Conversation) -> bool:
    last = conversation.last_inbound_at
    return last is not None and timezone.now() - last <= WINDOW


def notice_text(notice: Notice, language: str, agent_name: str = "") -> str:
    agent = agent_name or say("handoff.someone", language)
    return say(f"handoff.{notice.value}", language, agent=agent)


def announce(conversation: Conversation, notice: Notice, agent_id: int | None = None) -> bool:
    """Queue the notice in the caller's transaction; False when outside the window."""
    if not in_window(conversation):
        return False
    users = get_user_model().objects.select_related("tenant_membership")
    agent = users.filter(pk=agent_id).first() if agent_id else None
    name = public_name(agent)  # never the login: customers see the display name
    language = str((conversation.state or {}).get("response_language") or "en")
    body = notice_text(notice, language, name)
    queue_reply(conversation.tenant_id, conversation.pk, [body], f"handoff-{notice.value}")
    return True
