"""Admin for the knowledge base: upload documents, watch ingestion, read the gaps."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from kb import limits
from kb.documents import delete_document, queue_ingestion
from kb.extract import SUPPORTED_SUFFIXES
from kb.gaps import answer_gap
from kb.models import ConversationSummary, Document, KbSettings, KnowledgeGap
from kb.summaries import queue_indexing, set_approval
from tenants.admin_scoping import TenantScopedAdmin
from tenants.roles import may, role_action


class DocumentForm(forms.ModelForm):
    class Meta:
        model = Document
        fields = ("tenant", "title", "kind", "language", "file")

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        # Caught here for a quick answer; ingestion checks again for files stored other ways.
        suffix = PurePath(upload.name).suffix.lower()
        if suffix not in SUPPORTED_SUFFIXES:
            raise forms.ValidationError(f"Unsupported file type {suffix or '(none)'}.")
        if upload.size > limits.max_upload_bytes():
            raise forms.ValidationError("The file is larger than the upload limit.")
        return upload


@admin.register(Document)
class DocumentAdmin(TenantScopedAdmin):
    form = DocumentForm
    list_display = (
        "title",
        "kind",
        "language",
        "status",
        "status_reason",
        "chunk_count",
        "updated_at",
    )
    list_filter = ("status", "kind", "language")
    search_fields = ("title",)
    readonly_fields = (
        "status",
        "status_reason",
        "content_hash",
        "pages",
        "chunk_count",
        "embedded_count",
        "processed_at",
    )
    actions = ("reindex",)

    def save_model(self, request: HttpRequest, obj: Document, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if "file" in form.changed_data:
            queue_ingestion(obj.tenant_id, obj.pk)

    def delete_model(self, request: HttpRequest, obj: Document) -> None:
        delete_document(obj.tenant_id, obj.pk)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        for document in queryset:
            delete_document(document.tenant_id, document.pk)

    @role_action("kb.document.reindex", description="Re-index selected documents")
    def reindex(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        for document in queryset:
            queue_ingestion(document.tenant_id, document.pk)
        messages.info(request, f"{queryset.count()} document(s) queued for indexing.")


@admin.register(ConversationSummary)
class ConversationSummaryAdmin(TenantScopedAdmin):
    list_display = ("title", "language", "approved", "approved_at", "created_at")
    list_filter = ("approved",)
    readonly_fields = ("approved", "approved_at")
    actions = ("approve", "withdraw")

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if obj.approved and {"title", "text"} & set(form.changed_data):
            queue_indexing(obj)

    @role_action("kb.summary.approve", description="Approve as a knowledge source")
    def approve(self, request: HttpRequest, queryset: QuerySet[ConversationSummary]) -> None:
        for summary in queryset:
            set_approval(summary.tenant_id, summary.pk, approved=True)

    @role_action("kb.summary.withdraw", description="Withdraw approval")
    def withdraw(self, request: HttpRequest, queryset: QuerySet[ConversationSummary]) -> None:
        for summary in queryset:
            set_approval(summary.tenant_id, summary.pk, approved=False)


@admin.register(KnowledgeGap)
class KnowledgeGapAdmin(TenantScopedAdmin):
    """Questions the bot could not answer, most asked first; the owner answers each in
    place (the answer becomes an approved knowledge entry, kb.gaps.answer_gap)."""

    list_display = ("question", "count", "last_asked_at", "answer_link")
    ordering = ("-count", "-last_asked_at")
    search_fields = ("question",)
    readonly_fields = ("question_key", "question", "count", "first_asked_at", "last_asked_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # gaps come from customers' questions, not from typing

    @admin.display(description=_("answer"))
    def answer_link(self, obj: KnowledgeGap) -> str:
        url = reverse("admin:kb_knowledgegap_answer", args=[obj.pk])
        return format_html('<a class="button" href="{}">{}</a>', url, _("Answer"))

    def get_urls(self) -> list[URLPattern]:
        answer = path(
            "<int:gap_id>/answer/",
            self.admin_site.admin_view(self.answer_view),
            name="kb_knowledgegap_answer",
        )
        return [answer, *super().get_urls()]

    def answer_view(self, request: HttpRequest, gap_id: int) -> HttpResponse:
        gap = self.get_queryset(request).filter(pk=gap_id).first()
        if gap is None:
            raise Http404("question not found")
        if not may(request, "kb.gap.answer"):
            raise PermissionDenied
        text = str(request.POST.get("answer", ""))
        if request.method == "POST" and text.strip():
            self.log_change(request, gap, f"answered: {text.strip()[:200]}")
            answer_gap(gap.tenant_id, gap.pk, text)
            messages.success(request, _("Answered: the bot uses your answer from now on."))
            return redirect("admin:kb_knowledgegap_changelist")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Answer a customer's question"),
            "gap": gap,
            "answer": text,
        }
        return TemplateResponse(request, "admin/kb/answer_gap.html", context)


@admin.register(KbSettings)
class KbSettingsAdmin(TenantScopedAdmin):
    list_display = ("__str__", "top_k", "min_hits", "min_best_score", "min_mean_score")
