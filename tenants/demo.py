"""The demo tenants: a Nairobi sneaker shop and a Swahili-first grocer.

Idempotent: running it again updates the same rows. Twilio tokens here are demo values
known to the local Twilio emulator and the chat command, not real credentials.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model

from tenants.context import tenant_context
from tenants.models import Tenant, WhatsAppSender
from tenants.services import add_staff_member, create_tenant, update_tenant

DEMO_PASSWORD = "tulia-demo-2026"  # noqa: S105 - published demo login, printed by `make run`
WEEKDAY_HOURS = [{"opens": "08:00", "closes": "19:00"}]


@dataclass(frozen=True)
class DemoShop:
    slug: str
    fields: dict[str, Any]
    sender_phone: str
    sender_sid: str
    sender_token: str
    staff: list[tuple[str, str]] = field(default_factory=list)


SHOPS = [
    DemoShop(
        slug="kicks-nairobi",
        fields={
            "name": "Kicks Nairobi",
            "bot_name": "Kiki",
            "bot_intro": "Sneakers, original and delivered across Nairobi the same day.",
            "tone_style": "playful",
            "default_language": "en",
            "allowed_languages": ["en", "sw", "sheng"],
            "max_chattiness_level": 2,
            # No website of its own: the bot links the hosted page, /shop/kicks-nairobi/.
            "catalog_link_base": "",
            "payment_methods": ["mpesa_stk", "mpesa_c2b", "pesapal_card"],
            "timezone": "Africa/Nairobi",
            "handoff": {
                "business_hours": {
                    **dict.fromkeys(("mon", "tue", "wed", "thu", "fri"), WEEKDAY_HOURS),
                    "sat": [{"opens": "09:00", "closes": "17:00"}],
                },
                "agent_capacity": 4,
            },
        },
        sender_phone="+254711000001",
        sender_sid="AC" + "1" * 32,
        sender_token="demo-kicks-twilio-token",  # noqa: S106 - emulator credential
        staff=[("kicks_owner", "owner"), ("kicks_agent", "agent")],
    ),
    DemoShop(
        slug="mama-mboga",
        fields={
            "name": "Mama Mboga Fresh",
            "bot_name": "Mama Mboga",
            "bot_intro": "Mboga, matunda na vyakula vya nyumbani, tunaleta mlangoni.",
            "tone_style": "friendly",
            "default_language": "sw",
            "allowed_languages": ["sw", "en", "sheng"],
            "max_chattiness_level": 1,
            "catalog_link_base": "",
            "payment_methods": ["mpesa_stk", "mpesa_c2b"],
            "timezone": "Africa/Nairobi",
            "handoff": {
                "business_hours": {
                    day: [{"opens": "06:30", "closes": "20:00"}]
                    for day in ("mon", "tue", "wed", "thu", "fri", "sat")
                },
                "keyword_triggers": ["mtu", "agent", "human", "nataka kuongea na mtu", "msaada"],
                "agent_capacity": 3,
            },
        },
        sender_phone="+254711000002",
        sender_sid="AC" + "2" * 32,
        sender_token="demo-mboga-twilio-token",  # noqa: S106 - emulator credential
        staff=[("mboga_owner", "owner"), ("mboga_agent", "agent")],
    ),
]


def seed_shop(shop: DemoShop) -> Tenant:
    tenant = Tenant.objects.filter(slug=shop.slug).first()
    if tenant is None:
        tenant = create_tenant(slug=shop.slug, **shop.fields)
    else:
        tenant = update_tenant(tenant, **shop.fields)
    with tenant_context(tenant.id) as tid:
        WhatsAppSender.objects.update_or_create(
            tenant_id=tid,
            phone_e164=shop.sender_phone,
            defaults={
                "twilio_account_sid": shop.sender_sid,
                "twilio_auth_token": shop.sender_token,
                "label": "Main WhatsApp line",
                "is_active": True,
            },
        )
    for username, role in shop.staff:
        add_staff_member(tenant.id, username=username, password=DEMO_PASSWORD, role=role)
    return tenant


def seed_superuser() -> None:
    user_model = get_user_model()
    user, _ = user_model.objects.get_or_create(username="admin")
    user.is_staff = user.is_superuser = True
    user.set_password(DEMO_PASSWORD)
    user.save()


def seed_tenants() -> list[Tenant]:
    seed_superuser()
    return [seed_shop(shop) for shop in SHOPS]
