"""Store webhooks: tenant and connection from the URL → signature → store once → 200.

Processing happens in a Celery task after commit; the platform only waits for the store.
"""

from __future__ import annotations

import re

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from tulia.catalog_sync.ingest import HEADERS, KEPT_HEADERS, Envelope, Refused, accept
from tulia.catalog_sync.models import Platform

# WooCommerce pings a new webhook's URL once, unsigned, with only its id as a form body.
_WOO_PING = re.compile(rb"webhook_id=\d{1,20}")


def _receive(request: HttpRequest, platform: str, tenant_id: str, token: str) -> HttpResponse:
    names = (*HEADERS[Platform(platform)], *KEPT_HEADERS)
    headers = {name: request.headers[name] for name in names if name in request.headers}
    envelope = Envelope(platform, tenant_id, token, request.body, headers)
    try:
        accept(envelope)
    except Refused as refused:
        return HttpResponse(status=refused.status)
    return HttpResponse(status=200)


@csrf_exempt
@require_POST
def shopify_webhook(request: HttpRequest, tenant_id: str, token: str) -> HttpResponse:
    return _receive(request, Platform.SHOPIFY, tenant_id, token)


@csrf_exempt
@require_POST
def woocommerce_webhook(request: HttpRequest, tenant_id: str, token: str) -> HttpResponse:
    if _WOO_PING.fullmatch(request.body) and "X-WC-Webhook-Signature" not in request.headers:
        return HttpResponse(status=200)
    return _receive(request, Platform.WOOCOMMERCE, tenant_id, token)
