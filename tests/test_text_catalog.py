"""The text catalog: every key in en/sw/sheng, the same facts in each, and real translations."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tulia.text import LANGUAGES, ReplyKey, catalog, entry, label, notice, say, tones

PLACEHOLDER = re.compile(r"{(\w+)}")
WORD = re.compile(r"[^\W\d_]+")


def _keys(language: str) -> set[str]:
    return {f"{section}.{name}" for section, names in catalog(language).items() for name in names}


def _texts(found: Any) -> Iterator[str]:
    if isinstance(found, str):
        yield found
    elif isinstance(found, list):
        yield from found
    else:
        yield from found.values()


def _shape(found: Any) -> object:
    """What must match across languages: the kind of entry, a table's names, and the set
    of placeholder sets its phrasings use."""
    kind = type(found).__name__
    if isinstance(found, dict):
        return kind, frozenset(found)
    return kind, frozenset(frozenset(PLACEHOLDER.findall(text)) for text in _texts(found))


def _words(text: str) -> tuple[str, ...]:
    return tuple(WORD.findall(PLACEHOLDER.sub(" ", text).casefold()))


@pytest.mark.parametrize("language", ["sw", "sheng"])
def test_every_key_exists_in_every_language(language: str) -> None:
    assert _keys(language) == _keys("en")


@pytest.mark.parametrize("language", ["sw", "sheng"])
def test_every_key_takes_the_same_facts_in_every_language(language: str) -> None:
    for key in sorted(_keys("en")):
        assert _shape(entry(key, language)) == _shape(entry(key, "en")), key


@pytest.mark.parametrize("language", ["sw", "sheng"])
def test_swahili_and_sheng_are_not_copies_of_the_english(language: str) -> None:
    """A phrase of two words or more must be translated; a lone loanword ("video") may stay."""
    for key in sorted(_keys("en")):
        english = {_words(text) for text in _texts(entry(key, "en"))}
        for text in _texts(entry(key, language)):
            words = _words(text)
            assert len(words) < 2 or words not in english, (key, text)


def test_sheng_is_not_a_copy_of_the_swahili() -> None:
    """Sheng is its own register (English nouns, street verbs), not Swahili relabelled."""
    for key in sorted(_keys("sw")):
        swahili = {_words(text) for text in _texts(entry(key, "sw"))}
        for text in _texts(entry(key, "sheng")):
            words = _words(text)
            assert len(words) < 4 or words not in swahili, (key, text)


def test_a_language_outside_the_three_reads_english() -> None:
    assert say("gateway.rate_limit", "mixed") == say("gateway.rate_limit", "en")
    assert set(LANGUAGES) == {"en", "sw", "sheng"}


def test_the_phrasing_is_the_same_for_the_same_turn() -> None:
    at = ReplyKey("conversation-1", 4)
    said = {say("reply.unknown", "sw", at) for _ in range(5)}
    assert len(said) == 1
    across_turns = {say("reply.unknown", "sw", ReplyKey("conversation-1", n)) for n in range(40)}
    assert len(across_turns) > 1


def test_an_unlisted_label_falls_back_to_the_default() -> None:
    assert label("reply.status", "weird", "sw", default="unknown") == label(
        "reply.status", "unknown", "sw"
    )


def test_a_table_is_not_a_sentence() -> None:
    with pytest.raises(TypeError):
        say("reply.status", "en")


# The replies a customer meets in any conversation: each tone words every one of them.
CONVERSATIONAL = {
    "reply.greeting", "reply.greeting_short", "reply.casual_reply", "reply.clarify_intent",
    "reply.unknown", "reply.options_intro", "reply.no_results", "reply.not_stocked",
    "reply.confirm_item", "reply.handoff", "reply.support_no_context", "flows.acknowledged",
    "flows.frustration_offer", "flows.out_of_stock", "flows.restock_offer", "flows.ask_method",
    "flows.narrow_clarify",
}  # fmt: skip
# The notices sent outside a turn (payment outcome, order update, return and refund
# decisions): each tone words them too, with the same facts (issue 18 item 4).
NOTICES = {
    "payments.paid", "payments.cancelled", "payments.timeout", "payments.insufficient_funds",
    "payments.wrong_pin", "payments.failed", "payments.confirming", "payments.not_confirmed",
    "payments.review", "reply.order_update", "returns.approved", "returns.time_expired",
    "returns.item_excluded", "returns.not_delivered", "returns.already_returned",
    "returns.risk_manual", "returns.damaged_manual", "returns.passed_on", "returns.refund_sent",
    "returns.refund_failed", "returns.staff_approved", "returns.staff_rejected",
    "returns.staff_received", "returns.exchange_approved", "returns.exchange_no_stock",
}  # fmt: skip


def _toned_tones() -> list[str]:
    """Every tone a shop can pick except friendly, which the plain text already is."""
    from tenants.models import Tenant

    return [tone for tone in Tenant.Tone.values if tone != Tenant.Tone.FRIENDLY]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_tone_words_every_conversational_reply_and_notice(language: str) -> None:
    for tone in _toned_tones():
        assert set(tones(language)[tone]) == CONVERSATIONAL | NOTICES, (language, tone)
    assert set(tones(language)) == set(_toned_tones())


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_tone_states_the_same_facts_as_the_plain_text(language: str) -> None:
    for tone, keys in tones(language).items():
        for key, found in keys.items():
            assert _shape(found) == _shape(entry(key, language)), (language, tone, key)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_tone_is_not_the_plain_text_again(language: str) -> None:
    for tone, keys in tones(language).items():
        for key, found in keys.items():
            plain = set(_texts(entry(key, language)))
            assert not set(_texts(found)) <= plain, (language, tone, key)


@pytest.mark.parametrize("language", ["sw", "sheng"])
def test_tones_are_translated(language: str) -> None:
    for tone, keys in tones(language).items():
        for key, found in keys.items():
            english = {_words(text) for text in _texts(tones("en")[tone][key])}
            for text in _texts(found):
                words = _words(text)
                assert len(words) < 2 or words not in english, (language, tone, key)


def test_the_reply_key_carries_the_tone_and_a_key_no_tone_words_reads_plain() -> None:
    for turn in range(6):
        plain, playful = ReplyKey("c", turn), ReplyKey("c", turn, tone="playful")
        assert say("reply.unknown", "sheng", playful) in tones("sheng")["playful"]["reply.unknown"]
        assert say("reply.unknown", "sheng", plain) in entry("reply.unknown", "sheng")
        toned = ReplyKey("c", turn, tone="professional")
        assert say("flows.retry_same", "sw", toned) == say("flows.retry_same", "sw", plain)
        assert say("reply.unknown", "en", ReplyKey("c", turn, tone="grumpy")) == say(
            "reply.unknown", "en", plain
        )


@given(
    tone=st.sampled_from(["professional", "playful"]),
    language=st.sampled_from(LANGUAGES),
    turn=st.integers(min_value=0, max_value=10_000),
    item=st.text(alphabet=st.characters(categories=["L", "N"]), min_size=1, max_size=30),
)
def test_every_tone_states_the_item_and_the_price_it_was_given(
    tone: str, language: str, turn: int, item: str
) -> None:
    at = ReplyKey("c", turn, tone=tone)
    text = say("reply.confirm_item", language, at, quantity=3, item=item, price="KES 4,500")
    assert item in text
    assert "KES 4,500" in text
    assert text.count("3") >= 1 + item.count("3")


def test_a_notice_names_its_tone_and_a_table_reads_in_it() -> None:
    facts = {"order": "KIC-7H2Q", "amount": "1,500", "receipt": "TKM4QX81ZP"}
    plain = say("payments.paid", "sw", **facts)
    assert notice("payments.paid", "sw", "friendly", **facts) == plain
    assert notice("payments.paid", "sw", None, **facts) == plain
    assert notice("payments.paid", "sw", "playful", **facts) != plain
    assert notice("payments.next_retry", "sw", "playful") == say("payments.next_retry", "sw")
    assert (
        label("reply.order_update", "shipped", "sheng", tone="professional")
        == (tones("sheng")["professional"]["reply.order_update"]["shipped"])
    )
    assert label("reply.order_update", "shipped", "sheng", tone="grumpy") == label(
        "reply.order_update", "shipped", "sheng"
    )


def _fill(found: Any, tokens: dict[str, str]) -> list[str]:
    return [text.format(**tokens) for text in _texts(found)]


@given(
    key=st.sampled_from(sorted(NOTICES)),
    language=st.sampled_from(LANGUAGES),
    token=st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZ23456789", min_size=6, max_size=10),
)
def test_every_tone_of_a_notice_states_the_facts_it_was_given(
    key: str, language: str, token: str
) -> None:
    """Whatever the tone, every fact the plain notice states is stated (a receipt number,
    an amount, an order reference); only the wording around them changes."""
    names = set(PLACEHOLDER.findall(" ".join(_texts(entry(key, language)))))
    tokens = {name: f"{name[:2].upper()}{token}" for name in names}
    for tone in _toned_tones():
        toned = " ".join(_fill(tones(language)[tone][key], tokens))
        for name in names:
            assert tokens[name] in toned, (key, language, tone, name)
