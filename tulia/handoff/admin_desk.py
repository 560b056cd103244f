"""The agent desk page in Django admin: one ticket, its thread, the customer, what to do next.

Each POST names one operation; the view calls the matching desk function and reports
the result or the refusal (e.g. outside the 24-hour window) as an admin message. The
page polls `live` (below) and swaps in its regions when the version changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID, uuid4

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.text import slugify

from tenants.admin_scoping import request_tenant_id
from tenants.context import tenant_context
from tenants.errors import NotFound
from tenants.roles import may
from tulia.conversations.models import Conversation
from tulia.handoff import desk, inbox, queries
from tulia.handoff.errors import HandoffError, actor_id
from tulia.handoff.models import HandoffTicket, TicketStatus


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
        "reply": lambda: desk.reply_claiming(
            tenant_id, ticket_id, user_id, _reply_text(request, tenant_id), f"desk-{uuid4().hex}"
        ),
        "note": lambda: desk.add_note(tenant_id, ticket_id, user_id, body),
        "transfer": lambda: desk.transfer(tenant_id, ticket_id, user_id),
        "hand_back": lambda: desk.hand_back(tenant_id, ticket_id, user_id),
        "resolve": lambda: desk.resolve(tenant_id, ticket_id, user_id),
        "close": lambda: desk.resolve(tenant_id, ticket_id, user_id, close=True),
        "reopen": lambda: desk.reopen(tenant_id, ticket_id, user_id),
        "presence": lambda: desk.set_presence(
            tenant_id, user_id, request.POST.get("presence", "offline")
        ),
        "display_name": lambda: desk.set_display_name(
            tenant_id, user_id, request.POST.get("display_name", "")
        ),
    }


_DONE = {"reply": "Sent.", "note": "Note added.", "reopen": "Reopened: the chat is yours."}


def perform(request: HttpRequest, ticket: HandoffTicket) -> HttpResponse:
    op = request.POST.get("op", "")
    available = operations(request, ticket.tenant_id, ticket.pk)
    target = request.path
    if op not in available:
        messages.error(request, "Unknown desk operation.")
    elif not may(request, f"handoff.desk.{op}"):
        messages.error(request, "Your role may not do that.")
    else:
        try:
            result = available[op]()
            messages.success(request, _DONE.get(op, f"Done: {op.replace('_', ' ')}."))
            if isinstance(result, HandoffTicket) and result.pk != ticket.pk:
                target = reverse("admin:handoff_desk", args=[result.pk])
        except (HandoffError, NotFound, ValueError) as exc:
            messages.error(request, str(exc))
    return HttpResponseRedirect(target)


def _conversation_facts(ticket: HandoffTicket) -> tuple[str, str]:
    """The conversation's status and the language the bot last answered in."""
    with tenant_context(ticket.tenant_id) as tid:
        found = (
            Conversation.objects.filter(tenant_id=tid, pk=ticket.conversation_id)
            .values_list("status", "state__response_language")
            .first()
        )
    return (str(found[0]), str(found[1] or "")) if found else ("", "")


def actions_for(ticket: HandoffTicket, user_id: int, conversation_status: str) -> dict[str, bool]:
    """Which controls the desk offers, from the ticket's state as it is now: an agent is
    never shown a button whose operation would be refused."""
    mine = ticket.status == TicketStatus.ASSIGNED and ticket.assigned_to_id == user_id
    waiting = ticket.status == TicketStatus.OPEN
    return {
        "reply": mine or waiting,  # replying to a waiting customer claims the ticket
        "claim": waiting,
        "manage": mine,  # back to queue, hand back, resolve, close
        "reopen": ticket.status == TicketStatus.RESOLVED
        and conversation_status == Conversation.Status.AI_ACTIVE,
    }


def desk_context(
    request: HttpRequest, ticket: HandoffTicket, version: str | None = None
) -> dict[str, Any]:
    tenant_id = ticket.tenant_id
    user_id = actor_id(request.user)
    status, language = _conversation_facts(ticket)
    return {
        "ticket": ticket,
        "conversation_status": status,
        "bubbles": inbox.thread(tenant_id, ticket.conversation_id),
        "card": inbox.customer_card(tenant_id, ticket.customer_id, language),
        "info": ticket.context,
        "canned_data": [
            {"name": slugify(r.title), "title": r.title, "body": r.body}
            for r in queries.canned_replies(tenant_id)
        ],
        "can": actions_for(ticket, user_id, status),
        "presence": queries.presence_of(tenant_id, user_id),
        "version": version or inbox.version(tenant_id, user_id, ticket.conversation_id),
    }


def render_desk(request: HttpRequest, ticket: HandoffTicket, base: dict[str, Any]) -> HttpResponse:
    context = {
        **base,
        **desk_context(request, ticket),
        "title": f"{ticket.customer} · {ticket.get_category_display()}",
    }
    return TemplateResponse(request, "admin/handoff/desk.html", context)


def live(request: HttpRequest) -> HttpResponse:
    """The inbox poll: counts and a version; 304 when the agent's version is current.

    Cheap on purpose (a few indexed reads, no rendering): every open admin page asks
    every couple of seconds, on the same sync workers that answer Twilio's webhooks.
    The poll also carries whether the agent is active, so presence follows the desk."""
    tenant_id = request_tenant_id(request)
    if tenant_id is None:
        return JsonResponse({"error": "no tenant"}, status=404)
    user_id = actor_id(request.user)
    presence = desk.follow_activity(tenant_id, user_id, active=request.GET.get("active") == "1")
    conversation = request.GET.get("conversation", "")
    conversation_id = int(conversation) if conversation.isdigit() else None
    version = inbox.version(tenant_id, user_id, conversation_id)
    etag = f'"{version}"'
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponse(status=304)
    else:
        counts = inbox.counts(tenant_id, user_id)
        found = {"version": version, "presence": presence, **counts.__dict__}
        regions = _desk_regions(request, tenant_id, request.GET.get("ticket", ""), version)
        response = JsonResponse({**found, "regions": regions} if regions else found)
    response["ETag"] = etag
    return response


def _desk_regions(request: HttpRequest, tenant_id: UUID, ticket: str, version: str) -> str:
    """A changed desk's live regions, rendered alone: the poll that saw the change
    carries them, so the page needs no second request and the server renders no admin
    page around them (menu, sidebar). Empty when the poll is not a desk's."""
    if not ticket.isdigit():
        return ""
    with tenant_context(tenant_id) as tid:
        found = (
            HandoffTicket.objects.filter(tenant_id=tid, pk=int(ticket))
            .select_related("customer", "assigned_to")
            .first()
        )
    if found is None:
        return ""
    context = desk_context(request, found, version)
    return render_to_string("admin/handoff/_regions.html", context, request)
