"""The short product code the shop page puts in its WhatsApp message, and its reader.

`#P12` names item 12, `#P12V34` its variant 34, and `#P12V34-chat` says the visit that
led to it came from a chat link (`-qr`, `-<broadcast tag>`; no suffix: a direct visit).
The ids are only meaningful inside the shop whose number received the message: the bot
resolves them through the tenant's catalog tools, so another shop's code is simply
"not found". The source rides along to the order the selection ends in, so the shop
sees which links bring orders, not only visits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DIRECT = "direct"
# It ends where no letter, digit or underscore follows (a tag may itself end in "-").
_CODE = re.compile(
    r"#P(\d{1,12})(?:V(\d{1,12}))?(?:-([a-z0-9][a-z0-9_-]{0,39}))?(?![a-z0-9_])",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ProductCode:
    item_id: int
    variant_id: int | None = None
    source: str = DIRECT  # a visits.source_tag value

    def __str__(self) -> str:
        variant = f"V{self.variant_id}" if self.variant_id else ""
        source = "" if self.source == DIRECT else f"-{self.source}"
        return f"#P{self.item_id}{variant}{source}"


def find_code(text: str) -> ProductCode | None:
    """The one code in a message; none, or two different ones, is no selection."""
    found = {
        (int(m[1]), int(m[2]) if m[2] else None, (m[3] or DIRECT).lower())
        for m in _CODE.finditer(text or "")
    }
    if len(found) != 1:
        return None
    item_id, variant_id, source = found.pop()
    return ProductCode(item_id, variant_id, source) if item_id > 0 else None
