"""Security fixtures: a stranger shop full of distinctive markers, and the flow fixtures.

Every string seeded for the stranger carries `MARKER`, so a leak of any of its rows into
a response, a reply or a log line is found by one substring search.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kb.documents import submit_document
from tenants.context import tenant_context
from tenants.models import Customer, Tenant
from tests.commerce import factories
from tests.flows.conftest import (  # noqa: F401 - fixtures shared with the flow tests
    all_tools_registered,
    chat_with,
    daraja,
    mboga,
    pesapal,
    shop,
)
from tulia.commerce.checkout import LineRequest, create_order
from tulia.commerce.models import CatalogItem, Offer, Order

MARKER = "ZQXMARKER"
STRANGER_PHONE = "+254799123457"  # no other fixture uses this number


@dataclass(frozen=True)
class StrangerData:
    tenant: Tenant
    item: CatalogItem
    order: Order
    offer: Offer
    customer: Customer
    document_id: int

    def markers(self) -> list[str]:
        """Strings that only the stranger's rows contain."""
        return [MARKER, STRANGER_PHONE, self.order.reference, str(self.tenant.id)]


def seed_stranger(stranger: Tenant) -> StrangerData:
    item = factories.item(
        stranger,
        f"{MARKER} Sukuma Deluxe",
        55,
        sku=f"{MARKER.lower()}-sku",
        description=f"{MARKER} secret recipe greens",
        aliases=["sneakers", "raba", "viatu", "mboga"],
    )
    customer = factories.customer(stranger, STRANGER_PHONE)
    with tenant_context(stranger.id) as tid:
        Customer.objects.filter(tenant_id=tid, pk=customer.pk).update(
            display_name=f"{MARKER} Wanjiku"
        )
    order = create_order(stranger.id, customer.pk, [LineRequest(item.pk, 2)])
    offer = factories.offer(stranger, f"{MARKER}5", name=f"{MARKER} greens promo")
    document = submit_document(
        stranger.id,
        title=f"{MARKER} returns policy",
        kind="policy",
        filename="returns.txt",
        data=f"{MARKER} refunds go to the stranger only".encode(),
        queue=False,
    )
    factories.index(stranger)
    return StrangerData(stranger, item, order, offer, customer, document.pk)


@pytest.fixture(autouse=True)
def private_media(settings: Any, tmp_path: Path) -> None:
    """Uploaded documents land in the test's own folder, not the shared checkout."""
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture
def stranger_data(stranger: Tenant) -> StrangerData:
    return seed_stranger(stranger)


def leaked(text: str, data: StrangerData) -> list[str]:
    return [marker for marker in data.markers() if marker in text]
