"""What the soak's customers say: short conversations per journey and language.

A customer plays one script after another (a returning customer), so conversations
mix sales with payment, policy questions, order checks and, once per shop, a request
for a person that an agent later hands back to the bot.
"""

from __future__ import annotations

SALES = {
    "en": ["hi", "I want slides", "1", "1", "YES", "did my payment go through?"],
    "sw": ["habari", "nataka ndala", "1", "1", "ndio", "malipo yangu yamefika?"],
    "sheng": ["niaje", "niko na doh nataka raba", "2", "1", "sawa", "doh imefika?"],
}
SUPPORT = {
    "en": ["what is your return policy?", "how long does delivery take?", "thanks"],
    "sw": ["sera yenu ya kurudisha viatu ni gani?", "asante"],
    "sheng": ["msee, return policy yenu iko aje?", "poa"],
}
ORDERS = {
    "en": ["where is my order?", "ok"],
    "sw": ["oda yangu iko wapi?", "sawa"],
    "sheng": ["order yangu imefika wapi?", "fiti"],
}
HANDOFF = ["I want to talk to a human", "hello, is someone there?"]
LANGUAGES = ("en", "sw", "sheng")


def script_for(customer: int, round_number: int, wants_person: bool) -> list[str]:
    """The customer's next conversation; the same numbers always give the same lines."""
    if wants_person and round_number == 1:
        return HANDOFF
    language = LANGUAGES[(customer + round_number) % len(LANGUAGES)]
    journeys = (SALES, SUPPORT, SALES, ORDERS)
    return journeys[(customer + round_number) % len(journeys)][language]
