"""LLM phrasing of the text nodes' replies (SPEC §5.4: text nodes only phrase given facts).

The template rendering stays the source of truth. In `llm` mode the model receives the
template reply, this turn's tool outputs, the reply language and the node, and may only
reword it; `journeys.guard.phrasing_problems` then checks the result (amounts grounded in
the tool outputs; links, order references, numbered options and numbers kept; sane
length). Any problem, or any failed call, and the template is sent as it was.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from journeys.guard import phrasing_problems
from journeys.llm.gateway import LLMGateway
from journeys.llm.prompts import PHRASE_TEXT_NODE, fence

logger = logging.getLogger("tulia.llm")

# journey_step -> (graph nodes that set it, the text node whose template wrote the reply).
# The step outlives its turn, so the journey's node must also be on this turn's path.
TEXT_NODE_STEPS: Mapping[str, tuple[frozenset[str], str]] = {
    "sales.search": (frozenset({"sales", "unknown"}), "catalog_present_options"),
    "sales.present": (frozenset({"sales", "unknown"}), "catalog_present_options"),
    "sales.variant": (frozenset({"sales"}), "product_disambiguate"),
    "sales.quantity": (frozenset({"sales"}), "product_disambiguate"),
    "support.answered": (frozenset({"support"}), "support_rag_answer"),
    "support.offer_handoff": (frozenset({"support"}), "support_rag_answer"),
    "offers.list": (frozenset({"offers"}), "offers_answer"),
    "orders.status": (frozenset({"orders"}), "order_status_response"),
    "prefs.consent": (frozenset({"prefs", "record_consent"}), "prefs_consent_response"),
    "prefs.update": (frozenset({"prefs"}), "prefs_consent_response"),
    "handoff": (frozenset({"escalate"}), "handoff_message"),
}
TEXT_NODES = frozenset(node for _, node in TEXT_NODE_STEPS.values())
LANGUAGE_NAMES = {
    "en": "English",
    "sw": "Swahili",
    "sheng": "Sheng (Nairobi street Swahili-English)",
    "mixed": "the customer's mix of English and Swahili",
}
MAX_FACT_CHARS = 4000
# Fields about the customer as a person: the wording needs none of them, and the
# provider should not see them. Any key mentioning a phone number goes too.
_PERSONAL = frozenset({"customer_id", "display_name", "tags", "language_preference"})

Source = Literal["template", "llm", "fallback"]


@dataclass(frozen=True, slots=True)
class Phrased:
    text: str
    source: Source
    called: bool = False
    outcome: str = "not_needed"


def text_node(state: Mapping[str, Any]) -> str | None:
    """The text node whose template produced this turn's reply, if one did."""
    step = state.get("journey_step")
    found = TEXT_NODE_STEPS.get(step) if isinstance(step, str) else None
    if found is None:
        return None
    nodes, node = found
    return node if nodes & set(state.get("graph_path", [])) else None


def _public(fact: object) -> object:
    if isinstance(fact, Mapping):
        return {
            k: _public(v) for k, v in fact.items() if k not in _PERSONAL and "phone" not in str(k)
        }
    if isinstance(fact, Sequence) and not isinstance(fact, str | bytes):
        return [_public(v) for v in fact]
    return fact


def phrase_request(node: str, template: str, facts: Sequence[Any], language: str) -> str:
    """The model's input: node, language, the reply to reword, the facts behind it."""
    shown = json.dumps(_public(list(facts)), ensure_ascii=False, default=str)
    return "\n".join(
        [
            f"Node: {node}",
            f"Language: {LANGUAGE_NAMES.get(language, LANGUAGE_NAMES['en'])}",
            "Reply to reword:",
            fence(template),
            "Facts (tool outputs of this turn, JSON):",
            fence(shown[:MAX_FACT_CHARS]),
        ]
    )


def phrase_reply(
    gateway: LLMGateway,
    *,
    node: str,
    template: str,
    facts: Sequence[Any],
    language: str,
) -> Phrased:
    """The model's wording if it passes every check, else the template."""
    request = phrase_request(node, template, facts, language)
    attempt = gateway.text(node, PHRASE_TEXT_NODE, request)
    if attempt.value is None:
        return Phrased(template, "fallback", attempt.called, attempt.outcome)
    problems = phrasing_problems(attempt.value, template, facts)
    if problems:
        logger.info("phrasing of %s rejected: %s", node, ",".join(problems))
        return Phrased(template, "fallback", called=True, outcome="rejected:" + problems[0])
    return Phrased(attempt.value, "llm", called=True, outcome="ok")


def phrase_turn(
    reply: str,
    node: str | None,
    *,
    state: Mapping[str, Any],
    tenant_id: str,
    gateway: LLMGateway | None,
    facts: Sequence[Any],
) -> Phrased:
    """The turn's reply: reworded by the model in llm mode when a text node wrote it."""
    if node is None or gateway is None or not gateway.settings.phrases_text:
        return Phrased(reply, "template")
    if gateway.tenant_id is None:  # bill the call and pick the model by the tenant's plan
        gateway = gateway.for_tenant(tenant_id)
    language = str(state.get("response_language") or "en")
    return phrase_reply(gateway, node=node, template=reply, facts=facts, language=language)
