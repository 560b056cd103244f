"""Pluggable text embeddings shared by catalog search and (later) the knowledge base."""

from tulia.embeddings.base import EMBEDDING_DIMENSIONS, Embedder, get_embedder

__all__ = ["EMBEDDING_DIMENSIONS", "Embedder", "get_embedder"]
