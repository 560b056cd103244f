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


def log_rejection(request: HttpRequest, reason: str, number: str) -> None:
    # The number is ours (To/From of our sender), not the customer's: safe to log.
    logger.warning(
        "twilio webhook rejected: %s (path=%s number=%s ip=%s)",
        reason,
        request.path,
        number,
        request.META.get("REMOTE_ADDR", ""),
    )
