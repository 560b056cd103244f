"""The embedder the knowledge base uses: the platform's shared, pluggable one."""

from __future__ import annotations

from tulia.embeddings import Embedder, get_embedder


def kb_embedder() -> Embedder:
    return get_embedder()
