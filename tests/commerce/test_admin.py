"""Commerce admin: each shop's staff see only their catalog, orders and offers; import."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from tenants.context import tenant_context
from tenants.services import add_staff_member
from tests.commerce import factories as f
from tulia.commerce.checkout import LineRequest, create_order
from tulia.commerce.models import CatalogItem, Offer, Order

pytestmark = pytest.mark.django_db
PASSWORD = "x-Admin-Pass-42"


@pytest.fixture
def staff(tenant, stranger):
    add_staff_member(tenant.id, username="owner_a", password=PASSWORD, role="owner")
    add_staff_member(tenant.id, username="agent_a", password=PASSWORD, role="agent")
    add_staff_member(stranger.id, username="owner_b", password=PASSWORD, role="owner")
    theirs = f.item(stranger, "Sukuma Wiki Stranger", 20)
    f.offer(stranger, "MBOGA5", name="Stranger Offer")
    create_order(stranger.id, f.customer(stranger).pk, [LineRequest(theirs.pk, 1)])


def _login(username: str) -> Client:
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


@pytest.mark.parametrize("model", [CatalogItem, Order, Offer])
def test_changelists_hide_the_stranger(staff, model) -> None:
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    response = _login("owner_a").get(url)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Sukuma Wiki Stranger" not in page
    assert "Stranger Offer" not in page
    assert "MM-" not in page


def _upload(client: Client, text: str, name: str = "catalog.csv"):
    upload = SimpleUploadedFile(name, text.encode(), content_type="text/csv")
    return client.post(reverse("admin:commerce_catalogitem_import"), {"file": upload})


def test_owner_imports_into_own_shop(tenant, stranger, staff) -> None:
    response = _upload(_login("owner_a"), "sku,name,price,stock\nAF1,Air Force 1,9500,4\n")
    assert response.status_code == 302
    with tenant_context(tenant.id):
        assert list(CatalogItem.objects.values_list("sku", flat=True)) == ["AF1"]
    with tenant_context(stranger.id):
        assert not CatalogItem.objects.filter(sku="AF1").exists()


def test_import_errors_are_listed_by_row(tenant, staff) -> None:
    response = _upload(_login("owner_a"), "sku,name,price\nA,Ok,100\nB,Bad,abc\n")
    assert response.status_code == 200
    assert "nothing was imported" in response.content.decode()
    with tenant_context(tenant.id):
        assert CatalogItem.objects.count() == 0


def test_agent_cannot_import(tenant, staff) -> None:
    response = _upload(_login("agent_a"), "sku,name,price\nA,Ok,100\n")
    assert response.status_code == 200
    with tenant_context(tenant.id):
        assert CatalogItem.objects.count() == 0


def test_owner_creates_a_key_shown_once_and_stored_hashed(tenant, stranger, staff) -> None:
    from tulia.api.keys import verify_key
    from tulia.commerce.models import ApiKey

    client = _login("owner_a")
    response = client.post(reverse("admin:commerce_apikey_add"), {"name": "POS"}, follow=True)
    page = response.content.decode()
    start = page.index("tulia_")
    plaintext = page[start : page.index("<", start)].strip()
    key = verify_key(plaintext)
    assert key is not None
    assert key.tenant_id == tenant.id
    with tenant_context(stranger.id):
        assert ApiKey.objects.count() == 0


def test_owner_issues_a_conversations_key_that_speaks_as_an_agent(tenant, staff) -> None:
    from django.contrib.auth import get_user_model

    from tulia.api.keys import verify_key

    agent = get_user_model().objects.get(username="agent_a")
    owner_b = get_user_model().objects.get(username="owner_b")
    client = _login("owner_a")
    add = reverse("admin:commerce_apikey_add")
    # Another shop's login is no choice, and the scope without an agent is refused.
    for refused in ({"agent": owner_b.pk}, {}):
        answer = client.post(add, {"name": "Desk", "scopes": ["conversations"], **refused})
        assert "tulia_" not in answer.content.decode()
    response = client.post(add, {"name": "Desk", "scopes": ["conversations"], "agent": agent.pk})
    page = response.content.decode()
    start = page.index("tulia_")
    key = verify_key(page[start : page.index("<", start)].strip())
    assert key is not None
    assert (key.scopes, key.agent_id) == (["conversations"], agent.pk)
