"""The embedder interface and the process-wide choice of implementation.

Every embedder produces vectors of the same width so one pgvector column (and one
HNSW index) serves all of them; rows remember which embedder made them, and a search
only compares vectors made by the same one.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Protocol

from django.conf import settings

EMBEDDING_DIMENSIONS = 384


class Embedder(Protocol):
    name: str
    dimensions: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit-length vector of `dimensions` floats per text, in order."""
        ...


@functools.cache
def get_embedder() -> Embedder:
    """OpenAI when a key is configured (and not disabled), otherwise the offline default."""
    if settings.TULIA_EMBEDDER == "openai":
        from tulia.embeddings.openai import OpenAIEmbedder

        return OpenAIEmbedder()
    from tulia.embeddings.offline import OfflineEmbedder

    return OfflineEmbedder()
