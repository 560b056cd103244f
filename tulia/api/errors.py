"""Error answers of the tenant API carry the request id, so a shop's developer can quote
it and we can find the request in the logs (SPEC §9: tracing).

DRF's own errors get it through `exception_handler`; Django's 404 and 500 pages are
replaced by JSON for paths under /api/ (a helpdesk client expects JSON there, and the
OpenAPI schema promises it), and stay HTML everywhere else.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import exceptions as drf_exceptions
from rest_framework.exceptions import APIException
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from tenants.errors import NotFound
from tulia.errors import DomainError
from tulia.observability.tracing import current_request_id

API_PREFIX = "/api/"

# A refusal is a 409 unless its code says the caller may not do it at all.
_STATUS_BY_CODE = {"not_your_ticket": 403, "not_staff": 403}


class Conflict(APIException):
    """A domain refusal (e.g. an order step its status does not allow): 409 with
    {"code", "detail", "request_id"}, the one shape every refusal of the API has."""

    status_code = 409
    default_detail = "The resource's current state does not allow this."
    default_code = "conflict"

    def __init__(self, detail: str | None = None, code: str | None = None) -> None:
        super().__init__(
            {"code": code or self.default_code, "detail": detail or str(self.default_detail)}
        )


def refusal(error: DomainError) -> APIException:
    """The API's answer to a domain error, mapped here once for every endpoint."""
    if isinstance(error, NotFound):
        return drf_exceptions.NotFound()  # absent and not-yours answer alike
    answer = Conflict(error.message, error.code)
    answer.status_code = _STATUS_BY_CODE.get(error.code, 409)
    return answer


def _request_id(request: HttpRequest | None = None) -> str:
    return getattr(request, "request_id", None) or current_request_id() or ""


class UniqueConflict(Conflict):
    default_detail = "A value you sent is already in use (it must be unique); change it."
    default_code = "not_unique"


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, IntegrityError):
        # A unique value held by another shop: RLS hides that row from the serializer's
        # own unique check, so the database is the one to say no. Say nothing of whose.
        exc = UniqueConflict()
    elif isinstance(exc, DomainError):
        exc = refusal(exc)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # unhandled: Django's 500 (JSON under /api/, see server_error)
    data = response.data if isinstance(response.data, dict) else {"detail": response.data}
    response.data = {**data, "request_id": _request_id(context.get("request"))}
    return response


def _json(request: HttpRequest, detail: str, status: int) -> JsonResponse:
    return JsonResponse({"detail": detail, "request_id": _request_id(request)}, status=status)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        return _json(request, "Not found.", 404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        return _json(request, "Server error.", 500)
    return defaults.server_error(request)
