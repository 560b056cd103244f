"""OpenAI embeddings, shortened to our column width (text-embedding-3 supports that)."""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings

from tulia.embeddings.base import EMBEDDING_DIMENSIONS

DEFAULT_MODEL = "text-embedding-3-small"


class OpenAIEmbedder:
    dimensions = EMBEDDING_DIMENSIONS

    def __init__(self, model: str | None = None) -> None:
        from langchain_openai import OpenAIEmbeddings

        self.model = model or settings.TULIA_OPENAI_EMBEDDING_MODEL
        self.name = f"openai-{self.model}-{self.dimensions}"
        self._client = OpenAIEmbeddings(model=self.model, dimensions=self.dimensions)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self._client.embed_documents(list(texts)) if texts else []
