"""Support journey: answer from the shop's own documents, citing them, or say so.

kb_retrieve decides NO_CONTEXT; the answer quotes its passages and names their
titles. Without context the bot asks for a detail and offers a person; a second
unanswered question in a row opens a ticket (missing authoritative info, SPEC §5.5).
"""

from __future__ import annotations

from journeys.context import RunContext
from journeys.flows.common import FlowTurn
from journeys.flows.state import FlowState
from journeys.nodes.deps import EngineDeps
from journeys.state import KbSnippet
from journeys.templates.text_nodes import SnippetFact, support_rag_answer
from journeys.tooling import KB_RETRIEVE
from kb.tools.kb_retrieve import KbHit

MAX_MISSES = 2
MAX_SNIPPETS = 3


def support(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    turn = FlowTurn(state, ctx)
    turn.set(journey="support")
    found = turn.tool(KB_RETRIEVE, customer=False, query=turn.text or "help")
    if not found.ok:
        return turn.reply(turn.say("tool_failed"))
    hits = found.output.hits[:MAX_SNIPPETS]
    if found.output.no_context or not hits:
        return _no_context(turn)
    snippets = [SnippetFact(title=h.title, text=h.text) for h in hits]
    kept: list[KbSnippet] = [_snippet(h) for h in hits]
    turn.set(support={"snippets": kept, "misses": 0}, journey_step="support.answered")
    answer = support_rag_answer(turn.key, turn.language, snippets=snippets)
    return turn.reply(_with_resume_hint(turn, answer))


def _snippet(hit: KbHit) -> KbSnippet:
    """The passage as the tool's JSON gives it, to remember."""
    return {
        "title": hit.title,
        "section": hit.section,
        "document_type": hit.document_type,
        "score": hit.score,
        "text": hit.text,
        "chunk_id": hit.chunk_id,
    }


def _no_context(turn: FlowTurn) -> FlowState:
    misses = turn.state["support"]["misses"] + 1
    turn.set(support={"snippets": [], "misses": misses})
    if misses >= MAX_MISSES:
        turn.set(
            escalation={
                "category": "missing_info",
                "reason": "the shop's documents do not answer the question",
            },
        )
        return turn.reply(None)  # the graph hands over to `escalate`
    turn.set(journey_step="support.offer_handoff", awaiting_answer=True)
    text = support_rag_answer(turn.key, turn.language, snippets=[])
    return turn.reply(_with_resume_hint(turn, text))


def _with_resume_hint(turn: FlowTurn, text: str) -> str:
    """A detour from a sale ends with a pointer back to it: the cart is kept."""
    if not turn.sale["step"]:
        return text
    return f"{text}\n\n{turn.say('resume_hint')}"
