"""Which shop a /shop/<slug>/ address names, and whether its page may be shown.

Only an active tenant with a published page (no ShopProfile row means published with
nothing extra said) and a WhatsApp number to order on has a page; anything else is the
same "not found" as a slug that never existed.
"""

from __future__ import annotations

from dataclasses import dataclass

from tenants.accessors import active_senders
from tenants.context import tenant_context
from tenants.models import Tenant
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


def find_shop(slug: str) -> Shop:
    # Tenant rows are not tenant-owned (no RLS): the slug is their public name.
    tenant = Tenant.objects.filter(slug=slug, status=Tenant.Status.ACTIVE).first()
    if tenant is None:
        raise ShopNotFound(slug)
    with tenant_context(tenant.id) as tid:
        profile = ShopProfile.objects.filter(tenant_id=tid).first() or ShopProfile(tenant_id=tid)
    senders = active_senders(tenant.id)
    if not profile.is_published or not senders:
        raise ShopNotFound(slug)
    return Shop(tenant, profile, senders[0].phone_e164.lstrip("+"))
