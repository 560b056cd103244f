"""Parsing catalog files (CSV or JSON) into validated rows, with errors per row."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tulia.errors import DomainError

MAX_ROWS = 20_000
TRUE_WORDS = {"1", "true", "yes", "y", "ndio"}
FALSE_WORDS = {"0", "false", "no", "n", "hapana"}


class VariantRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sku: str = Field(min_length=1, max_length=64)
    attributes: dict[str, str] = Field(default_factory=dict)
    price: Decimal | None = Field(default=None, ge=0, max_digits=12, decimal_places=2)
    stock: int = Field(default=0, ge=0)

    @field_validator("price")
    @classmethod
    def _whole(cls, value: Decimal | None) -> Decimal | None:
        if value is not None and value != value.to_integral_value():
            raise ValueError("KES prices are whole shillings")
        return value


class ItemRow(VariantRow):
    name: str = Field(min_length=1, max_length=160)
    price: Decimal = Field(ge=0, max_digits=12, decimal_places=2)
    category: str = Field(default="", max_length=80)
    brand: str = Field(default="", max_length=80)
    description: str = Field(default="", max_length=4000)
    aliases: list[str] = Field(default_factory=list, max_length=30)
    image_url: str = Field(default="", max_length=400)
    link_url: str = Field(default="", max_length=400)
    is_active: bool = True
    variants: list[VariantRow] = Field(default_factory=list, max_length=200)

    @field_validator("image_url", "link_url")
    @classmethod
    def _web_address(cls, value: str) -> str:
        # These land in href/src attributes: javascript:, data: or vbscript: would run
        # or embed whatever the file says in a shop's or customer's browser.
        if value and not value.lower().startswith(("https://", "http://")):
            raise ValueError("must be a web address starting with https:// or http://")
        return value


class RowError(BaseModel):
    row: int  # 1-based: the line a shop owner sees in their spreadsheet (after the header)
    field: str
    message: str


class FileError(DomainError):
    """The file as a whole cannot be read (not CSV/JSON, too many rows...)."""

    code = "unreadable_file"


def _csv_bool(value: str) -> bool | str:
    lowered = value.strip().lower()
    if lowered in TRUE_WORDS:
        return True
    if lowered in FALSE_WORDS:
        return False
    return value


def _csv_record(raw: dict[str, str]) -> dict[str, Any]:
    """One CSV line: item columns, plus variant_* and attr:* columns for a variant."""
    clean = {k.strip(): (v or "").strip() for k, v in raw.items() if k}
    item: dict[str, Any] = {k: v for k, v in clean.items() if v and ":" not in k}
    variant_keys = {k for k in item if k.startswith("variant_")}
    variant = {k.removeprefix("variant_"): item.pop(k) for k in variant_keys}
    attrs = {k.split(":", 1)[1]: v for k, v in clean.items() if k.startswith("attr:") and v}
    if "aliases" in item:
        item["aliases"] = [a.strip() for a in item["aliases"].split("|") if a.strip()]
    if "is_active" in item:
        item["is_active"] = _csv_bool(item["is_active"])
    if variant or attrs:
        item["variants"] = [{**variant, "attributes": attrs}]
    return item


def parse_csv(text: str) -> list[dict[str, Any]]:
    """Rows sharing an item sku and carrying variant columns become one item's variants."""
    records: list[dict[str, Any]] = []
    by_sku: dict[str, dict[str, Any]] = {}
    for raw in csv.DictReader(io.StringIO(text)):
        record = _csv_record(raw)
        previous = by_sku.get(str(record.get("sku", "")))
        if previous is not None and record.get("variants"):
            previous.setdefault("variants", []).extend(record["variants"])
            records.append({"_merged_into": previous})
            continue
        by_sku[str(record.get("sku", ""))] = record
        records.append(record)
    return records


def parse_json(text: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileError(f"not valid JSON: {exc.msg} (line {exc.lineno})") from exc
    if isinstance(data, dict):
        data = data.get("items")
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise FileError("JSON must be a list of items (or {'items': [...]})")
    return data


def parse(text: str, fmt: str) -> list[dict[str, Any]]:
    records = parse_csv(text) if fmt == "csv" else parse_json(text)
    if len(records) > MAX_ROWS:
        raise FileError(f"at most {MAX_ROWS} rows per file")
    return records


def validate(records: list[dict[str, Any]]) -> tuple[list[ItemRow], list[RowError]]:
    numbered: list[tuple[int, ItemRow]] = []
    errors: list[RowError] = []
    for number, record in enumerate(records, start=1):
        if "_merged_into" in record:
            continue
        try:
            numbered.append((number, ItemRow.model_validate(record)))
        except ValidationError as exc:
            errors.extend(
                RowError(row=number, field=".".join(map(str, e["loc"])) or "row", message=e["msg"])
                for e in exc.errors()
            )
    return [row for _, row in numbered], errors + _duplicates(numbered)


def _duplicates(numbered: list[tuple[int, ItemRow]]) -> list[RowError]:
    """A sku (item or variant) may appear once per file."""
    seen: set[str] = set()
    errors = []
    for number, row in numbered:
        for sku in [row.sku, *(variant.sku for variant in row.variants)]:
            if sku in seen:
                errors.append(RowError(row=number, field="sku", message=f"duplicate sku {sku}"))
            seen.add(sku)
    return errors
