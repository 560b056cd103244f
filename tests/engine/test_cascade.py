"""The cascade and breaker, driving the real ChatOpenAI client against the emulator."""

from __future__ import annotations

from journeys.llm.breaker import CircuitBreaker
from journeys.llm.cascade import run_cascade
from journeys.llm.gateway import LLMGateway
from journeys.llm.settings import LLMSettings
from journeys.llm_emulator import Hang, Malformed, Reply, ServerError
from journeys.nlu.intent import IntentResult
from journeys.nodes.governance import INTENT_SPEC

UNSURE = IntentResult("sales_discovery", 0.55, {})
SURE = IntentResult("order_status", 0.95, {})


def _ask(gateway: LLMGateway | None, found: IntentResult = UNSURE):
    return run_cascade(
        INTENT_SPEC,
        text="niko na swali",
        deterministic=found,
        confidence=found.confidence,
        gateway=gateway,
        adopt=lambda out: IntentResult(out.intent, out.confidence, {}),
    )


def test_unsure_result_asks_the_llm_and_adopts_its_answer(emulator, make_gateway) -> None:
    emulator.queue(Reply({"intent": "payment_help", "confidence": 0.9}))
    result = _ask(make_gateway())
    assert (result.source, result.value.intent, result.llm_called) == ("llm", "payment_help", True)
    assert emulator.requests[0]["response_format"]["type"] == "json_schema"


def test_customer_text_reaches_the_model_fenced(emulator, make_gateway) -> None:
    emulator.queue(Reply({"intent": "payment_help", "confidence": 0.9}))
    _ask(make_gateway())
    user = emulator.requests[0]["messages"][-1]["content"]
    assert user.startswith("<<<")
    assert "niko na swali" in user


def test_confident_result_never_calls_the_llm(emulator, make_gateway) -> None:
    result = _ask(make_gateway(), SURE)
    assert (result.source, result.llm_called, emulator.requests) == ("deterministic", False, [])


def test_without_a_key_nothing_is_called(emulator) -> None:
    gateway = LLMGateway(LLMSettings(api_key=None, base_url=emulator.base_url))
    assert (_ask(gateway).source, emulator.requests) == ("deterministic", [])


def test_timeout_falls_back_to_the_deterministic_result(emulator, make_gateway) -> None:
    emulator.queue(Hang(5))
    result = _ask(make_gateway(timeout=0.3))
    assert (result.source, result.value, result.llm_called) == ("fallback", UNSURE, True)
    assert "Timeout" in result.outcome


def test_server_error_falls_back(emulator, make_gateway) -> None:
    emulator.queue(ServerError(500))
    result = _ask(make_gateway())
    assert (result.source, result.value, result.outcome) == (
        "fallback",
        UNSURE,
        "failed:OpenAIAPIError",
    )


def test_malformed_json_falls_back(emulator, make_gateway) -> None:
    emulator.queue(Malformed())
    result = _ask(make_gateway())
    assert (result.source, result.value) == ("fallback", UNSURE)


def test_out_of_schema_answer_falls_back(emulator, make_gateway) -> None:
    emulator.queue(Reply({"intent": "buy_everything", "confidence": 3}))
    assert _ask(make_gateway()).value == UNSURE


def test_breaker_opens_after_consecutive_failures_and_stops_calling(emulator, make_gateway) -> None:
    gateway = make_gateway(failure_threshold=3)
    emulator.queue(ServerError(500), ServerError(502), ServerError(503))
    outcomes = [_ask(gateway).outcome for _ in range(5)]
    assert len(emulator.requests) == 3
    assert outcomes[3:] == ["breaker_open", "breaker_open"]


def test_success_resets_the_failure_count(emulator, make_gateway) -> None:
    gateway = make_gateway(failure_threshold=2)
    ok = Reply({"intent": "payment_help", "confidence": 0.9})
    emulator.queue(ServerError(500), ok, ServerError(500), ok)
    assert [_ask(gateway).source for _ in range(4)] == ["fallback", "llm", "fallback", "llm"]


def test_breaker_half_opens_after_cool_down_and_closes_on_success() -> None:
    now = [0.0]
    breaker = CircuitBreaker(failure_threshold=2, cooldown_seconds=30, clock=lambda: now[0])
    breaker.record_failure()
    breaker.record_failure()
    assert (breaker.state, breaker.allow()) == ("open", False)
    now[0] = 30.0
    assert (breaker.allow(), breaker.allow()) == (True, False)  # one trial at a time
    breaker.record_success()
    assert breaker.state == "closed"


def test_failed_trial_reopens_for_another_cool_down() -> None:
    now = [0.0]
    breaker = CircuitBreaker(failure_threshold=1, cooldown_seconds=10, clock=lambda: now[0])
    breaker.record_failure()
    now[0] = 10.0
    assert breaker.allow()
    breaker.record_failure()
    assert breaker.state == "open"
    now[0] = 19.0
    assert not breaker.allow()


def test_function_calling_requests_get_a_tool_call_back(emulator, make_gateway) -> None:
    """The emulator also speaks langchain's function_calling method (tools + tool_choice)."""
    from journeys.llm.schemas import IntentOutput

    emulator.queue(Reply({"intent": "order_status", "confidence": 0.8}))
    runnable = (
        make_gateway()._client().with_structured_output(IntentOutput, method="function_calling")
    )
    assert runnable.invoke("oda yangu").intent == "order_status"


def test_slow_but_timely_answer_is_used(emulator, make_gateway) -> None:
    emulator.queue(Reply({"intent": "payment_help", "confidence": 0.9}, delay=0.1))
    assert _ask(make_gateway(timeout=2.0)).source == "llm"


def test_answer_slower_than_the_timeout_is_ignored(emulator, make_gateway) -> None:
    emulator.queue(Reply({"intent": "payment_help", "confidence": 0.9}, delay=2.0))
    assert _ask(make_gateway(timeout=0.3)).value == UNSURE
