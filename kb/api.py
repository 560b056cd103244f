"""Tenant API for knowledge-base documents: upload, list, status, re-upload, delete.

Register on the tenant API router (tulia/api/urls.py):
    router.register("kb/documents", DocumentViewSet, basename="kb-document")
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from django.db.models import QuerySet
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from kb import limits
from kb.documents import delete_document, replace_file, submit_document
from kb.extract import SUPPORTED_SUFFIXES
from kb.models import DOCUMENT_KINDS, Document
from tenants.models import LANGUAGE_CHOICES
from tulia.api.authentication import TenantScoped


class DocumentSerializer(serializers.ModelSerializer):
    class Meta:
        model = Document
        fields = (
            "id",
            "title",
            "kind",
            "language",
            "status",
            "status_reason",
            "pages",
            "chunk_count",
            "content_hash",
            "created_at",
            "updated_at",
            "processed_at",
        )
        read_only_fields = fields


def _checked_file(upload: Any) -> Any:
    suffix = PurePath(upload.name).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise serializers.ValidationError(f"unsupported file type {suffix or '(none)'}")
    if upload.size > limits.max_upload_bytes():
        raise serializers.ValidationError("the file is larger than the upload limit")
    return upload


class UploadSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=200)
    kind = serializers.ChoiceField(choices=DOCUMENT_KINDS)
    language = serializers.ChoiceField(choices=LANGUAGE_CHOICES, required=False, default="")
    file = serializers.FileField(validators=[_checked_file])


class ReplaceSerializer(serializers.Serializer):
    file = serializers.FileField(validators=[_checked_file])


class DocumentViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    TenantScoped,
    viewsets.GenericViewSet,
):
    serializer_class = DocumentSerializer
    parser_classes = [MultiPartParser]
    queryset = Document.objects.none()  # for the schema only; see get_queryset

    def get_queryset(self) -> QuerySet[Document]:
        return Document.objects.filter(tenant_id=self.tenant_id()).order_by("id")

    def create(self, request: Request) -> Response:
        form = UploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        document = submit_document(
            self.tenant_id(),
            title=data["title"],
            kind=data["kind"],
            language=data["language"],
            filename=PurePath(data["file"].name).name,
            data=data["file"].read(),
        )
        return Response(DocumentSerializer(document).data, status=status.HTTP_202_ACCEPTED)

    @action(detail=True, methods=["put"], url_path="file")
    def replace(self, request: Request, pk: str | None = None) -> Response:
        document = self.get_object()
        form = ReplaceSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        upload = form.validated_data["file"]
        document = replace_file(
            self.tenant_id(), document.pk, filename=PurePath(upload.name).name, data=upload.read()
        )
        return Response(DocumentSerializer(document).data, status=status.HTTP_202_ACCEPTED)

    def destroy(self, request: Request, pk: str | None = None) -> Response:
        delete_document(self.tenant_id(), self.get_object().pk)
        return Response(status=status.HTTP_204_NO_CONTENT)
