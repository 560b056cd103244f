"""Template helpers of the agent inbox."""

from __future__ import annotations

from typing import Any

from django import template
from django.http import HttpRequest
from django.urls import reverse
from django.utils.safestring import SafeString

from tenants.admin_scoping import request_tenant_id
from tulia.handoff import inbox
from tulia.handoff.errors import actor_id
from tulia.handoff.whatsapp_text import whatsapp_html

register = template.Library()


@register.filter(name="whatsapp")
def whatsapp(text: str) -> SafeString:
    return whatsapp_html(str(text or ""))


@register.inclusion_tag("admin/handoff/_badge.html", takes_context=True)
def inbox_badge(context: dict[str, Any]) -> dict[str, Any]:
    """Waiting and unread counts for the admin header, on every page of a tenant's staff."""
    request: HttpRequest | None = context.get("request")
    if request is None or not request.user.is_authenticated:
        return {"show": False}
    tenant_id = request_tenant_id(request)
    if tenant_id is None:
        return {"show": False}
    user_id = actor_id(request.user)
    counts = inbox.counts(tenant_id, user_id)
    return {
        "show": True,
        "counts": counts,
        "version": inbox.version(tenant_id, user_id, known=counts),
        "queue_url": reverse("admin:handoff_handoffticket_changelist"),
        "live_url": reverse("admin:handoff_live"),
    }
