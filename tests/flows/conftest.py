"""Flow fixtures: small real catalogs, payment providers on their emulators, chats.

The payments, knowledge-base and handoff tools are registered here the way the lead
will register them in tools/registry.py (a no-op once those lines land).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import pytest

from payments.emulators.daraja import DarajaEmulator, StkScript
from payments.emulators.pesapal import PesapalEmulator
from tenants.context import tenant_context
from tenants.models import Tenant
from tenants.services import update_tenant
from tests.commerce import factories
from tests.flows.chat import Chat, start_chat
from tests.payments.conftest import SANDBOX_PASSKEY, equip
from tools import registry
from tulia.commerce.models import CatalogItem, FulfilmentSettings
from tulia.returns.models import ReturnPolicy

PENDING_TOOLS = {
    "payment_get_methods": "payments.tools.payment_get_methods",
    "payment_get_c2b_instructions": "payments.tools.payment_get_c2b_instructions",
    "payment_initiate_stk_push": "payments.tools.payment_initiate_stk_push",
    "payment_create_pesapal_checkout": "payments.tools.payment_create_pesapal_checkout",
    "kb_retrieve": "kb.tools.kb_retrieve",
    "handoff_create_ticket": "tulia.handoff.tools.handoff_create_ticket",
}
CATALOG_LINK = "https://kicks.example.shop/catalog"
LANGUAGES = ["en", "sw", "sheng"]


@pytest.fixture(autouse=True)
def all_tools_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name, module in PENDING_TOOLS.items():
        if name not in registry.TOOL_MODULES:
            monkeypatch.setitem(registry.TOOL_MODULES, name, module)
    registry.get_tool.cache_clear()
    yield
    registry.get_tool.cache_clear()


@pytest.fixture
def daraja() -> Iterator[DarajaEmulator]:
    emulator = DarajaEmulator("ck-kicks", "cs-kicks-secret", SANDBOX_PASSKEY)
    with emulator:
        yield emulator


@pytest.fixture
def pesapal() -> Iterator[PesapalEmulator]:
    emulator = PesapalEmulator("pk-kicks", "ps-kicks-secret")
    with emulator:
        yield emulator


@pytest.fixture
def delivery_settings(tenant: Tenant) -> None:
    """Two delivery zones (free from KES 10,000) and pickup at the shop."""
    with tenant_context(tenant.id) as tid:
        FulfilmentSettings.objects.create(
            tenant_id=tid,
            delivery_zones=[
                {"name": "Nairobi CBD", "fee": 200, "areas": ["town"]},
                {"name": "Westlands", "fee": 250, "areas": ["kilimani", "parklands"]},
            ],
            free_delivery_from=Decimal(10000),
            pickup_location="Shop B12, Sunrise Arcade, Moi Avenue",
            pickup_hours="Mon-Sat 9 am-6 pm",
        )


@pytest.fixture
def final_sale_slides(shop: Tenant) -> None:
    """A 7-day return policy under which the slides were bought in a clearance sale."""
    with tenant_context(shop.id) as tid:
        slides = CatalogItem.objects.filter(tenant_id=tid, name="Pool Slide Navy").values_list(
            "sku", flat=True
        )
        ReturnPolicy.objects.create(tenant_id=tid, return_days=7, final_sale_skus=list(slides))


def stock_sneakers(tenant: Tenant) -> None:
    """A tiny shoe shop: two sneakers with sizes, one slide, one accessory."""
    factories.item(
        tenant,
        "Air Runner Black",
        4500,
        aliases=["sneakers", "raba", "viatu", "ngori"],
        variants=[
            {"attributes": {"size": "41"}, "stock": 3},
            {"attributes": {"size": "42"}, "stock": 2},
            {"attributes": {"size": "43"}, "stock": 0},
        ],
    )
    factories.item(
        tenant,
        "Court Classic White",
        3200,
        aliases=["sneakers", "raba", "viatu", "ngori"],
        variants=[{"attributes": {"size": "40"}, "stock": 1}, {"attributes": {"size": "42"}}],
    )
    factories.item(tenant, "Pool Slide Navy", 900, aliases=["slides", "ndala", "sandals"])
    factories.item(tenant, "Sneaker Cleaning Kit", 650, aliases=["cleaner", "kit"])
    factories.index(tenant)


def stock_groceries(tenant: Tenant) -> None:
    factories.item(tenant, "Sukuma Wiki Fresh", 30, aliases=["kale", "mboga"])
    factories.item(tenant, "Unga wa Ugali Pembe", 210, aliases=["maize flour", "unga"])
    factories.index(tenant)


@pytest.fixture
def shop(tenant: Tenant, daraja: DarajaEmulator, pesapal: PesapalEmulator) -> Tenant:
    """Kicks Nairobi with a catalog page, all three payment methods and a small catalog."""
    equip(tenant, daraja.base_url, pesapal.base_url)
    update_tenant(tenant, catalog_link_base=CATALOG_LINK, allowed_languages=LANGUAGES)
    daraja.default_script = StkScript(deliver=False)  # no callback server in these tests
    stock_sneakers(tenant)
    return tenant


@pytest.fixture
def stk_only_shop(tenant: Tenant, daraja: DarajaEmulator) -> Tenant:
    """One payment method: the confirmation question comes straight after the order."""
    equip(tenant, daraja.base_url)
    update_tenant(
        tenant,
        payment_methods=["mpesa_stk"],
        catalog_link_base=CATALOG_LINK,
        allowed_languages=LANGUAGES,
    )
    daraja.default_script = StkScript(deliver=False)
    stock_sneakers(tenant)
    return tenant


@pytest.fixture
def mboga(stranger: Tenant) -> Tenant:
    stock_groceries(stranger)
    return stranger


@pytest.fixture
def grocer(stranger: Tenant, daraja: DarajaEmulator) -> Tenant:
    """Mama Mboga as a shop of its own: greens, flour, meat and fish, M-Pesa, a catalog page."""
    equip(stranger, daraja.base_url)
    update_tenant(
        stranger,
        payment_methods=["mpesa_stk"],
        catalog_link_base="https://mboga.example.shop/catalog",
        allowed_languages=LANGUAGES,
    )
    factories.item(stranger, "Nyama ya Ng'ombe (kilo)", 700, aliases=["beef", "meat", "nyama"])
    factories.item(stranger, "Samaki Tilapia (kipande)", 350, aliases=["tilapia", "fish"])
    factories.item(stranger, "Omena (gorogoro)", 100, aliases=["sardines", "dagaa"])
    stock_groceries(stranger)
    return stranger


@pytest.fixture
def jordans_and_sold_out(shop: Tenant) -> Tenant:
    """Kicks Nairobi also sells one Jordan model (the 4, not the 1) and has sold out of
    its Sambas."""
    factories.item(
        shop,
        "Air Jordan 4 Retro",
        27500,
        brand="Jordan",
        aliases=["sneakers", "raba", "jordans"],
        variants=[{"attributes": {"size": "42"}, "stock": 2}],
    )
    factories.item(shop, "Adidas Samba OG", 13000, brand="Adidas", aliases=["sambas"], stock=0)
    factories.index(shop)
    return shop


@pytest.fixture
def low_tops(shop: Tenant) -> Tenant:
    """Kicks Nairobi also sells two low-top models, and no high-top of either."""
    for name in ("Nike Dunk Low Panda", "Air Force 1 Low White"):
        factories.item(
            shop,
            name,
            14500,
            brand="Nike",
            aliases=["sneakers", "raba"],
            variants=[{"attributes": {"size": "42"}, "stock": 3}],
        )
    factories.index(shop)
    return shop


@pytest.fixture
def chat_with() -> Callable[..., Chat]:
    def start(tenant: Tenant, phone: str = "0712345678", **_: Any) -> Chat:
        return start_chat(tenant, phone)

    return start


@pytest.fixture
def kb_docs(tenant: Tenant, settings: Any, tmp_path: Any) -> Tenant:
    """Kicks Nairobi's demo returns and delivery policies, ingested, in English and Swahili."""
    from kb.demo import demo_documents, seed_one

    settings.MEDIA_ROOT = str(tmp_path / "media")
    for doc in demo_documents("kicks-nairobi"):
        if doc.topic in ("returns", "delivery"):
            seed_one(tenant, doc)
    return tenant


@pytest.fixture
def size_guide(kb_docs: Tenant) -> Tenant:
    """Kicks Nairobi's demo size guide too (English and Swahili), beside its policies."""
    from kb.demo import demo_documents, seed_one

    for doc in demo_documents("kicks-nairobi"):
        if doc.topic == "sizes":
            seed_one(kb_docs, doc)
    return kb_docs


@pytest.fixture
def save10_offer(tenant: Tenant) -> Tenant:
    factories.offer(tenant, "SAVE10", kind="percentage", value="10", name="10% off sneakers")
    return tenant


@pytest.fixture
def agent_on_duty(tenant: Tenant) -> Tenant:
    """One agent online, so a handoff is queued (tests/handoff builds agents the same way)."""
    from tests.handoff.conftest import make_agent

    make_agent(tenant, "wanjiru")
    return tenant


def _persona(tenant: Tenant, tone: str) -> None:
    update_tenant(
        tenant,
        bot_name="Zawadi",
        tone_style=tone,
        bot_intro="Original sneakers, same-day delivery.",
        max_chattiness_level=2,  # level 1 greets with the short line, persona-free
    )


@pytest.fixture
def tone_friendly(tenant: Tenant) -> None:
    _persona(tenant, "friendly")


@pytest.fixture
def tone_professional(tenant: Tenant) -> None:
    _persona(tenant, "professional")


@pytest.fixture
def tone_playful(tenant: Tenant) -> None:
    _persona(tenant, "playful")


@pytest.fixture
def tone_playful_brief(tenant: Tenant) -> None:
    """Playful at chattiness 1 (the default): the short greeting, still in the shop's tone."""
    _persona(tenant, "playful")
    update_tenant(tenant, max_chattiness_level=1)
