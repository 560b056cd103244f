"""The soak's shops: N tenants, each with its own WhatsApp number, catalog, policy
document, M-Pesa account on the local Daraja emulator and one agent.

Every product name and document of shop k carries the marker `Soak<k>` (two digits), so
a reply that names another shop's marker is a cross-tenant read, found by a regex.
Idempotent: a second run reuses the shops and refreshes their data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from kb.documents import replace_file, submit_document
from kb.ingest import ingest_document
from kb.models import Document, SourceType
from payments.accounts import configure_mpesa
from payments.demo import SANDBOX_PASSKEY, demo_credentials
from payments.models import MpesaAccount
from tenants.context import tenant_context
from tenants.demo import DemoShop, seed_shop
from tenants.models import Tenant
from tulia.commerce.importer import import_catalog
from tulia.commerce.indexing import embed_items
from tulia.commerce.models import CatalogItem

ALL_DAY = [{"opens": "00:00", "closes": "23:59"}]
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
PRODUCTS = [  # (model, price offset KES, aliases)
    ("Pool Slide", 0, ("slides", "ndala", "sandals")),
    ("Court Runner", 3000, ("sneakers", "raba", "viatu", "ngori")),
    ("Trail Runner", 4200, ("sneakers", "raba", "viatu", "running")),
    ("Canvas Low", 1800, ("sneakers", "raba", "viatu")),
    ("Shoe Cleaner", -300, ("cleaner", "kit")),
]


@dataclass(frozen=True)
class SoakShop:
    number: int
    tenant_id: str
    slug: str
    sender_sid: str
    sender_phone: str
    sender_token: str
    agent_username: str

    @property
    def marker(self) -> str:
        return f"Soak{self.number:02d}"


def _demo_shop(number: int) -> DemoShop:
    return DemoShop(
        slug=f"soak-{number:02d}",
        fields={
            "name": f"Soak Shop {number}",
            "bot_name": "Rafiki",
            "default_language": "en" if number % 2 else "sw",
            "allowed_languages": ["en", "sw", "sheng"],
            "max_chattiness_level": 2,
            "catalog_link_base": f"https://soak-{number:02d}.tulia.shop/catalog",
            "payment_methods": ["mpesa_stk"],
            "timezone": "Africa/Nairobi",
            "handoff": {"business_hours": dict.fromkeys(DAYS, ALL_DAY), "agent_capacity": 3},
        },
        sender_phone=f"+2547119{number:05d}",
        sender_sid=f"AC{number:032x}",
        sender_token=f"soak-token-{number:02d}",
        staff=[(f"soak{number:02d}_agent", "agent")],
    )


def _catalog_rows(shop: SoakShop) -> list[dict[str, Any]]:
    base = 900 + 10 * shop.number
    return [
        {
            "sku": f"SK{shop.number:02d}-{n}",
            "name": f"{shop.marker} {model}",
            "category": "Shoes",
            "price": base + offset,
            "stock": 10_000,
            "aliases": list(aliases),
        }
        for n, (model, offset, aliases) in enumerate(PRODUCTS)
    ]


def _policy(shop: SoakShop) -> bytes:
    days = 7 + shop.number % 5
    return (
        f"# {shop.marker} returns policy\n\n"
        f"You can return unworn shoes within {days} days of delivery with the receipt.\n"
        "Refunds go back to the M-Pesa number that paid, within three working days.\n\n"
        "## Delivery\n\nNairobi deliveries arrive the same day when ordered before 2 pm.\n"
    ).encode()


def _stock(shop: SoakShop) -> None:
    report = import_catalog(shop.tenant_id, json.dumps(_catalog_rows(shop)), "json")
    if not report.ok:
        raise ValueError(f"soak catalog for {shop.slug} is invalid: {report.errors[:3]}")
    with tenant_context(shop.tenant_id) as tid:
        ids = list(CatalogItem.objects.filter(tenant_id=tid).values_list("id", flat=True))
    embed_items(shop.tenant_id, ids)


def _document(shop: SoakShop) -> None:
    title = f"{shop.marker} returns policy"
    with tenant_context(shop.tenant_id) as tid:
        existing = Document.objects.filter(tenant_id=tid, title=title).first()
    if existing is None:
        document = submit_document(
            shop.tenant_id,
            title=title,
            kind=SourceType.POLICY,
            filename="returns.md",
            data=_policy(shop),
            language="en",
            queue=False,
        )
    else:
        document = replace_file(
            shop.tenant_id, existing.pk, filename="returns.md", data=_policy(shop), queue=False
        )
    ingest_document(shop.tenant_id, document.pk, document.content_hash)


def _pay_by_mpesa(shop: SoakShop, daraja_url: str) -> None:
    key, secret = demo_credentials(shop.slug)
    configure_mpesa(
        shop.tenant_id,
        base_url=daraja_url,
        shortcode="174379",
        consumer_key=key,
        consumer_secret=secret,
        passkey=SANDBOX_PASSKEY,
        source_ip_check=MpesaAccount.IpCheck.OFF,
        stk_query_after_seconds=60,
    )


def build_shops(count: int, daraja_url: str) -> list[SoakShop]:
    shops = []
    for number in range(1, count + 1):
        demo = _demo_shop(number)
        tenant: Tenant = seed_shop(demo)
        shop = SoakShop(
            number=number,
            tenant_id=str(tenant.pk),
            slug=demo.slug,
            sender_sid=demo.sender_sid,
            sender_phone=demo.sender_phone,
            sender_token=demo.sender_token,
            agent_username=demo.staff[0][0],
        )
        _stock(shop)
        _document(shop)
        _pay_by_mpesa(shop, daraja_url)
        shops.append(shop)
    return shops
