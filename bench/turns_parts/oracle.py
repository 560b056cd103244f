"""The cascade's model: an OpenAI-compatible emulator answering each JSON node as a
well-informed model would, and a count of what it was asked."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from turns_parts.scripts import Labels, is_step_answer


def oracle(labels: Labels) -> Callable[[dict[str, Any]], Any]:
    """An emulator responder answering each JSON node as a well-informed model would."""
    from journeys.llm_emulator import Reply

    def answer(request: dict[str, Any]) -> Reply:
        text = fenced_text(request)
        intent, lang = labels.by_text.get(text.strip().casefold(), ("unknown", "en"))
        return Reply(oracle_payload(schema_name(request), intent, lang, text))

    return answer


def oracle_payload(schema: str, intent: str, lang: str, text: str) -> dict[str, Any]:
    if schema == "MessageReading":
        casual = intent == "spam_casual"
        return {
            "intent": intent, "intent_confidence": 0.9, "language": lang,
            "language_confidence": 0.9, "classification": "casual" if casual else "business",
            "governor_confidence": 0.9,
        }  # fmt: skip
    if schema == "NarrowOutput":
        wanted = intent == "sales_discovery"
        return {"action": "search" if wanted else "clarify", "query": text[:60] if wanted else "",
                "max_price": None, "min_price": None, "confidence": 0.8}  # fmt: skip
    raise ValueError(f"no oracle answer for schema {schema}")


# gpt-4o-mini list prices, dollars per million tokens (issue 25 asks for the cost there).
INPUT_PRICE, OUTPUT_PRICE = 0.15, 0.60
# No tokenizer file can be fetched offline; about four characters make a token in
# English prompts and JSON (an estimate, printed as one).
CHARS_PER_TOKEN = 4
# The schema is sent with every structured request; its JSON is counted as input.


@contextmanager
def emulated_llm(labels: Labels) -> Iterator[dict[str, float]]:
    """OPENAI_* point at the emulator while the workers run (they read them at start).

    The emulator only speaks chat completions, and the catalog and documents were
    indexed with the offline embedder, so embeddings stay offline (TULIA_EMBEDDER).
    """
    from journeys.llm_emulator import LLMEmulator

    keys = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TULIA_EMBEDDER")
    saved = {k: os.environ.get(k) for k in keys}
    with LLMEmulator(default=oracle(labels)).running() as emulator:
        os.environ.update(
            OPENAI_API_KEY="sk-bench-emulator",
            OPENAI_BASE_URL=emulator.base_url,
            TULIA_EMBEDDER="offline",
        )
        cost: dict[str, float] = {}
        try:
            yield cost
        finally:
            restore_environment(saved)
            print_llm_requests(emulator.requests)
            cost["dollars_per_call"] = dollars_per_call(emulator.requests, labels)


def print_llm_requests(requests: list[dict[str, Any]]) -> None:
    """Which nodes asked the model, and about which lines: where the cascade spends."""
    nodes = Counter(schema_name(r) for r in requests)
    texts = Counter(f"{schema_name(r)}: {fenced_text(r)[:40]!r}" for r in requests)
    on_steps = sum(is_step_answer(fenced_text(r)) for r in requests)
    print(f"emulator: {len(requests)} chat completions; by output schema: {dict(nodes)}")
    print(f"  of which about answers to a sale step ('1', 'mpesa', 'sawa'...): {on_steps}")
    print("  most asked: " + "; ".join(f"{t} x{n}" for t, n in texts.most_common(12)))


def dollars_per_call(requests: list[dict[str, Any]], labels: Labels) -> float:
    """Estimated mean cost of one of these calls at gpt-4o-mini prices."""
    answer = oracle(labels)
    tokens_in = tokens_out = 0
    for request in requests:
        sent = json.dumps(request.get("messages", [])) + json.dumps(
            request.get("response_format") or request.get("tools") or {}
        )
        tokens_in += len(sent) // CHARS_PER_TOKEN
        tokens_out += len(json.dumps(answer(request).payload)) // CHARS_PER_TOKEN
    calls = max(len(requests), 1)
    print(f"  estimated tokens per call: {tokens_in / calls:.0f} in, {tokens_out / calls:.0f} out")
    return (tokens_in * INPUT_PRICE + tokens_out * OUTPUT_PRICE) / 1e6 / calls


def schema_name(request: dict[str, Any]) -> str:
    return str(request.get("response_format", {}).get("json_schema", {}).get("name", "?"))


def fenced_text(request: dict[str, Any]) -> str:
    text = str(request["messages"][-1]["content"])
    return text.removeprefix("<<<\n").removesuffix("\n>>>")


def restore_environment(saved: dict[str, str | None]) -> None:
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
