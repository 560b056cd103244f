"""The phrasing checks and `phrase_reply`, with the real client against the emulator."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from journeys.guard import numbered_options, phrasing_problems
from journeys.llm.gateway import LLMGateway
from journeys.llm.phrasing import TEXT_NODES, phrase_reply, phrase_request, text_node
from journeys.llm.settings import LLMSettings
from journeys.llm_emulator import Hang, ServerError, Text
from journeys.templates import text_nodes
from journeys.templates.text_nodes import OptionFact
from tests.hypothesis_profiles import examples
from tulia.text import ReplyKey

KEY = ReplyKey(conversation_id="conv-1", turn=1)
FACTS = [{"results": [{"name": "Air Runner Black", "price_from": "4500.00"}]}]
OPTIONS = text_nodes.catalog_present_options(
    KEY,
    "en",
    query="sneakers",
    options=[OptionFact("Air Runner Black", Decimal("4500")), OptionFact("Pool Slide", None)],
    total=9,
    link="https://kicks.example.shop/catalog?q=sneakers",
)
STATUS = text_nodes.order_status_response(
    KEY, "en", reference="KN-7Q2M4X", order_status="paid", payment_status="paid"
)


def _llm_gateway(make_gateway: Callable[..., LLMGateway], **kwargs: float) -> LLMGateway:
    base = make_gateway(**kwargs)
    llm = LLMSettings(
        api_key="sk-test",
        base_url=base.settings.base_url,
        timeout_seconds=base.settings.timeout_seconds,
        mode="llm",
    )
    return LLMGateway(llm, breaker=base.breaker)


def _phrase(gateway: LLMGateway, template: str = OPTIONS):
    return phrase_reply(
        gateway, node="catalog_present_options", template=template, facts=FACTS, language="sw"
    )


def test_the_template_itself_passes() -> None:
    assert phrasing_problems(OPTIONS, OPTIONS, FACTS) == []
    assert phrasing_problems(STATUS, STATUS, []) == []


def test_a_new_intro_line_passes() -> None:
    reworded = "\n".join(["Karibu! Raba tulizo nazo:", *OPTIONS.splitlines()[1:]])
    assert phrasing_problems(reworded, OPTIONS, FACTS) == []


def test_an_invented_price_fails() -> None:
    assert "ungrounded_amount" in phrasing_problems(OPTIONS + " Leo KES 3,999!", OPTIONS, FACTS)


def test_a_dropped_price_fails() -> None:
    assert "dropped_amount" in phrasing_problems(OPTIONS.replace("*KES 4,500*", ""), OPTIONS, FACTS)


def test_a_dropped_or_changed_link_fails() -> None:
    changed = OPTIONS.replace("q=sneakers", "q=shoes")
    assert "dropped_link" in phrasing_problems(changed, OPTIONS, FACTS)


def test_a_dropped_option_fails() -> None:
    without = "\n".join(line for line in OPTIONS.splitlines() if not line.startswith("2."))
    assert "dropped_option" in phrasing_problems(without, OPTIONS, FACTS)


def test_a_renamed_option_fails() -> None:
    renamed = OPTIONS.replace("Pool Slide", "Beach Slide")
    assert "dropped_option" in phrasing_problems(renamed, OPTIONS, FACTS)


def test_a_dropped_order_reference_fails() -> None:
    assert "dropped_order_reference" in phrasing_problems(
        STATUS.replace("KN-7Q2M4X", "yako"), STATUS, []
    )


def test_an_invented_number_fails() -> None:
    reply = STATUS + " It arrives in 3 days."
    assert "invented_number" in phrasing_problems(reply, STATUS, [])


def test_an_overlong_or_empty_answer_fails() -> None:
    assert "length" in phrasing_problems(OPTIONS * 4, OPTIONS, FACTS)
    assert "length" in phrasing_problems("  ", OPTIONS, FACTS)


def test_numbered_options_inline_and_per_line_are_read() -> None:
    assert numbered_options("Size? 1) 41, 2) 42") == {"1": "41", "2": "42"}
    assert numbered_options("1. Air Runner Black — *KES 4,500*")["1"] == "Air Runner Black"


@settings(max_examples=examples(150), deadline=None)
@given(price=st.integers(min_value=1, max_value=2_000_000).filter(lambda n: n != 4500))
def test_any_price_not_in_the_facts_is_refused(price: int) -> None:
    reply = OPTIONS + f"\nOffer: KES {price:,}"
    assert "ungrounded_amount" in phrasing_problems(reply, OPTIONS, FACTS)


@settings(max_examples=examples(150), deadline=None)
@given(intro=st.text(alphabet=st.characters(categories=("L", "Zs")), min_size=1, max_size=80))
def test_rewording_words_only_never_trips_a_check(intro: str) -> None:
    reworded = "\n".join([intro.strip() or "Sawa", *OPTIONS.splitlines()[1:]])
    assert phrasing_problems(reworded, OPTIONS, FACTS) == []


def test_an_accepted_wording_is_returned(emulator, make_gateway) -> None:
    reworded = "\n".join(["Sawa, hizi hapa:", *OPTIONS.splitlines()[1:]])
    emulator.queue(Text(reworded))
    phrased = _phrase(_llm_gateway(make_gateway))
    assert (phrased.text, phrased.source, phrased.called) == (reworded, "llm", True)
    assert "response_format" not in emulator.requests[0]  # plain text, no JSON mode


def test_a_refused_wording_returns_the_template(emulator, make_gateway) -> None:
    emulator.queue(Text(OPTIONS + "\nBei mpya: KES 100"))
    phrased = _phrase(_llm_gateway(make_gateway))
    assert (phrased.text, phrased.source, phrased.outcome) == (
        OPTIONS,
        "fallback",
        "rejected:ungrounded_amount",
    )


def test_errors_and_timeouts_return_the_template(emulator, make_gateway) -> None:
    gateway = _llm_gateway(make_gateway, timeout=0.3)
    emulator.queue(ServerError(502), Hang(5))
    assert [_phrase(gateway).text for _ in range(2)] == [OPTIONS, OPTIONS]


def test_the_prompt_is_fenced_and_names_the_language(emulator, make_gateway) -> None:
    emulator.queue(Text(OPTIONS))
    _phrase(_llm_gateway(make_gateway))
    system, human = emulator.requests[0]["messages"]
    assert "Rephrase only" in system["content"]
    assert "Language: Swahili" in human["content"]
    assert "<<<\n" + OPTIONS + "\n>>>" in human["content"]


def test_a_step_left_from_an_earlier_turn_names_no_text_node() -> None:
    this_turn = {"journey_step": "orders.status", "graph_path": ["begin", "orders"]}
    stale = {"journey_step": "orders.status", "graph_path": ["begin", "governance"]}
    assert (text_node(this_turn), text_node(stale)) == ("order_status_response", None)


def test_the_customer_as_a_person_stays_out_of_the_prompt() -> None:
    customer = {"customer_id": 7, "phone_e164": "+254712345678", "display_name": "Wanjiru"}
    order = {"reference": "KN-7Q2M4X", "payer_phone": "0712345678", "total": "4500.00"}
    prompt = phrase_request("order_status_response", STATUS, [customer, order], "en")
    assert "KN-7Q2M4X" in prompt
    assert [part for part in ("Wanjiru", "712345678", '"customer_id"') if part in prompt] == []


def test_all_seven_text_nodes_of_the_spec_can_be_phrased() -> None:
    spec_nodes = {
        "catalog_present_options",
        "product_disambiguate",
        "support_rag_answer",
        "offers_answer",
        "order_status_response",
        "prefs_consent_response",
        "handoff_message",
    }
    assert set(TEXT_NODES) == spec_nodes
    assert all(callable(getattr(text_nodes, node)) for node in TEXT_NODES)
