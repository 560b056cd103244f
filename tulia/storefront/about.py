"""What the page says about the shop: hours, location, delivery and its policies.

Hours come from the shop's handoff settings (the same schedule the bot uses to say
when a person is around); policies are the shop's own policy documents in its
knowledge base, each with the start of its first passage.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from kb.models import Chunk, Document, SourceType
from tenants.accessors import tenant_scope
from tenants.config import WEEKDAYS
from tenants.models import Tenant

POLICY_EXCERPT = 280
MAX_POLICIES = 6


@dataclass(frozen=True)
class DayHours:
    day: str  # "mon" … "sun", the label key
    windows: list[str]  # ["08:00-18:00"]; empty means closed


@dataclass(frozen=True)
class Policy:
    title: str
    excerpt: str


def opening_hours(tenant: Tenant) -> list[DayHours]:
    """The week's windows; an empty list when the shop has set no hours at all."""
    hours = tenant.handoff_settings.business_hours
    week = [
        DayHours(day, [f"{w.opens:%H:%M}-{w.closes:%H:%M}" for w in hours.windows(n)])
        for n, day in enumerate(WEEKDAYS)
    ]
    return week if any(d.windows for d in week) else []


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= POLICY_EXCERPT:
        return text
    return text[:POLICY_EXCERPT].rsplit(" ", 1)[0] + "…"


def policies(tenant_id: UUID | str, language: str) -> list[Policy]:
    """The shop's policies in the page's language (and those with no language set); a
    shop that wrote them only in another language still shows them."""
    with tenant_scope(tenant_id) as tid:
        ready = Document.objects.filter(
            tenant_id=tid, kind=SourceType.POLICY, status=Document.Status.READY
        ).order_by("title")
        documents = list(ready.filter(language__in=[language, ""])[:MAX_POLICIES])
        documents = documents or list(ready[:MAX_POLICIES])
        # DISTINCT ON: one row, the first passage, per document.
        chunks = (
            Chunk.objects.filter(tenant_id=tid, document__in=documents)
            .order_by("document_id", "position")
            .distinct("document_id")
        )
        first = dict(chunks.values_list("document_id", "text"))
    return [Policy(d.title, _excerpt(first.get(d.pk, ""))) for d in documents]
