"""USD prices per million tokens, for metering (not billing): override per deployment.

Figures are the providers' published list prices for the models we configure; unknown
models cost 0 so metering never blocks a turn.
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings

# model name prefix → (input, output) USD per 1M tokens
DEFAULT_PRICES: dict[str, tuple[Decimal, Decimal]] = {
    "gpt-4o-mini": (Decimal("0.15"), Decimal("0.60")),
    "gpt-4o": (Decimal("2.50"), Decimal("10.00")),
    "gpt-4.1-mini": (Decimal("0.40"), Decimal("1.60")),
    "gpt-4.1-nano": (Decimal("0.10"), Decimal("0.40")),
}
MILLION = Decimal(1_000_000)


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int) -> Decimal:
    prices = {**DEFAULT_PRICES, **getattr(settings, "TULIA_LLM_PRICES", {})}
    # Longest prefix wins, so "gpt-4o-mini-2024-07-18" is priced as gpt-4o-mini.
    match = max((name for name in prices if model.startswith(name)), key=len, default=None)
    if match is None:
        return Decimal("0")
    per_input, per_output = prices[match]
    return (per_input * prompt_tokens + per_output * completion_tokens) / MILLION
