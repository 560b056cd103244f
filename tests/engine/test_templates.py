"""Reply templates: reproducible choice (Property 14), facts printed as given, WhatsApp shape."""

from __future__ import annotations

import re
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from journeys.templates import governance, text_nodes
from journeys.templates.text_nodes import OptionFact, SnippetFact
from tests.hypothesis_profiles import examples
from tulia.text import ReplyKey, format_money

PLACEHOLDER = re.compile(r"{(\w+)}")
names = st.text(alphabet=st.characters(categories=["L", "N", "Zs"]), min_size=1, max_size=30)
prices = st.decimals(min_value=1, max_value=500_000, places=2, allow_nan=False)
options = st.lists(st.builds(OptionFact, name=names, price=prices), min_size=0, max_size=9)
languages = st.sampled_from(["en", "sw", "sheng", "mixed"])


@settings(max_examples=examples(150))
@given(conv=st.uuids(), turn=st.integers(0, 10_000), language=languages, shortlist=options)
def test_same_turn_and_facts_give_the_same_reply(conv, turn, language, shortlist) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 14: Deterministic replies.

    Same conversation, same turn, same facts: the same text, every time and in every process
    (the choice is a sha256 of the key, not Python's salted hash)."""
    key = ReplyKey(str(conv), turn)

    def render() -> str:
        return "\n".join(
            [
                text_nodes.catalog_present_options(key, language, query="raba", options=shortlist),
                text_nodes.order_status_response(
                    key, language, reference="A1", order_status="shipped", payment_status="paid"
                ),
                governance.greeting(key, language, shop="Kicks", bot_name="Tuli", short=False),
                governance.unknown(key, language),
            ]
        )

    assert render() == render()


def test_variations_differ_across_turns_of_one_conversation() -> None:
    replies = {governance.unknown(ReplyKey("conv-9", turn), "en") for turn in range(30)}
    assert len(replies) == 3


@settings(max_examples=examples(100))
@given(shortlist=options, language=languages)
def test_options_show_at_most_six_with_every_price_as_given(shortlist, language) -> None:
    reply = text_nodes.catalog_present_options(
        ReplyKey("c", 1), language, query="q", options=shortlist, link="https://shop.example/c"
    )
    numbered = [line for line in reply.splitlines() if re.match(r"^\d+\. ", line)]
    assert len(numbered) == min(len(shortlist), 6)
    for option in shortlist[:6]:
        assert f"*{format_money(option.price)}*" in reply


def test_money_keeps_cents_and_thousands() -> None:
    assert (format_money(Decimal("1250")), format_money(Decimal("3200.5"))) == (
        "KES 1,250",
        "KES 3,200.50",
    )


def test_no_options_and_no_link_says_nothing_was_found() -> None:
    reply = text_nodes.catalog_present_options(ReplyKey("c", 1), "en", query="unicorn", options=[])
    assert "unicorn" in reply
    assert "1." not in reply


def test_support_answer_cites_titles_and_quotes_only_the_snippet() -> None:
    snippets = [SnippetFact("Returns policy", "Returns are accepted within 7 days.")]
    reply = text_nodes.support_rag_answer(ReplyKey("c", 2), "sw", snippets=snippets)
    assert "Returns are accepted within 7 days." in reply
    assert "Returns policy" in reply


def test_long_support_answer_ends_at_a_sentence_not_mid_word() -> None:
    sentence = "Pairs must be unworn and come back in the original box with all tags. "
    snippets = [SnippetFact("Returns policy", sentence * 20)]
    reply = text_nodes.support_rag_answer(ReplyKey("c", 3), "en", snippets=snippets)
    quoted = reply.split(sentence.strip())
    assert len(quoted) > 2  # several whole sentences are kept
    assert "with all t\n" not in reply
    assert len(reply) < len(sentence) * 20


@given(st.text(alphabet="abc .\n", min_size=700, max_size=1500))
@settings(max_examples=examples(100), deadline=None)
def test_support_answer_never_exceeds_the_snippet_budget(text: str) -> None:
    snippets = [SnippetFact("Doc", text)]
    reply = text_nodes.support_rag_answer(ReplyKey("c", 4), "en", snippets=snippets)
    assert len(reply) < text_nodes.MAX_SNIPPET_CHARS + 400  # the template's own words


def test_unlisted_status_reads_as_not_confirmed_rather_than_guessed() -> None:
    reply = text_nodes.order_status_response(
        ReplyKey("c", 1), "en", reference="A1", order_status="weird", payment_status=None
    )
    assert reply.count("not confirmed yet") == 2
