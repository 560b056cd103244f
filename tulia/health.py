"""Liveness and readiness probes.

/healthz answers as long as the process serves requests; /readyz also proves the
database and Redis answer, so a load balancer stops routing to a pod that lost either.
"""

from __future__ import annotations

import time

import redis
from django.conf import settings
from django.db import connection
from django.db.utils import Error as DatabaseError
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from tulia.redis_client import client_for


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def _check_database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        return f"database: {exc.__class__.__name__}"
    return None


def _check_redis() -> str | None:
    timeout = settings.TULIA_READYZ_TIMEOUT_SECONDS
    try:
        client_for(settings.REDIS_URL, timeout).ping()
    except (redis.RedisError, OSError) as exc:
        return f"redis: {exc.__class__.__name__}"
    return None


@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    started = time.perf_counter()
    failures = [problem for problem in (_check_database(), _check_redis()) if problem]
    body = {
        "status": "unavailable" if failures else "ready",
        "failures": failures,
        "elapsed_ms": round((time.perf_counter() - started) * 1000, 1),
    }
    return JsonResponse(body, status=503 if failures else 200)
