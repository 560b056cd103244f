"""The short product code the shop page puts in its WhatsApp message, and its reader.

`#P12` names item 12, `#P12V34` its variant 34. The ids are only meaningful inside the
shop whose number received the message: the bot resolves them through the tenant's
catalog tools, so another shop's code is simply "not found".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CODE = re.compile(r"#P(\d{1,12})(?:V(\d{1,12}))?\b", re.IGNORECASE)


@dataclass(frozen=True)
class ProductCode:
    item_id: int
    variant_id: int | None = None

    def __str__(self) -> str:
        suffix = f"V{self.variant_id}" if self.variant_id else ""
        return f"#P{self.item_id}{suffix}"


def find_code(text: str) -> ProductCode | None:
    """The one code in a message; none, or two different ones, is no selection."""
    found = {(int(m[1]), int(m[2]) if m[2] else None) for m in _CODE.finditer(text or "")}
    if len(found) != 1:
        return None
    item_id, variant_id = found.pop()
    return ProductCode(item_id, variant_id) if item_id > 0 else None
