"""The /metrics endpoint (Prometheus text format), optionally behind a bearer token."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from tulia.observability import metrics


@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    token = settings.TULIA_METRICS_TOKEN
    if token:
        offered = request.headers.get("Authorization", "").removeprefix("Bearer ")
        if not hmac.compare_digest(offered.encode(), token.encode()):
            return HttpResponse(status=401)
    body, content_type = metrics.render()
    return HttpResponse(body, content_type=content_type)
