"""Order lifecycle after payment: the transition table, its consequences, and the two
doors staff use (admin buttons, tenant API), each refusing another tenant's order."""

from __future__ import annotations

import itertools

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from tenants.context import tenant_context
from tenants.errors import NotFound
from tenants.services import add_staff_member
from tests.commerce import factories as f
from tulia.api.keys import issue_key
from tulia.commerce.checkout import LineRequest, create_order
from tulia.commerce.errors import OrderStateError
from tulia.commerce.lifecycle import STAFF_MOVES, move_order
from tulia.commerce.models import CatalogItem, Order, OrderStatus
from tulia.commerce.orders import get_order, mark_order_paid, order_history

pytestmark = pytest.mark.django_db
PASSWORD = "x-Admin-Pass-42"
S = OrderStatus
LEGAL = {
    (S.DRAFT, S.CANCELLED),
    (S.PENDING_PAYMENT, S.CANCELLED),
    (S.PAID, S.CONFIRMED),
    (S.PAID, S.CANCELLED),
    (S.CONFIRMED, S.PACKED),
    (S.CONFIRMED, S.CANCELLED),
    (S.PACKED, S.SHIPPED),
    (S.PACKED, S.CANCELLED),
    (S.SHIPPED, S.DELIVERED),
}


def _paid(tenant, stock=10, quantity=2) -> Order:
    product = f.item(tenant, "Air Max 90", 1500, stock=stock)
    order = create_order(tenant.id, f.customer(tenant).pk, [LineRequest(product.pk, quantity)])
    return mark_order_paid(tenant.id, order.pk, payment_reference="QK12ABC")


def _at(tenant, status: str) -> Order:
    order = _paid(tenant)
    with tenant_context(tenant.id):
        Order.objects.filter(pk=order.pk).update(status=status)
    return order


@pytest.mark.parametrize(("before", "after"), list(itertools.product(S.values, STAFF_MOVES)))
def test_transition_table(tenant, stranger, before, after) -> None:
    order = _at(tenant, before)
    if (before, after) in LEGAL:
        assert move_order(tenant.id, order.pk, after, actor="staff:t").status == after
        assert order_history(tenant.id, order.pk)[-1].to_status == after
    else:
        events = len(order_history(tenant.id, order.pk))
        with pytest.raises(OrderStateError):
            move_order(tenant.id, order.pk, after, actor="staff:t")
        assert get_order(tenant.id, order.pk).status == before
        assert len(order_history(tenant.id, order.pk)) == events


def test_paid_order_is_not_moved_to_a_status_staff_cannot_set(tenant, stranger) -> None:
    order = _paid(tenant)
    with pytest.raises(OrderStateError):
        move_order(tenant.id, order.pk, S.PENDING_PAYMENT, actor="staff:t")


def test_the_whole_way_records_who_when_and_the_notes(tenant, stranger) -> None:
    order = _paid(tenant)
    for step, note in [(S.CONFIRMED, ""), (S.PACKED, ""), (S.SHIPPED, "rider Juma")]:
        move_order(tenant.id, order.pk, step, actor="staff:owner_a", note=note)
    done = move_order(tenant.id, order.pk, S.DELIVERED, actor="api:abc")
    assert done.tracking_note == "rider Juma"
    assert done.delivered_at is not None
    history = order_history(tenant.id, order.pk)
    rows = [(e.from_status, e.to_status, e.actor, e.reason) for e in history][-4:]
    assert rows == [
        ("paid", "confirmed", "staff:owner_a", ""),
        ("confirmed", "packed", "staff:owner_a", ""),
        ("packed", "shipped", "staff:owner_a", "rider Juma"),
        ("shipped", "delivered", "api:abc", ""),
    ]


def test_cancelling_a_paid_order_restocks_and_flags_the_refund(tenant, stranger) -> None:
    order = _paid(tenant, stock=5, quantity=2)
    with tenant_context(tenant.id):
        assert CatalogItem.objects.get().stock == 3
    cancelled = move_order(tenant.id, order.pk, S.CANCELLED, actor="customer", note="changed mind")
    assert cancelled.refund_due
    with tenant_context(tenant.id):
        assert CatalogItem.objects.get().stock == 5


def test_cancelling_an_unpaid_order_owes_nothing_and_keeps_stock(tenant, stranger) -> None:
    product = f.item(tenant, "Air Max 90", 1500, stock=5)
    order = create_order(tenant.id, f.customer(tenant).pk, [LineRequest(product.pk, 2)])
    assert not move_order(tenant.id, order.pk, S.CANCELLED, actor="customer").refund_due
    with tenant_context(tenant.id):
        assert CatalogItem.objects.get().stock == 5


def test_stranger_cannot_move_the_order(tenant, stranger) -> None:
    order = _paid(tenant)
    with pytest.raises(NotFound):
        move_order(stranger.id, order.pk, S.CONFIRMED, actor="staff:x")
    assert get_order(tenant.id, order.pk).status == S.PAID


# --- admin: one click per step, owners and agents, never another shop's order --------
def _login(tenant, username: str, role: str) -> Client:
    add_staff_member(tenant.id, username=username, password=PASSWORD, role=role)
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


def _move_url(order: Order, to: str) -> str:
    return reverse("admin:commerce_order_move", args=[order.pk, to])


@pytest.mark.parametrize("role", ["owner", "agent"])
def test_admin_ships_with_a_tracking_note(tenant, stranger, role) -> None:
    order = _at(tenant, S.PACKED)
    client = _login(tenant, f"{role}_a", role)
    page = client.get(reverse("admin:commerce_order_change", args=[order.pk])).content.decode()
    assert _move_url(order, "shipped") in page
    assert _move_url(order, "delivered") not in page  # only the legal next steps
    response = client.post(_move_url(order, "shipped"), {"note": "G4S KE123"})
    assert response.status_code == 302
    moved = get_order(tenant.id, order.pk)
    assert (moved.status, moved.tracking_note) == (S.SHIPPED, "G4S KE123")
    assert order_history(tenant.id, order.pk)[-1].actor == f"staff:{role}_a"


def test_admin_refuses_an_illegal_step_with_a_message(tenant, stranger) -> None:
    order = _paid(tenant)
    client = _login(tenant, "owner_a", "owner")
    response = client.post(_move_url(order, "delivered"), follow=True)
    assert response.status_code == 200
    assert "cannot go paid -&gt; delivered" in response.content.decode()
    assert get_order(tenant.id, order.pk).status == S.PAID


def test_admin_of_another_shop_cannot_move_the_order(tenant, stranger) -> None:
    order = _paid(tenant)
    client = _login(stranger, "owner_b", "owner")
    assert client.post(_move_url(order, "confirmed")).status_code == 404
    assert get_order(tenant.id, order.pk).status == S.PAID


# --- tenant API ------------------------------------------------------------------------
def _api(tenant) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issue_key(tenant.id, 'pos').plaintext}")
    return client


def test_api_moves_the_order_and_names_the_key(tenant, stranger) -> None:
    order = _at(tenant, S.PACKED)
    url = f"/api/v1/orders/{order.pk}/move/"
    response = _api(tenant).post(url, {"to": "shipped", "note": "rider Juma"}, format="json")
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["tracking_note"]) == (
        "shipped",
        "rider Juma",
    )
    assert order_history(tenant.id, order.pk)[-1].actor.startswith("api key ")


def test_api_refuses_an_illegal_step_with_409(tenant, stranger) -> None:
    order = _paid(tenant)
    response = _api(tenant).post(f"/api/v1/orders/{order.pk}/move/", {"to": "delivered"})
    assert response.status_code == 409
    assert "cannot go paid -> delivered" in response.json()["detail"]
    assert "request_id" in response.json()


def test_api_key_of_a_stranger_gets_404_and_moves_nothing(tenant, stranger) -> None:
    order = _paid(tenant)
    response = _api(stranger).post(f"/api/v1/orders/{order.pk}/move/", {"to": "confirmed"})
    assert response.status_code == 404
    assert get_order(tenant.id, order.pk).status == S.PAID


def test_openapi_schema_describes_the_move(db) -> None:
    schema = APIClient().get("/api/v1/schema/", {"format": "json"}).json()
    move = schema["paths"]["/api/v1/orders/{id}/move/"]["post"]
    assert set(move["responses"]) >= {"200", "404", "409"}
    body = schema["components"]["schemas"]["OrderMove"]["properties"]
    assert set(body) == {"to", "note"}
