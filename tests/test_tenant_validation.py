"""Bad input gets a clear validation error and nothing is half-saved."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from tenants.context import tenant_context
from tenants.models import Customer, Tenant, WhatsAppSender
from tenants.phone import InvalidPhoneNumber, normalize_phone
from tenants.services import create_tenant, get_or_create_customer, register_whatsapp_sender


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("0712345678", "+254712345678"),
        ("0110123456", "+254110123456"),
        ("254712345678", "+254712345678"),
        ("+254 712 345 678", "+254712345678"),
        ("whatsapp:+254712345678", "+254712345678"),
        ("712345678", "+254712345678"),
        ("+14155238886", "+14155238886"),
    ],
)
def test_kenyan_and_international_forms_normalise_to_e164(raw, expected) -> None:
    assert normalize_phone(raw) == expected


@pytest.mark.parametrize("raw", ["", "   ", "hello", "07123", "+2547123456789999", "0" * 60])
def test_malformed_phone_numbers_are_refused(raw) -> None:
    with pytest.raises(InvalidPhoneNumber):
        normalize_phone(raw)


pytestmark_db = pytest.mark.django_db


@pytestmark_db
def test_unknown_language_in_tenant_config_is_refused() -> None:
    with pytest.raises(ValidationError) as caught:
        create_tenant(slug="x", name="X", default_language="fr")
    assert "default_language" in caught.value.message_dict
    assert not Tenant.objects.filter(slug="x").exists()


@pytestmark_db
def test_unknown_allowed_language_names_the_language() -> None:
    with pytest.raises(ValidationError, match="klingon"):
        create_tenant(slug="y", name="Y", allowed_languages=["en", "klingon"])


@pytestmark_db
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("name", "N" * 121),
        ("bot_intro", "i" * 401),
        ("max_chattiness_level", 4),
        ("timezone", "Mars/Olympus"),
        ("payment_methods", ["bitcoin"]),
        ("catalog_link_base", "not a url"),
        ("handoff", {"business_hours": {"mon": [{"opens": "18:00", "closes": "08:00"}]}}),
        ("handoff", {"agent_capacity": 0}),
        ("escalation_rules", {"max_consecutive_tool_errors": "lots"}),
        ("compliance", {"unknown_flag": True}),
    ],
)
def test_bad_tenant_config_is_refused_with_the_field_named(field, value) -> None:
    with pytest.raises(ValidationError) as caught:
        create_tenant(**{"slug": "bad", "name": "Bad", field: value})
    assert field in caught.value.message_dict
    assert not Tenant.objects.filter(slug="bad").exists()


@pytestmark_db
def test_valid_config_is_normalised_and_typed() -> None:
    shop = create_tenant(
        slug="ok",
        name="OK",
        handoff={"business_hours": {"mon": [{"opens": "08:00", "closes": "17:30"}]}},
    )
    shop.refresh_from_db()
    assert shop.allowed_languages == ["en"]
    assert shop.handoff_settings.business_hours.mon[0].closes.hour == 17
    assert shop.escalation.max_consecutive_tool_errors == 2


@pytestmark_db
def test_bad_sender_is_refused_and_nothing_saved(tenant) -> None:
    with pytest.raises(ValidationError) as caught:
        register_whatsapp_sender(
            tenant.id, phone="+254711000003", account_sid="not-a-sid", auth_token="t"
        )
    assert "twilio_account_sid" in caught.value.message_dict
    with tenant_context(tenant.id):
        assert not WhatsAppSender.objects.filter(phone_e164="+254711000003").exists()


@pytestmark_db
def test_customer_with_bad_phone_is_refused(tenant) -> None:
    with pytest.raises(InvalidPhoneNumber):
        get_or_create_customer(tenant.id, "call me maybe")
    with tenant_context(tenant.id):
        assert Customer.objects.count() == 0


@pytestmark_db
def test_same_phone_in_two_forms_is_one_customer(tenant) -> None:
    first, created = get_or_create_customer(tenant.id, "0712 000 333")
    again, created_again = get_or_create_customer(tenant.id, "whatsapp:+254712000333")
    assert created
    assert not created_again
    assert first.pk == again.pk


@pytestmark_db
def test_auth_token_is_encrypted_at_rest(tenant) -> None:
    with tenant_context(tenant.id), connection.cursor() as cursor:
        cursor.execute("SELECT twilio_auth_token FROM tenants_whatsappsender")
        stored = cursor.fetchone()[0]
    assert stored.startswith("fernet:")
    assert "token-a" not in stored
