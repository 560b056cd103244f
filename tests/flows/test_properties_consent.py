"""Properties 10 and 11 over whole conversations: STOP acts at once and keeps acting.

A withdrawal (STOP, UNSUBSCRIBE, "acha", "sitaki"...) may come at any point of a
generated conversation. On that very turn the reply confirms it and the customer's
flag is already withdrawn; afterwards no reply promotes offers the customer did not
ask about, until an explicit opt-in. Every flag change leaves exactly one audit event,
and the same phone at another shop is a different customer, untouched.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from journeys.nlu.consent import _BARE_REFUSALS
from journeys.nlu.text import tokens
from tenants.context import tenant_context
from tenants.models import ConsentEvent, Customer, Tenant
from tenants.services import record_consent
from tests.commerce import factories
from tests.flows.chat import Chat, start_chat
from tests.flows.profile import PROPERTY
from tulia.text import LANGUAGES, entry

pytestmark = pytest.mark.django_db
_phones = itertools.count(1)

WITHDRAWALS = [
    "STOP", "stop", "UNSUBSCRIBE", "Stop sending me messages", "acha kunitumia ujumbe",
    "sitaki matangazo", "STOP please", "unsubscribe me", "acha", "sitaki", "Acha!",
]  # fmt: skip
OPT_INS = ["START", "anza tena", "subscribe"]
ASKS_ABOUT_OFFERS = ["any offers?", "use code SAVE10", "do you have discounts?"]
SHOPPING = [
    "I want sneakers", "nataka viatu", "1", "2", "41", "42", "yes", "ndio", "no", "pay",
    "mpesa", "none of these", "see all", "where is my order?", "hi", "asante",
]  # fmt: skip
OFFER_WORDS = ("SAVE10", "10% off sneakers")


def new_phone() -> str:
    return f"0714{next(_phones):06d}"


def new_chat(tenant: Tenant) -> Chat:
    return start_chat(tenant, new_phone())


def withdraws(line: str, awaiting_answer: bool) -> bool:
    """The documented rule: a bare "acha"/"sitaki" answering the bot's yes/no question is "no"."""
    bare = set(tokens(line)) <= _BARE_REFUSALS
    return not (bare and awaiting_answer)


def opt_out_confirmations(shop: str) -> set[str]:
    found = {
        variant.format(shop=shop)
        for language in LANGUAGES
        for variant in entry("reply.consent_opt_out", language)
    }
    assert found, "the opt-out confirmations are where the catalog keeps them"
    return found


def consent_of(tenant: Tenant, customer_pk: int) -> tuple[bool, list[tuple[str, str, str, str]]]:
    with tenant_context(tenant.id) as tid:
        customer = Customer.objects.get(tenant_id=tid, pk=customer_pk)
        events = ConsentEvent.objects.filter(tenant_id=tid, customer_id=customer_pk).order_by("id")
        return customer.marketing_opt_in, list(
            events.values_list("kind", "action", "source", "evidence")
        )


def opted_in(chat: Chat) -> Chat:
    record_consent(chat.tenant.id, chat.customer.pk, kind="marketing", action="granted",
                   source="admin")  # fmt: skip
    return chat


@pytest.fixture
def mboga_offer(mboga: Tenant) -> Tenant:
    factories.offer(mboga, "MBOGA5", kind="percentage", value="5", name="5% off greens")
    return mboga


@PROPERTY
@given(
    before=st.lists(st.sampled_from(SHOPPING), max_size=3),
    stop=st.sampled_from(WITHDRAWALS),
    was_opted_in=st.booleans(),
)
def test_stop_is_confirmed_and_saved_on_the_same_turn(
    shop: Tenant, before: list[str], stop: str, was_opted_in: bool
) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 10: Immediate Consent Processing"""
    chat = new_chat(shop)
    if was_opted_in:
        opted_in(chat)
    for line in before:
        chat.send(line)
    awaiting = bool(chat.state.get("awaiting_answer"))
    _, events_before = consent_of(shop, chat.customer.pk)
    reply = chat.send(stop)
    flag, events = consent_of(shop, chat.customer.pk)
    if not withdraws(stop, awaiting):
        return  # a bare "no" to the bot's question: covered by the engine's consent tests
    assert reply in opt_out_confirmations(shop.name), f"{stop!r} -> {reply!r}"
    assert flag is False
    new = events[len(events_before) :]
    # Audited whether or not the customer had opted in: the STOP itself is the record
    # (issue 18 §3), not only a change of the flag.
    assert new == [("marketing", "withdrawn", "whatsapp", stop)]


def _promotes(reply: str) -> bool:
    return any(word in reply for word in OFFER_WORDS)


@PROPERTY
@given(
    before=st.lists(st.sampled_from(SHOPPING), max_size=2),
    stop=st.sampled_from(WITHDRAWALS),
    after=st.lists(
        st.sampled_from(SHOPPING + SHOPPING + ASKS_ABOUT_OFFERS + OPT_INS + WITHDRAWALS),
        min_size=1,
        max_size=3,
    ),
)
# The checkout's unasked "use SAVE10" hint, and the Swahili opt-in, which random draws
# reach too rarely to leave to chance.
@example(before=["I want sneakers", "1", "41"], stop="STOP", after=["1"])
@example(before=[], stop="acha", after=["anza tena", "any offers?"])
def test_after_a_withdrawal_no_promotion_until_the_customer_opts_back_in(  # noqa: PLR0917
    shop: Tenant,
    save10_offer: Tenant,
    mboga_offer: Tenant,
    before: list[str],
    stop: str,
    after: list[str],
) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 11: Consent Enforcement Consistency"""
    phone = new_phone()
    chat, elsewhere = opted_in(start_chat(shop, phone)), opted_in(start_chat(mboga_offer, phone))
    chat_elsewhere_before = consent_of(mboga_offer, elsewhere.customer.pk)
    withdrawn, changes = False, 1  # the admin's grant above
    for line in [*before, stop, *after]:
        awaiting = bool(chat.state.get("awaiting_answer"))
        reply = chat.send(line)
        now_withdrawn, stopped = withdrawn, False
        if line in WITHDRAWALS and withdraws(line, awaiting):
            now_withdrawn, stopped = True, True
        elif line in OPT_INS:
            now_withdrawn = False
        # Every STOP is audited (even a repeated one); a grant only when it changes.
        changes += stopped or now_withdrawn != withdrawn
        withdrawn = now_withdrawn
        if withdrawn and line not in ASKS_ABOUT_OFFERS:
            assert not _promotes(reply), f"promoted after STOP: {line!r} -> {reply!r}"
        flag, events = consent_of(shop, chat.customer.pk)
        assert flag is not withdrawn
        assert len(events) == changes
        assert events[-1][:3] == ("marketing", "withdrawn" if withdrawn else "granted",
                                  "whatsapp" if changes > 1 else "admin")  # fmt: skip
    assert consent_of(mboga_offer, elsewhere.customer.pk) == chat_elsewhere_before
