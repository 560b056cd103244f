"""handoff_create_ticket tells the customer in the language of the turn being answered.

The conversation's stored state holds the previous turn's language (English here);
a customer who just switched to Kiswahili or Sheng must not get the English text, and a
Sheng customer gets Sheng, not Kiswahili.
"""

from __future__ import annotations

import pytest

from tenants.context import tenant_context
from tools.runner import call_tool
from tulia.conversations.models import Conversation

pytestmark = pytest.mark.django_db

ENGLISH_NOBODY = "Nobody from our team"
SWAHILI_NOBODY = "Hakuna mtu wa timu yetu"
SHENG_NOBODY = "Hakuna mtu wa team yetu"


def _ask(tenant, conversation, **extra: object):
    payload = {
        "tenant_id": str(tenant.id),
        "request_id": "req-lang",
        "conversation_id": conversation.pk,
        "reason": "customer asked for a person",
        "category": "human_request",
        **extra,
    }
    result = call_tool("handoff_create_ticket", payload)
    assert result.output is not None, result.error
    return result.output


@pytest.fixture
def english_state(tenant, conversation) -> Conversation:
    with tenant_context(tenant.id):
        Conversation.objects.filter(pk=conversation.pk).update(state={"response_language": "en"})
    return conversation


def test_without_a_language_the_stored_one_is_used(tenant, english_state) -> None:
    assert ENGLISH_NOBODY in _ask(tenant, english_state).message


@pytest.mark.parametrize(("language", "nobody"), [("sw", SWAHILI_NOBODY), ("sheng", SHENG_NOBODY)])
def test_the_turns_language_wins_over_the_stored_one(
    tenant, english_state, language, nobody
) -> None:
    message = _ask(tenant, english_state, language=language).message
    assert nobody in message
    assert ENGLISH_NOBODY not in message


def test_the_same_ticket_whatever_the_language(tenant, english_state) -> None:
    first = _ask(tenant, english_state, language="en")
    again = _ask(tenant, english_state, language="sw")
    assert first.ticket_id == again.ticket_id
    assert SWAHILI_NOBODY in again.message


def test_an_unsupported_language_is_invalid_input(tenant, english_state) -> None:
    payload = {
        "tenant_id": str(tenant.id),
        "request_id": "req-lang",
        "conversation_id": english_state.pk,
        "reason": "x",
        "category": "human_request",
        "language": "fr",
    }
    result = call_tool("handoff_create_ticket", payload)
    assert result.error is not None
    assert result.error.code == "invalid_input"
