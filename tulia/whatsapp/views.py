"""Twilio webhooks: tenant from our number → signature → strict parse → one domain call.

Inbound messages are signed for our number in `To`; status callbacks for our outbound
messages carry our number in `From`. Either way the tenant and its auth token come
from our own number, never from anything else the caller chose.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from tenants.errors import NotFound
from tenants.resolution import ResolvedSender
from tulia.whatsapp.ingest import accept_inbound
from tulia.whatsapp.schemas import MalformedForm, parse_inbound, parse_status
from tulia.whatsapp.senders import resolve_sender
from tulia.whatsapp.signature import is_signed_by, log_rejection
from tulia.whatsapp.status import apply_status

EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>'


class Rejected(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _authenticate(request: HttpRequest, our_number_field: str) -> ResolvedSender:
    number = request.POST.get(our_number_field, "")
    if not number:
        raise Rejected(400)
    try:
        resolved = resolve_sender(number)
    except NotFound as exc:
        log_rejection(request, "unknown number", number)
        raise Rejected(404) from exc
    sender = resolved.sender
    if not is_signed_by(request, sender.twilio_auth_token.reveal()):
        log_rejection(request, "bad or missing signature", number)
        raise Rejected(403)
    if request.POST.get("AccountSid") != sender.twilio_account_sid:
        log_rejection(request, "AccountSid does not own this number", number)
        raise Rejected(403)
    return resolved


@csrf_exempt
@require_POST
def inbound(request: HttpRequest) -> HttpResponse:
    try:
        resolved = _authenticate(request, "To")
        form = parse_inbound(request.POST)
        accept_inbound(resolved.tenant_id, resolved.sender, form)
    except Rejected as rejected:
        return HttpResponse(status=rejected.status)
    except MalformedForm:
        return HttpResponse(status=400)
    return HttpResponse(EMPTY_TWIML, content_type="text/xml")


@csrf_exempt
@require_POST
def status_callback(request: HttpRequest) -> HttpResponse:
    try:
        resolved = _authenticate(request, "From")
        apply_status(resolved.tenant_id, parse_status(request.POST))
    except Rejected as rejected:
        return HttpResponse(status=rejected.status)
    except MalformedForm:
        return HttpResponse(status=400)
    return HttpResponse(status=204)
