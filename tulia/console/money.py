"""KES as a shop writes it: "KES 1,250" (cents only when there are some)."""

from __future__ import annotations

from decimal import Decimal


def kes_text(amount: Decimal | int | None) -> str:
    if amount is None:
        return "—"
    value = Decimal(amount)
    if value == value.to_integral_value():
        return f"KES {value:,.0f}"
    return f"KES {value:,.2f}"
