"""X-Twilio-Signature checks over the URL Twilio signed (protocols.md §1.3).

The URL is rebuilt from the configured public base URL plus the path and query exactly
as received: behind a TLS-terminating proxy the Host and scheme we see are not the
ones Twilio used, so they are never trusted.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.http import HttpRequest
from twilio.request_validator import RequestValidator

logger = logging.getLogger("tulia.security")
SIGNATURE_HEADER = "X-Twilio-Signature"


def signed_url(request: HttpRequest) -> str:
    return f"{settings.PUBLIC_BASE_URL}{request.get_full_path()}"


def is_signed_by(request: HttpRequest, auth_token: str) -> bool:
    """True when the request carries a valid signature made with `auth_token`."""
    signature = request.headers.get(SIGNATURE_HEADER, "")
    if not signature or not auth_token:
        return False
    return bool(RequestValidator(auth_token).validate(signed_url(request), request.POST, signature))


MAX_LOGGED_NUMBER = 32


def log_rejection(request: HttpRequest, reason: str, number: str) -> None:
    # The number should be ours (To/From of our sender), not the customer's. It is still
    # caller-chosen text until it resolves: clipped and ascii()-escaped, so a forged line
    # break or a megabyte of "number" cannot write fake log lines or flood the log.
    logger.warning(
        "twilio webhook rejected: %s (path=%s number=%s ip=%s)",
        reason,
        request.path,
        ascii(number[:MAX_LOGGED_NUMBER]),
        request.META.get("REMOTE_ADDR", ""),
    )
