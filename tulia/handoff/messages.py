"""What the customer is told when handed over: honest about hours, people and waits.

The graph's handoff_message node may rephrase these; it must keep the facts (no agent
promised when none is there, the queue position and the estimate as computed).
"""

from __future__ import annotations

from datetime import datetime

from tulia.handoff.policy import Assignment, Outcome

_TEXT: dict[str, dict[str, str]] = {
    "en": {
        Outcome.RECONNECTED: "I'm connecting you back to {agent}, who helped you before.",
        Outcome.QUEUED: (
            "I've passed this to our team. You're number {position} in the queue; "
            "the wait is about {minutes} minutes."
        ),
        Outcome.AFTER_HOURS: "Our team is not working right now{opening}.",
        Outcome.NO_AGENTS: "Nobody from our team is available right now.",
        "logged": " I've logged your request and a person will reply as soon as they can.",
        "not_logged": " Please write again later; I can keep helping in the meantime.",
        "opens": " (we open {when})",
    },
    "sw": {
        Outcome.RECONNECTED: "Nakuunganisha tena na {agent}, aliyekusaidia awali.",
        Outcome.QUEUED: (
            "Nimepeleka ombi lako kwa timu yetu. Wewe ni nambari {position} kwenye foleni; "
            "utasubiri kama dakika {minutes}."
        ),
        Outcome.AFTER_HOURS: "Timu yetu haifanyi kazi sasa hivi{opening}.",
        Outcome.NO_AGENTS: "Hakuna mtu wa timu yetu anayepatikana sasa hivi.",
        "logged": " Nimeandika ombi lako na mtu atakujibu haraka iwezekanavyo.",
        "not_logged": " Tafadhali andika tena baadaye; naweza kuendelea kukusaidia.",
        "opens": " (tunafungua {when})",
    },
    # Nairobi Sheng as customers write it: Swahili grammar, English nouns (team, queue).
    "sheng": {
        Outcome.RECONNECTED: "Nakurudisha kwa {agent}, yule alikusaidia last time.",
        Outcome.QUEUED: (
            "Nimepeleka hii kwa team yetu. Uko namba {position} kwa queue; "
            "utangoja kama dakika {minutes}."
        ),
        Outcome.AFTER_HOURS: "Team yetu iko off saa hii{opening}.",
        Outcome.NO_AGENTS: "Hakuna mtu wa team yetu yuko online saa hii.",
        "logged": " Nimeandika request yako, mtu atakujibu akipata nafasi.",
        "not_logged": " Tafadhali tuandikie baadaye; bado naeza kukusaidia saa hii.",
        "opens": " (tunafungua {when})",
    },
}


def _templates(language: str) -> dict[str, str]:
    return _TEXT.get(language, _TEXT["en"])


def customer_message(
    assignment: Assignment,
    *,
    language: str,
    ticket_opened: bool,
    agent_name: str = "",
    next_opening: datetime | None = None,
) -> str:
    text = _templates(language)
    if assignment.outcome is Outcome.RECONNECTED:
        return text[Outcome.RECONNECTED].format(agent=agent_name or "our agent")
    if assignment.outcome is Outcome.QUEUED:
        return text[Outcome.QUEUED].format(
            position=assignment.queue_position, minutes=assignment.estimated_wait_minutes
        )
    opening = ""
    if assignment.outcome is Outcome.AFTER_HOURS and next_opening is not None:
        opening = text["opens"].format(when=next_opening.strftime("%a %H:%M"))
    head = text[assignment.outcome].format(opening=opening)
    return head + text["logged" if ticket_opened else "not_logged"]
