"""Binds a request id (and the staff tenant, when known) to every HTTP request."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from tulia.observability.tracing import accept_request_id, traced

HEADER = "X-Request-ID"


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = accept_request_id(request.headers.get(HEADER))
        request.request_id = request_id  # type: ignore[attr-defined]
        with traced(request_id=request_id):
            response = self.get_response(request)
        response[HEADER] = request_id
        return response
