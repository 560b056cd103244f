"""Delivery zones, a product's details and return rules as rows of words, posted
through the real admin pages: the page holds no JSON, saving it unchanged keeps the
stored value, rows add and remove, and a bad row is refused in words with nothing lost."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation

from tenants.context import tenant_context
from tenants.models import Tenant
from tests.commerce import factories as f
from tests.console.conftest import login
from tests.console.page_form import browser_form
from tulia.commerce.demo_fulfilment import SETTINGS
from tulia.commerce.fulfilment import options_for, zone_for
from tulia.commerce.models import CatalogItem, FulfilmentSettings
from tulia.console.row_fields import DeliveryZonesField
from tulia.returns.demo import FRESH
from tulia.returns.facts import policy_for
from tulia.returns.models import ReturnPolicy

pytestmark = pytest.mark.django_db

KICKS_ZONES = SETTINGS["kicks-nairobi"]["delivery_zones"]


def _post(client, url: str, form_id: str, **changes: Any):
    html = client.get(url).content.decode()
    assert html.count(f'id="{form_id}"') == 1
    data: dict[str, Any] = dict(browser_form(html, form_id))
    data.update(changes)
    return client.post(url, data)


def _form_area(html: str, form_id: str) -> str:
    """The form's fields as the owner reads them (the admin's own scripts left out)."""
    form = html.split(f'id="{form_id}"')[1].split("</form>", maxsplit=1)[0]
    return "".join(part.split("</script>")[-1] for part in form.split("<script"))


def _errors(response) -> dict[str, Any]:
    return dict(response.context["adminform"].form.errors)


# --- delivery zones -------------------------------------------------------------------


def _fulfilment(tenant: Tenant, zones: list[dict[str, Any]]) -> FulfilmentSettings:
    with tenant_context(tenant.id) as tid:
        return FulfilmentSettings.objects.create(
            tenant_id=tid, delivery_zones=zones, free_delivery_from=Decimal(10000)
        )


def _zones(tenant: Tenant) -> Any:
    with tenant_context(tenant.id) as tid:
        return FulfilmentSettings.objects.get(tenant_id=tid).delivery_zones


def test_zones_page_has_no_json_and_saving_it_unchanged_keeps_them(tenant, stranger) -> None:
    stored = _fulfilment(tenant, KICKS_ZONES)
    client = login(tenant, "owner_z1")
    url = reverse("admin:commerce_fulfilmentsettings_change", args=[stored.pk])
    page = _form_area(client.get(url).content.decode(), "fulfilmentsettings_form")
    assert "{" not in page
    assert "[" not in page
    assert 'value="Courier (Mombasa, Kisumu, Eldoret)"' in page
    assert 'value="kilimani, parklands, hurlingham, upper hill"' in page
    response = _post(client, url, "fulfilmentsettings_form")
    assert response.status_code == 302, _errors(response)
    assert _zones(tenant) == KICKS_ZONES


def test_owner_adds_a_courier_zone_and_removes_one(tenant, stranger) -> None:
    stored = _fulfilment(tenant, KICKS_ZONES[:2])
    client = login(tenant, "owner_z2")
    url = reverse("admin:commerce_fulfilmentsettings_change", args=[stored.pk])
    rows = {
        "delivery_zones_name": ["Nairobi CBD", "", "Kisumu"],
        "delivery_zones_fee": ["200", "", "650"],
        "delivery_zones_areas": ["cbd, town", "", " kisumu ,, kondele "],
        "delivery_zones_courier": ["", "", "courier"],
    }
    response = _post(client, url, "fulfilmentsettings_form", **rows)
    assert response.status_code == 302, _errors(response)
    assert _zones(tenant) == [
        {"name": "Nairobi CBD", "fee": 200, "areas": ["cbd", "town"]},
        {"name": "Kisumu", "fee": 650, "areas": ["kisumu", "kondele"], "courier": True},
    ]
    zone = zone_for(options_for(tenant.id), "natuma Kondele")
    assert zone is not None
    assert zone.courier
    assert zone.fee == 650


@pytest.mark.parametrize(
    ("name", "fee", "says"),
    [
        ("Westlands", "two hundred", "whole shillings"),
        ("Westlands", "200000", "whole shillings"),
        ("", "200", "name"),
        ("Nairobi CBD", "300", "Two zones"),
    ],
)
def test_a_bad_zone_is_refused_in_words_and_nothing_is_lost(
    tenant, stranger, name: str, fee: str, says: str
) -> None:
    stored = _fulfilment(tenant, KICKS_ZONES[:1])
    client = login(tenant, "owner_z3")
    url = reverse("admin:commerce_fulfilmentsettings_change", args=[stored.pk])
    rows = {
        "delivery_zones_name": ["Nairobi CBD", name],
        "delivery_zones_fee": ["200", fee],
        "delivery_zones_areas": ["cbd", "kilimani, riruta"],
        "delivery_zones_courier": ["", ""],
    }
    response = _post(client, url, "fulfilmentsettings_form", **rows)
    assert response.status_code == 200
    assert says in " ".join(_errors(response)["delivery_zones"])
    page = response.content.decode()
    assert f'value="{fee}"' in page
    assert 'value="kilimani, riruta"' in page
    assert _zones(tenant) == KICKS_ZONES[:1]


def test_zone_errors_are_in_kiswahili_for_a_swahili_owner() -> None:
    field = DeliveryZonesField()
    data = {"z_name": ["Kangemi"], "z_fee": ["mia"], "z_areas": [""], "z_courier": [""]}
    with translation.override("sw"), pytest.raises(ValidationError) as refused:
        field.clean(field.widget.value_from_datadict(data, {}, "z"))
    message = " ".join(refused.value.messages)
    assert "Kangemi" in message
    assert "shilingi" in message


# --- a product's details --------------------------------------------------------------


def _details(item: CatalogItem) -> Any:
    with tenant_context(item.tenant_id):
        return CatalogItem.objects.get(pk=item.pk).attributes


def test_details_page_keeps_numbers_and_yes_no_as_stored(tenant, stranger) -> None:
    details = {"gender": "men", "returnable": False, "weight_g": 850, "material": "leather"}
    shoe = f.item(tenant, "Desert Boot", 7000, attributes=details)
    client = login(tenant, "owner_d1")
    url = reverse("admin:commerce_catalogitem_change", args=[shoe.pk])
    page = _form_area(client.get(url).content.decode(), "catalogitem_form")
    assert 'value="gender"' in page
    assert 'value="leather"' in page
    assert '{"' not in page
    response = _post(client, url, "catalogitem_form")
    assert response.status_code == 302, _errors(response)
    assert _details(shoe) == details
    assert isinstance(_details(shoe)["returnable"], bool)


def test_owner_adds_changes_and_removes_details(tenant, stranger) -> None:
    shoe = f.item(tenant, "Desert Boot", 7000, attributes={"gender": "men", "weight_g": 850})
    client = login(tenant, "owner_d2")
    url = reverse("admin:commerce_catalogitem_change", args=[shoe.pk])
    rows = {
        "attributes_name": ["gender", "weight_g", "", "sole"],
        "attributes_value": ["women", "900", "", " rubber "],
        "attributes_kind": ["", "stored", "", ""],
    }
    response = _post(client, url, "catalogitem_form", **rows)
    assert response.status_code == 302, _errors(response)
    assert _details(shoe) == {"gender": "women", "weight_g": 900, "sole": "rubber"}


def test_two_details_of_one_name_are_refused(tenant, stranger) -> None:
    shoe = f.item(tenant, "Desert Boot", 7000, attributes={"gender": "men"})
    client = login(tenant, "owner_d3")
    url = reverse("admin:commerce_catalogitem_change", args=[shoe.pk])
    rows = {
        "attributes_name": ["gender", "Gender"],
        "attributes_value": ["men", "women"],
        "attributes_kind": ["", ""],
    }
    response = _post(client, url, "catalogitem_form", **rows)
    assert response.status_code == 200
    assert "Two details" in " ".join(_errors(response)["attributes"])
    assert 'value="women"' in response.content.decode()
    assert _details(shoe) == {"gender": "men"}


# --- return rules ---------------------------------------------------------------------


def _policy(tenant: Tenant, rules: dict[str, Any]) -> ReturnPolicy:
    with tenant_context(tenant.id) as tid:
        return ReturnPolicy.objects.create(tenant_id=tid, return_days=3, category_rules=rules)


def _rules(tenant: Tenant) -> Any:
    with tenant_context(tenant.id) as tid:
        return ReturnPolicy.objects.get(tenant_id=tid).category_rules


def test_rules_page_names_categories_and_saving_unchanged_keeps_rules(tenant, stranger) -> None:
    f.category(tenant, "Mboga")
    f.category(tenant, "Matunda")
    f.category(stranger, "Siri ya jirani")
    rules = {"mboga": FRESH, "matunda": {"return_days": 2, "returnable": False}, "old": {}}
    policy = _policy(tenant, rules)
    client = login(tenant, "owner_r1")
    url = reverse("admin:returns_returnpolicy_change", args=[policy.pk])
    page = _form_area(client.get(url).content.decode(), "returnpolicy_form")
    assert '<option value="mboga" selected>Mboga</option>' in page
    assert '<option value="old" selected>old</option>' in page  # a rule without its category
    assert "Siri ya jirani" not in page
    assert "{" not in page
    response = _post(client, url, "returnpolicy_form")
    assert response.status_code == 302, _errors(response)
    assert _rules(tenant) == rules


def test_owner_sets_a_category_that_never_comes_back(tenant, stranger) -> None:
    f.category(tenant, "Nyama")
    policy = _policy(tenant, {})
    client = login(tenant, "owner_r2")
    url = reverse("admin:returns_returnpolicy_change", args=[policy.pk])
    rows = {
        "category_rules_category": ["nyama"],
        "category_rules_return_days": [""],
        "category_rules_refund_days": ["1"],
        "category_rules_returnable": ["never"],
    }
    response = _post(client, url, "returnpolicy_form", **rows)
    assert response.status_code == 302, _errors(response)
    assert _rules(tenant) == {"nyama": {"refund_days": 1, "returnable": False}}
    with tenant_context(tenant.id) as tid:
        rule = policy_for(tid, "Africa/Nairobi").categories["nyama"]
    assert (rule.return_days, rule.refund_days, rule.returnable) == (None, 1, False)


@pytest.mark.parametrize(
    ("category", "days", "says"),
    [("mboga", "400", "0 to 365"), ("mboga", "wiki", "0 to 365"), ("", "3", "category")],
)
def test_a_bad_rule_is_refused_in_words_and_nothing_is_lost(
    tenant, stranger, category: str, days: str, says: str
) -> None:
    f.category(tenant, "Mboga")
    policy = _policy(tenant, {"mboga": FRESH})
    client = login(tenant, "owner_r3")
    url = reverse("admin:returns_returnpolicy_change", args=[policy.pk])
    rows = {
        "category_rules_category": [category],
        "category_rules_return_days": [days],
        "category_rules_refund_days": ["1"],
        "category_rules_returnable": [""],
    }
    response = _post(client, url, "returnpolicy_form", **rows)
    assert response.status_code == 200
    assert says in " ".join(_errors(response)["category_rules"])
    assert f'value="{days}"' in response.content.decode()
    assert _rules(tenant) == {"mboga": FRESH}
