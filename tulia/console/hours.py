"""A day's opening windows on the settings page: as many rows of two time pickers as the
shop keeps (08:00-12:00 and 14:00-18:00 are two rows), "Add a window" and "Remove".

Every stored window is rendered and every posted row is read back, so saving the page
unchanged keeps split hours whole. A row with both times cleared is a removed window
(the way to remove one without JavaScript); a row with one time is refused.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from datetime import time
from typing import Any

from django import forms
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

# (opens, closes) as the pickers show them, "HH:MM" or "" for an empty picker.
Row = tuple[str, str]
_TIME = forms.TimeField()


def _hhmm(value: Any) -> str:
    if isinstance(value, time):
        return value.strftime("%H:%M")
    return str(value or "")


def _rows(value: Any) -> list[Row]:
    """Rows from what the form holds: stored windows (objects or dicts) or posted pairs."""
    rows: list[Row] = []
    for window in value or []:
        if isinstance(window, Mapping):
            rows.append((_hhmm(window.get("opens")), _hhmm(window.get("closes"))))
        elif isinstance(window, tuple | list):
            rows.append((_hhmm(window[0]), _hhmm(window[1])))
        else:
            rows.append((_hhmm(window.opens), _hhmm(window.closes)))
    return rows


def _posted(data: Any, name: str) -> list[str]:
    if hasattr(data, "getlist"):
        return [str(v) for v in data.getlist(name)]
    value = data.get(name)
    return [] if value is None else [str(v) for v in ([value] if isinstance(value, str) else value)]


def _time(text: str) -> time:
    parsed = _TIME.to_python(text)
    if parsed is None:  # only for empty text, which the caller has ruled out
        raise forms.ValidationError(_("Enter a valid time."))
    return parsed


class OpeningWindowsWidget(forms.Widget):
    """Rows named <field>_opens / <field>_closes, repeated once per window."""

    class Media:
        js = ("console/hours.js",)

    def value_from_datadict(self, data: Any, _files: Any, name: str) -> list[Row]:
        opens, closes = _posted(data, f"{name}_opens"), _posted(data, f"{name}_closes")
        return list(itertools.zip_longest(opens, closes, fillvalue=""))

    def value_omitted_from_data(self, data: Any, _files: Any, name: str) -> bool:
        return f"{name}_opens" not in data and f"{name}_closes" not in data

    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        rows = _rows(value) or [("", "")]  # a closed day still offers one row to type in
        label_id = (attrs or {}).get("id", "")
        body = format_html_join(
            "", "{}", ((self._row(name, row, label_id, i),) for i, row in enumerate(rows))
        )
        return format_html(
            '<div class="hours-windows" data-day="{}">{}'
            '<button type="button" class="hours-add">{}</button></div>',
            name, body, _("Add a window"),
        )  # fmt: skip

    def _row(self, name: str, row: Row, label_id: str, index: int) -> SafeString:
        # The first picker carries the id the field's <label for> points at.
        first_id = format_html(' id="{}"', label_id) if index == 0 and label_id else ""
        return format_html(
            '<span class="hours-window">'
            '<input type="time" name="{}_opens" value="{}"{} aria-label="{}">'
            ' &ndash; <input type="time" name="{}_closes" value="{}" aria-label="{}">'
            ' <button type="button" class="hours-remove">{}</button></span>',
            name, row[0], first_id, _("opens"), name, row[1], _("closes"), _("Remove"),
        )  # fmt: skip


class OpeningWindowsField(forms.Field):
    """A day's windows, earliest first; each closes after it opens and none overlap."""

    widget = OpeningWindowsWidget

    def to_python(self, value: Iterable[Row] | None) -> list[tuple[time, time]]:
        windows = []
        for opens, closes in value or []:
            if not opens and not closes:
                continue  # a cleared row is a removed window
            if not opens or not closes:
                raise forms.ValidationError(
                    _("Give the opening and closing time of each window, or clear both.")
                )
            windows.append((_time(opens), _time(closes)))
        return sorted(windows)

    def validate(self, value: list[tuple[time, time]]) -> None:
        super().validate(value)
        if any(closes <= opens for opens, closes in value):
            raise forms.ValidationError(_("Closing time must be after opening time."))
        if any(later[0] < earlier[1] for earlier, later in itertools.pairwise(value)):
            raise forms.ValidationError(_("Two windows of one day overlap."))
