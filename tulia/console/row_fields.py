"""The three lists a shop used to type as JSON, as rows of words (tulia.console.rows):
delivery zones with fees, a product's details, and per-category return rules.

Each writes the same JSON its model stores and checks it with the reader the platform
uses (the zone and rule checks on the models), so a value checkout or the return
decision could not use is refused here, in plain words. Saving a page unchanged
gives back the stored value: zones keep their order, details keep numbers and yes/no
values as they were stored, rules keep their categories.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tulia.commerce.models.fulfilment import zone_problems
from tulia.console.rows import Column, Row, RowsField, RowsWidget, whole_number
from tulia.returns.models import rule_problems

MAX_FEE = 100_000
MAX_DAYS = 365
COURIER = "courier"
KEPT_AS_STORED = "stored"  # a detail shown as it was stored (a number, yes/no as JSON)


def _areas(text: str) -> list[str]:
    return [area.strip() for area in text.split(",") if area.strip()]


def _unique(names: list[str], message: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name.casefold() in seen:
            raise forms.ValidationError(message % {"name": name})
        seen.add(name.casefold())


class DeliveryZonesField(RowsField):
    """[{"name", "fee", "areas", "courier" (only when true)}], in the shop's order: the
    first zone naming a customer's area is the one charged."""

    columns = (
        Column("name", _("Zone"), size=24, placeholder=_("e.g. Nairobi CBD")),
        Column("fee", _("Fee (KES)"), kind="number", size=8),
        Column("areas", _("Places in it, separated by commas"), size=48,
               placeholder=_("e.g. town, moi avenue")),
        Column("courier", _("How it goes"), kind="select",
               choices=[("", _("Your rider")), (COURIER, _("Courier (never free)"))]),
    )  # fmt: skip

    def rows_of(self, value: Any) -> list[Row]:
        return [
            (
                str(zone.get("name", "")),
                str(zone.get("fee", "")),
                ", ".join(str(area) for area in zone.get("areas", [])),
                COURIER if zone.get("courier") else "",
            )
            for zone in value or []
            if isinstance(zone, dict)
        ]

    def value_of(self, rows: list[Row]) -> list[dict[str, Any]]:
        zones = []
        for typed_name, fee, areas, courier in rows:
            name = typed_name.strip()
            if not name:
                raise forms.ValidationError(gettext("Give every zone a name, or clear its row."))
            message = gettext("%(zone)s: the fee is whole shillings from 0 to 100000.") % {
                "zone": name
            }
            zone: dict[str, Any] = {
                "name": name,
                "fee": whole_number(fee, 0, MAX_FEE, message),
                "areas": _areas(areas),
            }
            if courier == COURIER:
                zone["courier"] = True
            zones.append(zone)
        _unique([z["name"] for z in zones], gettext("Two zones are called %(name)s."))
        problem = zone_problems(zones)  # what checkout reads; the rows above meet it
        if problem:
            raise forms.ValidationError(problem)
        return zones


class ProductDetailsField(RowsField):
    """{"detail": "value"}. A value stored as a number or yes/no (JSON true/false) is
    shown as such and kept so while its text is unchanged; anything typed is text."""

    columns = (
        Column("name", _("Detail"), size=20, placeholder=_("e.g. gender")),
        Column("value", _("Value"), size=40, placeholder=_("e.g. men")),
        Column("kind", "", kind="hidden"),
    )

    def rows_of(self, value: Any) -> list[Row]:
        if not isinstance(value, dict):
            return []
        return [
            (str(name), text, "")
            if isinstance(text, str)
            else (str(name), json.dumps(text, ensure_ascii=False), KEPT_AS_STORED)
            for name, text in value.items()
        ]

    def value_of(self, rows: list[Row]) -> dict[str, Any]:
        details: dict[str, Any] = {}
        for typed_name, text, kind in rows:
            name = typed_name.strip()
            if not name:
                raise forms.ValidationError(gettext("Give every detail a name, or clear its row."))
            if name.casefold() in {n.casefold() for n in details}:
                raise forms.ValidationError(
                    gettext("Two details are called %(name)s.") % {"name": name}
                )
            details[name] = _stored(text) if kind == KEPT_AS_STORED else text.strip()
        return details


def _stored(text: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        return text.strip()
    return text.strip() if isinstance(value, str) else value


class ReturnRulesField(RowsField):
    """{"category slug": {"return_days", "refund_days" (when given), "returnable": false
    (only for a category that never comes back)}}."""

    NEVER = "never"

    def __init__(self, **kwargs: Any) -> None:
        self.columns = (
            Column("category", _("Category"), kind="select", choices=[("", "---------")]),
            Column("return_days", _("Days to ask for a return"), kind="number", size=6,
                   placeholder=_("as the shop")),
            Column("refund_days", _("Days to ask for a refund"), kind="number", size=6,
                   placeholder=_("as the shop")),
            Column("returnable", _("Can it come back?"), kind="select",
                   choices=[("", _("Yes")), (self.NEVER, _("Never"))]),
        )  # fmt: skip
        super().__init__(**kwargs)

    def set_categories(self, categories: list[tuple[str, str]]) -> None:
        """The shop's categories (slug, name) to choose from."""
        # The widget is copied per form but its columns are shared: replace, never mutate.
        widget = self.widget
        assert isinstance(widget, RowsWidget)
        first, *rest = widget.columns
        widget.columns = [replace(first, choices=[("", "---------"), *categories]), *rest]

    def rows_of(self, value: Any) -> list[Row]:
        if not isinstance(value, dict):
            return []
        return [
            (
                str(slug),
                _text(rule.get("return_days")),
                _text(rule.get("refund_days")),
                "" if rule.get("returnable", True) else self.NEVER,
            )
            for slug, rule in value.items()
            if isinstance(rule, dict)
        ]

    def value_of(self, rows: list[Row]) -> dict[str, dict[str, Any]]:
        rules: dict[str, dict[str, Any]] = {}
        for typed_slug, return_days, refund_days, returnable in rows:
            slug = typed_slug.strip()
            if not slug:
                raise forms.ValidationError(
                    gettext("Choose the category of every rule, or clear its row.")
                )
            if slug in rules:
                raise forms.ValidationError(gettext("Two rules are for %(name)s.") % {"name": slug})
            message = gettext("%(category)s: days are whole numbers from 0 to 365.") % {
                "category": slug
            }
            rule: dict[str, Any] = {}
            for key, text in (("return_days", return_days), ("refund_days", refund_days)):
                if text.strip():
                    rule[key] = whole_number(text, 0, MAX_DAYS, message)
            if returnable == self.NEVER:
                rule["returnable"] = False
            rules[slug] = rule
        problem = rule_problems(rules)  # what the return decision reads; the rows meet it
        if problem:
            raise forms.ValidationError(problem)
        return rules


def _text(value: Any) -> str:
    return "" if value is None else str(value)
