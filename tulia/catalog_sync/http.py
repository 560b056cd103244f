"""One outbound call to a store, through tulia.netguard, with errors that say if retrying helps."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from tulia.catalog_sync.errors import SyncError
from tulia.netguard import UnsafeAddress, request_public

TIMEOUT_SECONDS = 20.0


def call(
    method: str,
    url: str,
    *,
    headers: Mapping[str, str],
    json: Any = None,
    https_only: bool = True,
) -> httpx.Response:
    try:
        answer = request_public(
            method, url, timeout=TIMEOUT_SECONDS, headers=headers, json=json, https_only=https_only
        )
    except UnsafeAddress as exc:
        raise SyncError("unsafe_address", str(exc), retryable=False) from exc
    except httpx.HTTPError as exc:
        raise SyncError("unreachable", f"{type(exc).__name__}: {exc}", retryable=True) from exc
    if answer.status_code in (401, 403):
        raise SyncError("unauthorized", "the store refused our credentials", retryable=False)
    if answer.status_code >= 500:
        raise SyncError("store_error", f"the store answered {answer.status_code}", retryable=True)
    return answer


def json_body(answer: httpx.Response) -> Any:
    try:
        return answer.json()
    except ValueError as exc:
        raise SyncError("bad_answer", "the store's answer is not JSON", retryable=True) from exc
