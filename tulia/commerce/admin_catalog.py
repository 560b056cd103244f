"""The catalog as a shop edits it: sizes and colours as words, per-size price and stock
in one table, total stock in the list, and a sample file with column help on import."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib.postgres.search import SearchQuery
from django.core.paginator import Page, Paginator
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.functional import cached_property
from django.utils.translation import gettext_lazy as _

from tulia.commerce.models import CatalogItem, Variant
from tulia.normalise import fold

# The attributes a shop fills per variant; any other keys (from an import) are kept.
VARIANT_WORDS = ("size", "colour")

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class VariantForm(forms.ModelForm):
    size = forms.CharField(label=_("Size"), max_length=20, required=False)
    colour = forms.CharField(label=_("Colour"), max_length=30, required=False)

    class Meta:
        model = Variant
        fields = ("size", "colour", "sku", "price", "stock", "is_active")
        labels = {
            "sku": _("Code (SKU)"),
            "price": _("Price (KES), blank = the product's"),
            "stock": _("In stock"),
            "is_active": _("On sale"),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for word in VARIANT_WORDS:
            self.fields[word].initial = self.instance.attributes.get(word, "")

    def save(self, commit: bool = True) -> Any:
        attributes = dict(self.instance.attributes)
        for word in VARIANT_WORDS:
            value = (self.cleaned_data.get(word) or "").strip()
            if value:
                attributes[word] = value
            else:
                attributes.pop(word, None)
        self.instance.attributes = attributes
        return super().save(commit)


IMPORT_COLUMNS: tuple[tuple[str, StrOrPromise], ...] = (
    ("sku", _("Your code for the product (required; the same code updates it next time)")),
    ("name", _("The product's name as customers see it (required)")),
    ("price", _("Price in whole KES, e.g. 9500 (required)")),
    ("stock", _("How many you have, for a product without sizes")),
    ("category", _("e.g. Sneakers; created if new")),
    ("brand", _("e.g. Nike")),
    ("aliases", _("Other names customers use, separated by |, e.g. raba|viatu")),
    ("image_url", _("A picture's web address (https://...)")),
    ("is_active", _("yes or no: on sale")),
    ("variant_sku", _("For a size: its own code; repeat the product's row once per size")),
    ("variant_price", _("The size's price if it differs (blank: the product's price)")),
    ("variant_stock", _("How many of this size you have")),
    ("attr:size", _("The size, e.g. 42")),
    ("attr:colour", _("The colour, e.g. white")),
)

SAMPLE_CSV = (
    "sku,name,price,stock,category,brand,aliases,image_url,is_active,"
    "variant_sku,variant_price,variant_stock,attr:size,attr:colour\r\n"
    "AM90,Air Max 90,9500,0,Sneakers,Nike,airmax|raba,,yes,AM90-41,,3,41,white\r\n"
    "AM90,Air Max 90,9500,0,Sneakers,Nike,airmax|raba,,yes,AM90-42,9800,2,42,white\r\n"
    "SUKUMA,Sukuma wiki (bunch),30,50,Vegetables,,sukuma|kale,,yes,,,,,\r\n"
)


def sample_csv(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(SAMPLE_CSV, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="catalog-sample.csv"'
    return response


# Admin lists count their rows for the page links; past this many, the count stops
# (a shop with 100,000 products searches rather than pages to page 2,000).
COUNT_CAP = 5000


class CappedCountPaginator(Paginator):
    """Counts at most COUNT_CAP + 1 rows: an exact count of 100,000 rows under RLS costs
    more than the rest of the page; beyond the cap the list says so and pages stop.

    Given `rows` (the admin's unfiltered queryset with its columns), a page reads its
    ids from the filtered list and then its rows by id from `rows`: sorting thousands
    of search matches joined to their category and per-size stock cost 30-50 ms, and
    PostgreSQL, which guesses one match for a prefix search, would search again if the
    rows were read through the filtered list."""

    def __init__(self, object_list: Any, per_page: int, *args: Any, rows: Any = None) -> None:
        super().__init__(object_list, per_page, *args)
        self.rows = rows

    @cached_property
    def count(self) -> int:
        object_list: Any = self.object_list
        if hasattr(object_list, "values"):
            # Counted in the database, unordered: sorting (or sending) 5,001 ids to count
            # them cost more than the count.
            return int(object_list.order_by().values("pk")[: COUNT_CAP + 1].count())
        return len(object_list)

    def page(self, number: Any) -> Page:
        if self.rows is None:
            return super().page(number)
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        listed: Any = self.object_list
        ids = list(listed.values_list("pk", flat=True)[bottom : bottom + self.per_page])
        place = {pk: n for n, pk in enumerate(ids)}
        found = sorted(self.rows.filter(pk__in=ids), key=lambda row: place[row.pk])
        return Page(found, number, self)


def catalog_search(queryset: QuerySet[CatalogItem], term: str) -> QuerySet[CatalogItem]:
    """Words (as prefixes) through the catalog's full-text index, or an exact code.

    The search text is what the indexer keeps for customers' search (name, brand,
    category, aliases, sizes), so the owner finds what customers find."""
    words = fold(term).split()
    matches = Q(sku__in={term.strip(), term.strip().upper()})
    if words:
        query = SearchQuery(
            " & ".join(f"{word}:*" for word in words), search_type="raw", config="simple"
        )
        matches |= Q(search_vector=query)
    return queryset.filter(matches)
