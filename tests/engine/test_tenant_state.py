"""Tenant and customer configuration mapped into the conversation state (real Postgres)."""

from __future__ import annotations

import pytest

from journeys.tenant_state import customer_fields, tenant_fields

pytestmark = pytest.mark.django_db


def test_tenant_settings_become_state_fields(tenant, stranger) -> None:
    fields = tenant_fields(stranger)
    assert (fields["tenant_name"], fields["default_language"], fields["allowed_languages"]) == (
        "Mama Mboga",
        "sw",
        ["sw", "en"],
    )
    assert "acha" in fields["compliance"]["opt_out_keywords"]
    assert tenant_fields(tenant)["payments_enabled"] == {"mpesa_stk": True}


def test_blank_customer_language_is_unknown_not_the_default(stranger) -> None:
    from tenants.models import Customer

    customer = Customer(tenant=stranger, phone_e164="+254700000001")
    assert customer_fields(customer)["customer_language_pref"] is None
