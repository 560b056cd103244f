"""One trained verdict per message, shared by the intent, language and governor nodes.

The graph asks three nodes about the same inbound text in one turn; the model scores
all three heads in one pass, so the verdict is cached per text (a small LRU: a turn's
three questions arrive together).
"""

from __future__ import annotations

from functools import lru_cache

from journeys.nlu.runtime import Scores, predict


@lru_cache(maxsize=1024)
def verdict(text: str) -> dict[str, Scores]:
    return predict(text)
