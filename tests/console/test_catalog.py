"""The catalog as a shop edits it: sizes with their own price and stock, total stock in
the list, and a sample CSV that imports as it is."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tenants.context import tenant_context
from tests.console.conftest import login, sized_shoe
from tulia.commerce.indexing import refresh_search_text
from tulia.commerce.models import CatalogItem, Variant

pytestmark = pytest.mark.django_db


def test_list_shows_total_stock_of_sizes_and_kes(tenant, stranger) -> None:
    sized_shoe(tenant)
    page = login(tenant, "owner_p").get(reverse("admin:commerce_catalogitem_changelist"))
    text = page.content.decode()
    assert "5 (2 sizes)" in text
    assert "KES 9,500" in text
    assert "embedding" not in text.lower()


def _form_data(page_context, **changes):
    """The change form as the browser would post it, with `changes` applied."""
    form = page_context["adminform"].form
    data = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if value is not None:
            data[name] = value if not isinstance(value, list) else "|".join(value)
    for formset in page_context["inline_admin_formsets"]:
        management = formset.formset.management_form
        for name in management.fields:
            data[f"{management.prefix}-{name}"] = management.initial.get(name, "")
        for form in formset.formset.forms:
            for name, field in form.fields.items():
                value = form.initial.get(name, field.initial)
                if value is not None and value is not False:
                    data[f"{form.prefix}-{name}"] = value
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def test_owner_edits_a_sizes_stock_and_price_inline(tenant, stranger) -> None:
    shoe = sized_shoe(tenant)
    client = login(tenant, "owner_v")
    url = reverse("admin:commerce_catalogitem_change", args=[shoe.pk])
    page = client.get(url)
    html = page.content.decode()
    assert "Sizes and stock" in html
    assert 'name="variants-1-size"' in html
    data = _form_data(page.context, **{"variants-1-stock": "7", "variants-1-price": "9900"})
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    with tenant_context(tenant.id):
        size_42 = Variant.objects.get(item=shoe, attributes__size="42")
        assert (size_42.stock, size_42.price) == (7, 9900)
        assert size_42.attributes == {"size": "42"}


def test_agent_sees_sizes_but_cannot_edit(tenant, stranger) -> None:
    shoe = sized_shoe(tenant)
    page = login(tenant, "agent_v", "agent").get(
        reverse("admin:commerce_catalogitem_change", args=[shoe.pk])
    )
    html = page.content.decode()
    assert "Sizes and stock" in html
    assert 'name="variants-1-stock"' not in html


def test_the_sample_csv_imports_as_it_is(tenant, stranger) -> None:
    client = login(tenant, "owner_i")
    import_page = client.get(reverse("admin:commerce_catalogitem_import")).content.decode()
    assert "attr:size" in import_page  # the column help
    sample = client.get(reverse("admin:commerce_catalogitem_import_sample")).content
    upload = SimpleUploadedFile("sample.csv", sample, content_type="text/csv")
    response = client.post(reverse("admin:commerce_catalogitem_import"), {"file": upload})
    assert response.status_code == 302
    with tenant_context(tenant.id):
        shoe = CatalogItem.objects.get(sku="AM90")
        assert sorted(v.attributes["size"] for v in shoe.variants.all()) == ["41", "42"]
        assert CatalogItem.objects.count() == 2


def test_admin_search_finds_by_word_prefix_and_exact_code(tenant, stranger) -> None:
    shoe = sized_shoe(tenant)
    refresh_search_text(tenant.id, [shoe.pk])
    client = login(tenant, "owner_q")
    url = reverse("admin:commerce_catalogitem_changelist")
    assert "Air Max 90" in client.get(url, {"q": "air ma"}).content.decode()
    assert "Air Max 90" in client.get(url, {"q": shoe.sku}).content.decode()
    assert "Air Max 90" not in client.get(url, {"q": "sukuma"}).content.decode()


def _runners(tenant, count: int, prefix: str) -> list[int]:
    with tenant_context(tenant.id) as tid:
        items = CatalogItem.objects.bulk_create(
            CatalogItem(
                tenant_id=tid, sku=f"{prefix}{n}", name=f"{prefix} runner {n}", price=1000 + n,
                search_text=f"{prefix.lower()} runner {n}",
            )
            for n in range(count)
        )  # fmt: skip
        Variant.objects.create(tenant_id=tid, item=items[0], sku="R0-41", stock=4,
                               attributes={"size": "41"})  # fmt: skip
    return sorted((item.pk for item in items), reverse=True)


def test_a_searched_page_past_the_first_shows_its_own_rows_in_order(tenant, stranger) -> None:
    """Long lists read a page's ids, then its rows by id (admin_catalog.CappedCountPaginator):
    the rows, their order, their columns and the shop's own products must stay the same."""
    ids = _runners(tenant, 120, "Kicks")
    _runners(stranger, 60, "Other")
    client = login(tenant, "owner_pages")
    url = reverse("admin:commerce_catalogitem_changelist")
    first = client.get(url, {"q": "runner"})
    third = client.get(url, {"q": "runner", "p": "3"})
    assert [item.pk for item in first.context["cl"].result_list] == ids[:50]
    assert [item.pk for item in third.context["cl"].result_list] == ids[100:]
    text = third.content.decode()
    assert "Kicks runner 0" in text
    assert "4 (1 sizes)" in text
    assert "Other runner" not in first.content.decode() + text
    assert first.context["cl"].result_count == 120
