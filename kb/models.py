"""Knowledge-base rows: documents, their chunks, approved summaries, gaps and settings."""

from __future__ import annotations

import uuid

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from pgvector.django import HnswIndex, VectorField

from tenants.models import LANGUAGE_CHOICES, TenantOwnedModel
from tulia.embeddings import EMBEDDING_DIMENSIONS

# 'simple' keeps every word as written: Swahili and Sheng have no Postgres stemmer and
# an English one would mangle them, so matching is exact words plus query-side prefixes.
FTS_CONFIG = "simple"
MAX_TOP_K = 8


class SourceType(models.TextChoices):
    POLICY = "policy"
    FAQ = "faq"
    DOC = "doc"
    SOP = "sop"
    SUMMARY = "summary", "approved conversation summary"


DOCUMENT_KINDS = [c for c in SourceType.choices if c[0] != SourceType.SUMMARY]


def document_upload_path(instance: Document, filename: str) -> str:
    # A fresh folder per upload: a re-upload never overwrites the file being ingested.
    return f"kb/{instance.tenant_id}/{uuid.uuid4().hex}/{filename}"


class KbSettings(TenantOwnedModel):
    """Per-tenant retrieval thresholds; a tenant without a row uses the defaults."""

    top_k = models.PositiveSmallIntegerField(
        default=5, validators=[MinValueValidator(1), MaxValueValidator(MAX_TOP_K)]
    )
    min_hits = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(MAX_TOP_K)]
    )
    min_best_score = models.FloatField(
        default=0.275, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)]
    )
    min_mean_score = models.FloatField(
        default=0.0, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)]
    )

    class Meta:
        verbose_name = "knowledge base settings"
        verbose_name_plural = "knowledge base settings"
        constraints = [
            models.UniqueConstraint(fields=["tenant"], name="kb_settings_one_per_tenant"),
            models.CheckConstraint(condition=models.Q(top_k__lte=MAX_TOP_K), name="kb_top_k_max"),
        ]

    def __str__(self) -> str:
        return "Knowledge base settings"


class Document(TenantOwnedModel):
    class Status(models.TextChoices):
        QUEUED = "queued"
        PROCESSING = "processing"
        READY = "ready"
        FAILED = "failed"

    title = models.CharField(max_length=200, verbose_name=_("title"))
    kind = models.CharField(
        max_length=8, choices=DOCUMENT_KINDS, default=SourceType.DOC, verbose_name=_("kind")
    )
    language = models.CharField(max_length=8, choices=LANGUAGE_CHOICES, blank=True)
    file = models.FileField(upload_to=document_upload_path, max_length=400)
    content_hash = models.CharField(max_length=64, blank=True, help_text=_("sha256 of the file"))
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.QUEUED, verbose_name=_("status")
    )
    status_reason = models.CharField(max_length=500, blank=True)
    indexed_hash = models.CharField(
        max_length=64, blank=True, help_text=_("file hash last indexed")
    )
    pages = models.PositiveIntegerField(default=0)
    chunk_count = models.PositiveIntegerField(default=0)
    embedded_count = models.PositiveIntegerField(default=0, help_text=_("chunks embedded last run"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["tenant", "status"], name="kb_document_status")]

    def __str__(self) -> str:
        return self.title


class ConversationSummary(TenantOwnedModel):
    """A summary of a resolved conversation; only approved ones are searchable."""

    title = models.CharField(max_length=200, verbose_name=_("title"))
    text = models.TextField()
    language = models.CharField(max_length=8, choices=LANGUAGE_CHOICES, blank=True)
    conversation_ref = models.CharField(max_length=64, blank=True)
    approved = models.BooleanField(default=False)
    approved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name_plural = "conversation summaries"

    def __str__(self) -> str:
        return self.title


class Chunk(TenantOwnedModel):
    document = models.ForeignKey(Document, null=True, on_delete=models.CASCADE, related_name="+")
    summary = models.ForeignKey(
        ConversationSummary, null=True, on_delete=models.CASCADE, related_name="+"
    )
    source_type = models.CharField(max_length=8, choices=SourceType.choices)
    title = models.CharField(max_length=200, verbose_name=_("title"))
    section_path = models.CharField(max_length=400, blank=True)
    position = models.PositiveIntegerField()
    text = models.TextField()
    content_hash = models.CharField(max_length=64, help_text=_("sha256 of embedder+section+text"))
    embedder = models.CharField(max_length=80)
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS)
    search_vector = models.GeneratedField(
        expression=SearchVector("title", "section_path", weight="A", config=FTS_CONFIG)
        + SearchVector("text", weight="B", config=FTS_CONFIG),
        output_field=SearchVectorField(),
        db_persist=True,
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(document__isnull=False, summary__isnull=True)
                | models.Q(document__isnull=True, summary__isnull=False),
                name="kb_chunk_one_source",
            ),
            models.UniqueConstraint(
                fields=["tenant", "document", "position"], name="kb_chunk_unique_position"
            ),
        ]
        indexes = [
            models.Index(fields=["tenant", "embedder", "source_type"], name="kb_chunk_scope"),
            models.Index(fields=["tenant", "content_hash"], name="kb_chunk_hash"),
            GinIndex(fields=["search_vector"], name="kb_chunk_fts"),
            HnswIndex(
                name="kb_chunk_embedding",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]

    def __str__(self) -> str:
        return f"{self.title} / {self.section_path or '-'} #{self.position}"


class KnowledgeGap(TenantOwnedModel):
    """A question the knowledge base could not answer, counted per normalised wording."""

    question_key = models.CharField(max_length=300)
    question = models.CharField(max_length=500)
    count = models.PositiveIntegerField(default=1)
    first_asked_at = models.DateTimeField(auto_now_add=True)
    last_asked_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "question_key"], name="kb_gap_unique")
        ]
        indexes = [models.Index(fields=["tenant", "-count"], name="kb_gap_by_count")]

    def __str__(self) -> str:
        return self.question
