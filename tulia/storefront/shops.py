"""Which shop a /shop/<slug>/ address names, and whether its page may be shown.

Only an active tenant with a published page (no ShopProfile row means published with
nothing extra said) and a WhatsApp number to order on has a page; anything else is the
same "not found" as a slug that never existed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from tenants.context import tenant_context
from tenants.models import Tenant, WhatsAppSender
from tulia.storefront.models import ShopProfile


class ShopNotFound(Exception):
    pass


@dataclass(frozen=True)
class Shop:
    tenant: Tenant
    profile: ShopProfile
    whatsapp_digits: str  # the number wa.me takes: E.164 without the "+"

    @property
    def language(self) -> str:
        return self.tenant.default_language


@contextmanager
def open_shop(slug: str) -> Iterator[Shop]:
    """The shop, inside its tenant's context for the whole block: one transaction and
    one setting per page view, however many reads the page makes (a few ms saved)."""
    # Tenant rows are not tenant-owned (no RLS): the slug is their public name.
    tenant = Tenant.objects.filter(slug=slug, status=Tenant.Status.ACTIVE).first()
    if tenant is None:
        raise ShopNotFound(slug)
    with tenant_context(tenant.id) as tid:
        profile = ShopProfile.objects.filter(tenant_id=tid).first() or ShopProfile(tenant_id=tid)
        senders = WhatsAppSender.objects.filter(tenant_id=tid, is_active=True).order_by("id")
        sender = senders.only("phone_e164").first()
        if not profile.is_published or sender is None:
            raise ShopNotFound(slug)
        yield Shop(tenant, profile, sender.phone_e164.lstrip("+"))
