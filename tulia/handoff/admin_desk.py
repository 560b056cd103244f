"""The agent desk page in Django admin: one ticket, its context, and what to do next.

Each POST names one operation; the view calls the matching desk function and reports
the result or the refusal (e.g. outside the 24-hour window) as an admin message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID, uuid4

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse

from tenants.errors import NotFound
from tenants.roles import may
from tulia.handoff import desk, queries
from tulia.handoff.errors import HandoffError, actor_id
from tulia.handoff.models import HandoffTicket


def _reply_text(request: HttpRequest, tenant_id: UUID) -> str:
    """The typed reply, or the chosen canned reply when nothing was typed."""
    typed = request.POST.get("body", "").strip()
    canned_id = request.POST.get("canned", "")
    if typed or not canned_id.isdigit():
        return typed
    chosen = [r.body for r in queries.canned_replies(tenant_id) if r.pk == int(canned_id)]
    return chosen[0] if chosen else ""


def operations(
    request: HttpRequest, tenant_id: UUID, ticket_id: int
) -> dict[str, Callable[[], Any]]:
    user_id = actor_id(request.user)
    body = request.POST.get("body", "")
    return {
        "claim": lambda: desk.claim(tenant_id, ticket_id, user_id),
        "reply": lambda: desk.reply(
            tenant_id, ticket_id, user_id, _reply_text(request, tenant_id), f"desk-{uuid4().hex}"
        ),
        "note": lambda: desk.add_note(tenant_id, ticket_id, user_id, body),
        "transfer": lambda: desk.transfer(tenant_id, ticket_id, user_id),
        "hand_back": lambda: desk.hand_back(tenant_id, ticket_id, user_id),
        "resolve": lambda: desk.resolve(tenant_id, ticket_id, user_id),
        "close": lambda: desk.resolve(tenant_id, ticket_id, user_id, close=True),
        "presence": lambda: desk.set_presence(
            tenant_id, user_id, request.POST.get("presence", "offline")
        ),
    }


def perform(request: HttpRequest, ticket: HandoffTicket) -> HttpResponse:
    op = request.POST.get("op", "")
    available = operations(request, ticket.tenant_id, ticket.pk)
    if op not in available:
        messages.error(request, "Unknown desk operation.")
    elif not may(request, f"handoff.desk.{op}"):
        messages.error(request, "Your role may not do that.")
    else:
        try:
            available[op]()
            messages.success(request, f"Done: {op.replace('_', ' ')}.")
        except (HandoffError, NotFound, ValueError) as exc:
            messages.error(request, str(exc))
    return HttpResponseRedirect(request.path)


def render_desk(request: HttpRequest, ticket: HandoffTicket, base: dict[str, Any]) -> HttpResponse:
    tenant_id = ticket.tenant_id
    context = {
        **base,
        "title": f"Ticket {ticket.pk}: {ticket.get_category_display()}",
        "ticket": ticket,
        "info": ticket.context,
        "events": queries.events(tenant_id, ticket.pk),
        "transcript": queries.transcript(tenant_id, ticket.conversation_id),
        "canned": queries.canned_replies(tenant_id),
        "mine": ticket.assigned_to_id == request.user.pk,
        "presence": queries.presence_of(tenant_id, actor_id(request.user)),
    }
    return TemplateResponse(request, "admin/handoff/desk.html", context)
