"""Demo knowledge base: each demo shop's policies and guides in English and Swahili.

Idempotent: a document is found by title; an unchanged file is left alone, a changed one
is re-uploaded, and ingestion runs here (not on the queue) so the demo answers at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kb.documents import replace_file, submit_document
from kb.ingest import ingest_document
from kb.models import Document, SourceType
from tenants.context import tenant_context
from tenants.models import Tenant

DOCS_DIR = Path(__file__).resolve().parent / "demo_docs"
TOPIC_KINDS = {
    "returns": SourceType.POLICY,
    "delivery": SourceType.POLICY,
    "hours": SourceType.DOC,
    "mpesa": SourceType.FAQ,
    "sizes": SourceType.DOC,
}


@dataclass(frozen=True)
class DemoDocument:
    topic: str
    language: str
    title: str
    path: Path

    @property
    def kind(self) -> str:
        return TOPIC_KINDS[self.topic]


def demo_documents(slug: str) -> list[DemoDocument]:
    docs = []
    for path in sorted((DOCS_DIR / slug).glob("*.md")):
        topic, language = path.stem.split(".")
        title = re.search(r"^# (.+)$", path.read_text(encoding="utf-8"), re.MULTILINE)
        docs.append(DemoDocument(topic, language, title.group(1) if title else topic, path))
    return docs


def seed_documents(tenants: list[Tenant]) -> None:
    for tenant in tenants:
        for doc in demo_documents(tenant.slug):
            seed_one(tenant, doc)


def seed_one(tenant: Tenant, doc: DemoDocument) -> Document:
    data = doc.path.read_bytes()
    with tenant_context(tenant.id) as tid:
        existing = Document.objects.filter(tenant_id=tid, title=doc.title).first()
    if existing is None:
        document = submit_document(
            tenant.id,
            title=doc.title,
            kind=doc.kind,
            filename=doc.path.name,
            data=data,
            language=doc.language,
            queue=False,
        )
    else:
        document = replace_file(
            tenant.id, existing.pk, filename=doc.path.name, data=data, queue=False
        )
    ingest_document(tenant.id, document.pk, document.content_hash)
    return document
