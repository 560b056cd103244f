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
from tulia.whatsapp.outbound import queue_reply

WINDOW = timedelta(hours=24)


class Notice(StrEnum):
    JOINED = "joined"
    BOT_BACK = "bot_back"


_TEXT = {
    "en": {
        Notice.JOINED: "{agent} from our team has joined the chat.",
        Notice.BOT_BACK: "Thanks for waiting. I'm the shop assistant again; let's carry on.",
    },
    "sw": {
        Notice.JOINED: "{agent} wa timu yetu amejiunga na mazungumzo.",
        Notice.BOT_BACK: "Asante kwa kusubiri. Mimi ni msaidizi wa duka tena; tuendelee.",
    },
}


def in_window(conversation: Conversation) -> bool:
    last = conversation.last_inbound_at
    return last is not None and timezone.now() - last <= WINDOW


def notice_text(notice: Notice, language: str, agent_name: str = "") -> str:
    templates = _TEXT.get(language, _TEXT["en"])
    return templates[notice].format(agent=agent_name or "Someone")


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
