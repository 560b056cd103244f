"""The page's words in the shop's language, from the one text catalog the bot uses."""

from __future__ import annotations

from functools import cache

from journeys.flows.phrases import label

KEYS = (
    "search", "search_button", "all", "in_stock", "sold_out", "order", "price_from", "sizes",
    "choose", "more", "back", "no_results", "results", "hours", "location", "delivery",
    "policies", "about", "closed", "scan", "order_text", "not_found", "map", "catalog", "chat",
    "mon", "tue", "wed", "thu", "fri", "sat", "sun",
)  # fmt: skip


@cache
def words(language: str) -> dict[str, str]:
    return {key: label(language, "storefront", key) for key in KEYS}
