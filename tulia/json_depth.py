"""Refuse JSON nested deeper than any real payload, before a parser recurses into it.

Python's json module recurses once per level: a body of 100,000 `[` raises
RecursionError, which no view expects, so the caller got a 500 (tenant API, PesaPal
IPN). No provider payload or API body of ours nests beyond a dozen levels.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

MAX_JSON_DEPTH = 64
_STRUCTURE = re.compile(rb'[\\"\[\]{}]')


def json_depth_exceeds(raw: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when brackets outside strings nest deeper than `limit`."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False  # cannot nest deeper than it has brackets: the usual, cheap answer
    depth, in_string, escaped = 0, False, False
    last = -2
    for match in _STRUCTURE.finditer(raw):
        char, at = match.group(), match.start()
        if escaped and at == last + 1:
            escaped = False
            last = at
            continue
        escaped = False
        last = at
        if char == b"\\":
            escaped = in_string
        elif char == b'"':
            in_string = not in_string
        elif not in_string:
            depth += 1 if char in (b"[", b"{") else -1
            if depth > limit:
                return True
    return False


class JsonDepthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "json" in (request.content_type or "") and json_depth_exceeds(request.body):
            return JsonResponse(
                {"detail": f"JSON nested deeper than {MAX_JSON_DEPTH} levels."}, status=400
            )
        return self.get_response(request)
