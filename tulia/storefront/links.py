"""Addresses into and out of the shop page: the hosted catalog and the wa.me order link."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from django.conf import settings
from django.urls import reverse

from tenants.models import Tenant

CHAT_SOURCE = "chat"


def shop_url(slug: str, **params: str) -> str:
    """The absolute address of a shop's page (for links sent in chats and the QR code)."""
    base = f"{settings.PUBLIC_BASE_URL}{reverse('storefront:catalog', args=[slug])}"
    return f"{base}?{urlencode(params)}" if params else base


def catalog_link(tenant: Tenant) -> str:
    """Where the bot's "see everything" and "closest matches" links go: the shop's own
    site when it typed one, else its hosted page, tagged so visits count as the chat's."""
    return tenant.catalog_link_base or shop_url(tenant.slug, src=CHAT_SOURCE)


def whatsapp_link(digits: str, text: str) -> str:
    return f"https://wa.me/{digits}?text={quote(text, safe='')}"
