"""tenant_get_context, customer_get_or_create, customer_update_preferences."""

from __future__ import annotations

import pytest

from tenants.context import tenant_context
from tenants.models import ConsentEvent, Customer
from tests.commerce import factories as f
from tools.runner import call_tool

pytestmark = pytest.mark.django_db


def _customers(tenant) -> list[Customer]:
    with tenant_context(tenant.id):
        return list(Customer.objects.all())


def test_tenant_context_is_the_callers_shop(tenant, stranger) -> None:
    out = call_tool("tenant_get_context", f.payload(stranger)).unwrap()
    assert (out.name, out.default_language) == ("Mama Mboga", "sw")
    assert out.tenant_id == str(stranger.id)


def test_get_or_create_creates_once(tenant, stranger) -> None:
    first = call_tool("customer_get_or_create", f.payload(tenant, phone="0712 345 678"))
    again = call_tool("customer_get_or_create", f.payload(tenant, phone="+254712345678"))
    assert first.unwrap().created
    assert not again.unwrap().created
    assert first.unwrap().customer_id == again.unwrap().customer_id
    assert first.unwrap().phone_e164 == "+254712345678"
    assert _customers(stranger) == []


def test_same_phone_at_stranger_is_a_different_customer(tenant, stranger) -> None:
    mine = call_tool("customer_get_or_create", f.payload(tenant, phone="0712345678")).unwrap()
    theirs = call_tool("customer_get_or_create", f.payload(stranger, phone="0712345678")).unwrap()
    assert mine.customer_id != theirs.customer_id
    assert len(_customers(tenant)) == len(_customers(stranger)) == 1


def test_bad_phone_is_invalid_input(tenant) -> None:
    result = call_tool("customer_get_or_create", f.payload(tenant, phone="hello there"))
    assert result.error_code == "invalid_input"


def test_preferences_change_language_and_audit_consent(tenant, stranger) -> None:
    buyer = f.customer(tenant)
    result = call_tool(
        "customer_update_preferences",
        f.payload(
            tenant,
            customer_id=buyer.pk,
            language_preference="sheng",
            marketing_opt_in=True,
            evidence="niko sawa na offers",
        ),
    )
    assert result.ok, result.error
    assert result.unwrap().language_preference == "sheng"
    assert result.unwrap().marketing_opt_in
    assert result.unwrap().consent_events_recorded == 1
    with tenant_context(tenant.id):
        event = ConsentEvent.objects.get()
    assert (event.kind, event.action, event.source) == ("marketing", "granted", "whatsapp")
    assert (event.evidence, event.request_id) == ("niko sawa na offers", "req-test")


def test_unchanged_consent_records_no_event(tenant) -> None:
    buyer = f.customer(tenant)
    call_tool(
        "customer_update_preferences",
        f.payload(tenant, customer_id=buyer.pk, notifications_opt_in=True),
    )
    with tenant_context(tenant.id):
        assert ConsentEvent.objects.count() == 0


def test_stranger_cannot_update_a_tenants_customer(tenant, stranger) -> None:
    buyer = f.customer(tenant)
    result = call_tool(
        "customer_update_preferences",
        f.payload(stranger, customer_id=buyer.pk, marketing_opt_in=True, language_preference="sw"),
    )
    assert result.error_code == "not_found"
    (unchanged,) = _customers(tenant)
    assert not unchanged.marketing_opt_in
    assert unchanged.language_preference == ""
    for shop in (tenant, stranger):
        with tenant_context(shop.id):
            assert ConsentEvent.objects.count() == 0
