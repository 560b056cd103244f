"""The demo shops' delivery zones, fees and pickup place, as their documents state them
(kb/demo_docs/<shop>/delivery.*.md and hours.*.md). Safe to run again."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tenants.context import tenant_context
from tenants.models import Tenant
from tulia.commerce.models import FulfilmentSettings

SETTINGS: dict[str, dict[str, Any]] = {
    "kicks-nairobi": {
        "delivery_zones": [
            {"name": "Nairobi CBD", "fee": 200, "areas": ["cbd", "town", "moi avenue"]},
            {"name": "Westlands", "fee": 250,
             "areas": ["kilimani", "parklands", "hurlingham", "upper hill"]},
            {"name": "Nairobi estates", "fee": 300,
             "areas": ["south b", "south c", "langata", "lang'ata", "kasarani", "roysambu"]},
            {"name": "Outer Nairobi", "fee": 450,
             "areas": ["embakasi", "karen", "kitengela", "rongai"]},
            {"name": "Courier (Nakuru, Nyeri, Machakos)", "fee": 400, "courier": True,
             "areas": ["nakuru", "nyeri", "machakos"]},
            {"name": "Courier (Mombasa, Kisumu, Eldoret)", "fee": 600, "courier": True,
             "areas": ["mombasa", "kisumu", "eldoret"]},
        ],
        "free_delivery_from": Decimal(10000),
        "pickup_location": "Shop B12, 2nd floor, Sunrise Arcade, Moi Avenue, Nairobi CBD",
        "pickup_hours": "Mon-Fri 8 am-7 pm, Sat 9 am-5 pm",
    },
    "mama-mboga": {
        "delivery_zones": [
            {"name": "Kangemi", "fee": 100, "areas": ["kawangware"]},
            {"name": "Westlands", "fee": 150,
             "areas": ["lavington", "riruta", "dagoretti corner", "mountain view", "uthiru"]},
        ],
        "free_delivery_from": Decimal(3000),
        "pickup_location": "Kangemi market stall, third row from the main gate (green sign)",
        "pickup_hours": "Mon-Sat 6:30 am-8 pm",
    },
}  # fmt: skip


def seed_fulfilment(tenants: list[Tenant]) -> None:
    for tenant in tenants:
        fields = SETTINGS.get(tenant.slug)
        if fields is None:
            continue
        with tenant_context(tenant.id) as tid:
            FulfilmentSettings.objects.update_or_create(tenant_id=tid, defaults=fields)
