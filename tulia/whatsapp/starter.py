"""CUSTOMER-FACING TEXT: the starter WhatsApp templates every shop gets, in en and sw.

Kept in this one clearly marked place until the journeys text catalog can hold
template bodies too. Each body follows WhatsApp's rules: numbered variables in the
order of `purposes.PURPOSES[key].facts`, never at the start or end, never adjacent.
`{shop}` is the shop's name, written in when the template is created.
"""

from __future__ import annotations

from tulia.whatsapp import purposes as p

STARTER_BODIES: dict[str, dict[str, str]] = {
    p.PAYMENT_RECEIVED: {
        "en": "{shop}: payment received. KES {{2}} for order {{1}}, M-Pesa receipt {{3}}. "
        "Thank you for shopping with us.",
        "sw": "{shop}: malipo yamepokelewa. KES {{2}} kwa oda {{1}}, risiti ya M-Pesa {{3}}. "
        "Asante kwa kununua nasi.",
    },
    p.PAYMENT_FAILED: {
        "en": "{shop}: we could not complete your payment of KES {{2}} for order {{1}}. "
        "Reply to this message to try again.",
        "sw": "{shop}: hatukuweza kukamilisha malipo yako ya KES {{2}} kwa oda {{1}}. "
        "Jibu ujumbe huu ili ujaribu tena.",
    },
    p.ORDER_CONFIRMED: {
        "en": "{shop}: your order {{1}} is confirmed. We will tell you when it ships.",
        "sw": "{shop}: oda yako {{1}} imethibitishwa. Tutakujulisha itakapotumwa.",
    },
    p.ORDER_SHIPPED: {
        "en": "{shop}: order {{1}} is on its way. Delivery details: {{2}}. "
        "Reply here if you have any questions.",
        "sw": "{shop}: oda {{1}} iko njiani. Maelezo ya usafirishaji: {{2}}. "
        "Jibu hapa kama una swali.",
    },
    p.ORDER_DELIVERED: {
        "en": "{shop}: order {{1}} has been delivered. Thank you for shopping with us.",
        "sw": "{shop}: oda {{1}} imefikishwa. Asante kwa kununua nasi.",
    },
    p.ORDER_CANCELLED: {
        "en": "{shop}: order {{1}} has been cancelled ({{2}}). "
        "Reply to this message if you have any questions.",
        "sw": "{shop}: oda {{1}} imeghairiwa ({{2}}). Jibu ujumbe huu kama una swali.",
    },
    p.RETURN_DECISION: {
        "en": "{shop}: an update on your return for order {{1}}: {{2}}. "
        "Reply here if you have any questions.",
        "sw": "{shop}: taarifa kuhusu urejeshaji wa oda {{1}}: {{2}}. Jibu hapa kama una swali.",
    },
    p.AGENT_REPLY: {
        "en": "{shop}: {{1}} from our team has replied to you: {{2}}. "
        "Reply to this message to continue the chat.",
        "sw": "{shop}: {{1}} wa timu yetu amekujibu: {{2}}. "
        "Jibu ujumbe huu ili kuendelea na mazungumzo.",
    },
}


def starter_body(purpose: str, language: str, shop_name: str) -> str:
    # str.replace, not format: the body's {{n}} braces must survive untouched.
    return STARTER_BODIES[purpose][language].replace("{shop}", shop_name)
