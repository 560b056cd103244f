"""How many examples a property runs: the full count in `make test`, a few in test-fast.

`make test-fast` loads the "fast" profile (`--hypothesis-profile=fast`). A count pinned in
a test's own @settings would win over any profile, so properties ask for their count
through `examples(n)` instead of writing `max_examples=n`.
"""

from __future__ import annotations

from hypothesis import settings

FAST_EXAMPLES = 5

settings.register_profile("fast", max_examples=FAST_EXAMPLES)


def examples(count: int) -> int:
    """`count` normally; at most FAST_EXAMPLES under the fast profile."""
    if settings.get_current_profile_name() == "fast":
        return min(count, FAST_EXAMPLES)
    return count
