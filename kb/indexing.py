"""Embed chunk drafts (reusing unchanged ones) and swap a source's chunks in one go.

Planning runs outside any lock because embedding may be slow or remote; the swap runs in
one transaction, so readers see the old chunks or the new ones, never a mixture.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from kb.chunking import ChunkDraft
from kb.embedding import kb_embedder
from kb.models import Chunk
from tenants.context import tenant_context

EMBED_BATCH = 64


@dataclass(frozen=True)
class PlannedChunk:
    section_path: str
    text: str
    content_hash: str
    embedding: list[float]


@dataclass(frozen=True)
class Plan:
    embedder: str
    chunks: list[PlannedChunk]
    embedded: int  # how many needed a fresh embedding (the rest were unchanged)


def embedding_input(title: str, section_path: str, text: str) -> str:
    # Title and section carry meaning the body often leaves implicit ("Fees" → delivery).
    return f"{title}\n{section_path}\n{text}"


def content_hash(embedder: str, title: str, draft: ChunkDraft) -> str:
    material = "\x1f".join([embedder, title, draft.section_path, draft.text])
    return hashlib.sha256(material.encode()).hexdigest()


def plan(tenant_id: UUID | str, title: str, drafts: Sequence[ChunkDraft]) -> Plan:
    embedder = kb_embedder()
    hashes = [content_hash(embedder.name, title, d) for d in drafts]
    known = _known_embeddings(tenant_id, embedder.name, hashes)
    missing = [i for i, h in enumerate(hashes) if h not in known]
    for start in range(0, len(missing), EMBED_BATCH):
        batch = missing[start : start + EMBED_BATCH]
        inputs = [embedding_input(title, drafts[i].section_path, drafts[i].text) for i in batch]
        known.update(zip((hashes[i] for i in batch), embedder.embed(inputs), strict=True))
    planned = [
        PlannedChunk(d.section_path, d.text, h, list(known[h]))
        for d, h in zip(drafts, hashes, strict=True)
    ]
    return Plan(embedder=embedder.name, chunks=planned, embedded=len(missing))


def _known_embeddings(
    tenant_id: UUID | str, embedder: str, hashes: list[str]
) -> dict[str, list[float]]:
    with tenant_context(tenant_id) as tid:
        rows = Chunk.objects.filter(
            tenant_id=tid, embedder=embedder, content_hash__in=set(hashes)
        ).values_list("content_hash", "embedding")
        return {h: list(e) for h, e in rows}


def write_chunks(
    tenant_id: UUID, the_plan: Plan, *, title: str, source_type: str, **source: object
) -> int:
    """Replace every chunk of `source` (document=… or summary=…); call inside a transaction."""
    Chunk.objects.filter(tenant_id=tenant_id, **source).delete()
    rows = [
        Chunk(
            tenant_id=tenant_id,
            source_type=source_type,
            title=title,
            section_path=c.section_path[:400],
            position=position,
            text=c.text,
            content_hash=c.content_hash,
            embedder=the_plan.embedder,
            embedding=c.embedding,
            **source,
        )
        for position, c in enumerate(the_plan.chunks)
    ]
    Chunk.objects.bulk_create(rows, batch_size=500)
    return len(rows)
