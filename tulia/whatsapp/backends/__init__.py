"""Outbound WhatsApp backends, chosen by setting like Django's email backends.

`TULIA_WHATSAPP_BACKEND` (a setting, from the environment at start-up) names the class
by dotted path.
Unset, the Twilio REST backend is used when a Twilio API base is configured
(`TULIA_TWILIO_API_BASE`, e.g. the local emulator) or in production, and the console
backend otherwise: demo tokens are not real credentials.
"""

from __future__ import annotations

from django.conf import settings
from django.utils.module_loading import import_string

from tulia.whatsapp.backends.base import OutgoingMessage, SendError, SendResult, WhatsAppBackend

CONSOLE = "tulia.whatsapp.backends.console.ConsoleBackend"
TWILIO = "tulia.whatsapp.backends.twilio_rest.TwilioBackend"

__all__ = ["OutgoingMessage", "SendError", "SendResult", "WhatsAppBackend", "get_backend"]


def twilio_api_base() -> str | None:
    base = settings.TULIA_TWILIO_API_BASE
    return str(base).rstrip("/") if base else None


def backend_path() -> str:
    configured = settings.TULIA_WHATSAPP_BACKEND
    if configured:
        return str(configured)
    if twilio_api_base() or settings.IS_PRODUCTION:
        return TWILIO
    return CONSOLE


def get_backend() -> WhatsAppBackend:
    backend_class = import_string(backend_path())
    backend: WhatsAppBackend = backend_class()
    return backend
