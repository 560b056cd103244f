"""The cascade and breaker, driving the real ChatOpenAI client against the emulator."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pydantic import BaseModel, Field

from journeys.llm.breaker import CircuitBreaker
from journeys.llm.cascade import NodeSpec, run_cascade
from journeys.llm.gateway import LLMGateway
from journeys.llm.settings import LLMSettings
from journeys.llm_emulator import Hang, Malformed, Reply, ServerError
from journeys.nlu.intent import IntentResult
from journeys.nodes.deps import EngineDeps
from journeys.state import Intent
from tenants.context import tenant_context
from tulia.metering.models import LlmUsage


class IntentAnswer(BaseModel):
    """A one-question node's output, to drive the generic cascade."""

    intent: Intent
    confidence: float = Field(ge=0.0, le=1.0)


INTENT_SPEC = NodeSpec("intent_probe", IntentAnswer, "Classify the message.", 0.70)
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
    emulator.queue(Reply({"intent": "order_status", "confidence": 0.8}))
    runnable = (
        make_gateway()._client().with_structured_output(IntentAnswer, method="function_calling")
    )
    assert runnable.invoke("oda yangu").intent == "order_status"


def test_slow_but_timely_answer_is_used(emulator, make_gateway) -> None:
    emulator.queue(Reply({"intent": "payment_help", "confidence": 0.9}, delay=0.1))
    assert _ask(make_gateway(timeout=2.0)).source == "llm"


def test_answer_slower_than_the_timeout_is_ignored(emulator, make_gateway) -> None:
    emulator.queue(Reply({"intent": "payment_help", "confidence": 0.9}, delay=2.0))
    assert _ask(make_gateway(timeout=0.3)).value == UNSURE


def _llm_mode(gateway: LLMGateway) -> LLMGateway:
    settings = replace(gateway.settings, mode="llm")
    return LLMGateway(settings, breaker=gateway.breaker)


def test_llm_mode_asks_even_when_the_rules_are_sure(emulator, make_gateway) -> None:
    emulator.queue(Reply({"intent": "payment_help", "confidence": 0.9}))
    result = _ask(_llm_mode(make_gateway()), SURE)
    assert (result.source, result.value.intent, len(emulator.requests)) == (
        "llm",
        "payment_help",
        1,
    )


def test_a_gateway_bound_to_a_plan_asks_that_plans_model(emulator, make_gateway) -> None:
    base = make_gateway()
    plans = replace(base.settings, models={"starter": "emu-small", "pro": "emu-large"})
    gateway = LLMGateway(plans, breaker=base.breaker)
    emulator.default = Reply({"intent": "payment_help", "confidence": 0.9})
    for plan in ("pro", "starter", "pro"):
        _ask(gateway.for_tenant("00000000-0000-0000-0000-000000000001", plan))
    assert emulator.models == ["emu-large", "emu-small", "emu-large"]


@pytest.mark.django_db
def test_calls_of_a_bound_gateway_are_metered_for_its_tenant(
    emulator, make_gateway, tenant, stranger
) -> None:
    gateway = make_gateway().for_tenant(str(tenant.id), "starter")
    ok = Reply({"intent": "payment_help", "confidence": 0.9})
    emulator.queue(ok, ServerError(500), Malformed())
    for _ in range(3):
        _ask(gateway)
    with tenant_context(tenant.id):
        row = LlmUsage.objects.get(node=INTENT_SPEC.name)
    # Failed calls count as calls; only the good answer's usage is known to the client.
    assert (row.calls, row.failures, row.prompt_tokens, row.completion_tokens) == (3, 2, 1, 1)
    with tenant_context(stranger.id):
        assert not LlmUsage.objects.exists()


def test_an_unbound_gateway_meters_nothing_and_needs_no_database(emulator, make_gateway) -> None:
    """Without a tenant there is nobody to bill (this test has no database access)."""
    emulator.queue(Reply({"intent": "payment_help", "confidence": 0.9}))
    assert _ask(make_gateway()).source == "llm"


def test_turn_deps_bind_the_gateway_and_stay_empty_without_one(make_gateway) -> None:
    tenant_id = "00000000-0000-0000-0000-000000000002"
    bound = EngineDeps(make_gateway()).for_turn(tenant_id, "pro").gateway
    assert bound is not None
    assert (bound.tenant_id, bound.plan) == (tenant_id, "pro")
    assert EngineDeps().for_turn(tenant_id) == EngineDeps()
