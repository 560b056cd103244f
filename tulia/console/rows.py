"""A list the shop keeps as rows of words instead of a JSON box: delivery zones, a
product's details, per-category return rules. One table per field, a heading per
column, "Add a row" and "Remove" (console/rows.js); without JavaScript a row whose
boxes are all cleared is a removed row.

Each column posts as <field>_<column>, repeated once per row. A field says how a
stored value becomes rows of text (`rows_of`) and how posted rows become the stored
value again (`value_of`, raising ValidationError in plain words); saving a page
unchanged gives back the stored value. A bad row re-renders as typed, nothing lost.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django import forms
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

Row = tuple[str, ...]


@dataclass
class Column:
    name: str
    label: StrOrPromise
    kind: str = "text"  # text, number, select or hidden
    size: int = 20
    # For a select: (value, label) pairs; the first is what a new row starts with.
    choices: list[tuple[str, StrOrPromise]] = field(default_factory=list)
    placeholder: StrOrPromise = ""


def _posted(data: Any, name: str) -> list[str]:
    if hasattr(data, "getlist"):
        return [str(v) for v in data.getlist(name)]
    value = data.get(name)
    return [] if value is None else [str(v) for v in ([value] if isinstance(value, str) else value)]


def is_rows(value: Any) -> bool:
    """Posted rows (tuples), as opposed to the stored value they came from."""
    return isinstance(value, list) and all(isinstance(row, tuple) for row in value)


def blank(row: Row) -> bool:
    return not any(text.strip() for text in row)


class RowsWidget(forms.Widget):
    class Media:
        js = ("console/rows.js",)

    def __init__(self, columns: Sequence[Column], attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs)
        self.columns = list(columns)

    def value_from_datadict(self, data: Any, _files: Any, name: str) -> list[Row]:
        posted = [_posted(data, f"{name}_{column.name}") for column in self.columns]
        return [tuple(row) for row in itertools.zip_longest(*posted, fillvalue="")]

    def value_omitted_from_data(self, data: Any, _files: Any, name: str) -> bool:
        return not any(f"{name}_{column.name}" in data for column in self.columns)

    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        rows = list(value or []) or [("",) * len(self.columns)]  # always one row to type in
        label_id = (attrs or {}).get("id", "")
        head = format_html_join(
            "", "<th>{}</th>", ((c.label,) for c in self.columns if c.kind != "hidden")
        )
        body = format_html_join(
            "",
            "{}",
            ((self._row(name, row, label_id if i == 0 else ""),) for i, row in enumerate(rows)),
        )
        return format_html(
            '<table class="console-rows"><thead><tr>{}<th></th></tr></thead>'
            "<tbody>{}</tbody></table>"
            '<button type="button" class="rows-add">{}</button>',
            head, body, _("Add a row"),
        )  # fmt: skip

    def _row(self, name: str, row: Row, label_id: str) -> SafeString:
        cells: list[SafeString] = []
        hidden: list[SafeString] = []
        for index, column in enumerate(self.columns):
            text = row[index] if index < len(row) else ""
            box = self._box(f"{name}_{column.name}", column, text, label_id if index == 0 else "")
            (hidden if column.kind == "hidden" else cells).append(box)
        return format_html(
            '<tr class="rows-row">{}<td>{}<button type="button" class="rows-remove">{}</button>'
            "</td></tr>",
            format_html_join("", "<td>{}</td>", ((c,) for c in cells)),
            format_html_join("", "{}", ((h,) for h in hidden)),
            _("Remove"),
        )

    def _box(self, name: str, column: Column, text: str, box_id: str) -> SafeString:
        id_attr = format_html(' id="{}"', box_id) if box_id else ""
        if column.kind == "select":
            choices = list(column.choices)
            if text not in {value for value, _label in choices}:
                choices.append((text, text))  # a stored value the list does not name stays
            options = format_html_join(
                "",
                '<option value="{}"{}>{}</option>',
                ((v, " selected" if v == text else "", label) for v, label in choices),
            )
            return format_html(
                '<select name="{}"{} aria-label="{}">{}</select>',
                name,
                id_attr,
                column.label,
                options,
            )
        kind = "number" if column.kind == "number" else column.kind
        extra = mark_safe(' min="0" step="1"') if kind == "number" else ""
        return format_html(
            '<input type="{}" name="{}" value="{}" size="{}"{}{} aria-label="{}" placeholder="{}">',
            kind, name, text, column.size, id_attr, extra, column.label, column.placeholder,
        )  # fmt: skip


class RowsField(forms.Field):
    """The stored value as rows of text; subclasses say how rows and values convert."""

    columns: Sequence[Column] = ()

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("widget", RowsWidget(self.columns))
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def rows_of(self, value: Any) -> list[Row]:
        raise NotImplementedError

    def value_of(self, rows: list[Row]) -> Any:
        raise NotImplementedError

    def prepare_value(self, value: Any) -> list[Row]:
        return value if is_rows(value) else self.rows_of(value)

    def to_python(self, value: Any) -> Any:
        rows = value if is_rows(value) else self.rows_of(value)
        return self.value_of([row for row in rows if not blank(row)])

    def has_changed(self, initial: Any, data: Any) -> bool:
        try:
            return bool(self.to_python(data) != self.to_python(initial))
        except forms.ValidationError:
            return True


def whole_number(text: str, low: int, high: int, message: StrOrPromise) -> int:
    """A whole number typed in a box, within [low, high], or the message as the error."""
    try:
        number = int(text.strip().replace(",", ""))
    except ValueError:
        raise forms.ValidationError(message) from None
    if not low <= number <= high:
        raise forms.ValidationError(message)
    return number
