"""The one gate every outbound message passes: free-form, a template, or not sent.

WhatsApp accepts free-form text only within 24 hours of the customer's last message.
Outside that window only an approved template may go, sent by Content SID with the
facts as its variables, and only within the customer's consent and the sender's
messaging limit. When none of that works out the message is recorded as not sent,
with the reason, for the agent and the owner to see: never a silent failure.

`decide` answers for a purpose (payment_received, order_shipped…, or a reply that
has no template); `decide_template` for an explicit template (broadcasts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from django.utils import timezone

from tenants.accessors import get_customer, get_tenant
from tulia.conversations.models import Conversation
from tulia.whatsapp import consent, limits
from tulia.whatsapp.models import MessageTemplate
from tulia.whatsapp.purposes import purpose_for
from tulia.whatsapp.templates import approved_template

WINDOW = timedelta(hours=24)
# Twilio's code for "outside the window": recorded on messages the gate held back for
# the same reason, so one filter in admin finds both.
OUTSIDE_WINDOW = 63016
# Twilio refusals that mean "this needed an approved template and did not have one":
# 63016 outside the window (Meta 470); 63027 template missing for the language or
# paused/disabled (Meta 2001/2003); 63028 and 63029 variables do not fit the template
# (Meta 2000/2002); 63032 Meta would not deliver to this user (472); 63049 Meta chose
# not to deliver a marketing template. 21655/21656: the ContentSid or variables are
# invalid. All end as "not sent" with the reason, like the gate's own refusals.
TEMPLATE_REFUSALS = frozenset({OUTSIDE_WINDOW, 63027, 63028, 63029, 63032, 63049, 21655, 21656})
Kind = Literal["free_form", "template", "not_sent"]


@dataclass(frozen=True)
class Decision:
    kind: Kind
    reason: str = ""
    code: int | None = None
    template: MessageTemplate | None = None
    variables: dict[str, str] = field(default_factory=dict)


def in_window(conversation: Conversation, now: datetime | None = None) -> bool:
    last = conversation.last_inbound_at
    return last is not None and (now or timezone.now()) - last < WINDOW


def template_languages(conversation: Conversation) -> list[str]:
    """The customer's language first, then the shop's, then English (Sheng reads sw)."""
    customer = get_customer(conversation.tenant_id, conversation.customer_id)
    tenant = get_tenant(conversation.tenant_id)
    wanted = [customer.language_preference, tenant.default_language, "en"]
    ordered: list[str] = []
    for language in wanted:
        code = "sw" if language == "sheng" else language
        if code and code not in ordered:
            ordered.append(code)
    return ordered


def not_sent(reason: str, code: int | None = None) -> Decision:
    return Decision("not_sent", reason=reason, code=code)


def decide(
    conversation: Conversation,
    purpose: str,
    facts: dict[str, str] | None = None,
    now: datetime | None = None,
) -> Decision:
    """How a message for `purpose` may reach this conversation's customer right now."""
    if in_window(conversation, now):
        return Decision("free_form")
    spec = purpose_for(purpose)
    if spec is None:
        return not_sent(
            f"outside the 24-hour window, and a '{purpose}' message has no template", OUTSIDE_WINDOW
        )
    try:
        variables = spec.variables(facts or {})
    except ValueError as exc:
        return not_sent(f"outside the 24-hour window; {exc}", OUTSIDE_WINDOW)
    languages = template_languages(conversation)
    template = approved_template(conversation.tenant_id, purpose, languages)
    if template is None:
        return not_sent(
            f"outside the 24-hour window, and no approved '{purpose}' template "
            f"in {'/'.join(languages)}",
            OUTSIDE_WINDOW,
        )
    return decide_template(conversation, template, variables)


def decide_template(
    conversation: Conversation, template: MessageTemplate, variables: dict[str, str]
) -> Decision:
    """An explicit template: approved, consented to, and within the sender's limit."""
    if template.status != MessageTemplate.Status.APPROVED or not template.content_sid:
        return not_sent(f"template {template.name} is {template.status}, not approved")
    refused = consent.refusal(conversation.tenant_id, conversation.customer_id, template.category)
    if refused:
        return not_sent(f"{template.category} template not sent: {refused}")
    limit = limits.limit_for(conversation.tenant_id, conversation.sender_id, lock=True)
    refused = limits.refusal(limit, conversation.customer_id, template.category)
    if refused:
        return not_sent(refused)
    return Decision("template", template=template, variables=variables)
