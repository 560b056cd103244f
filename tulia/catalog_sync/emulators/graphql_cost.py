"""The Shopify emulator's query costs, worked out from the query text as Shopify does.

Requested cost (charged up front, refused above the single-query maximum): an object
costs 1, a scalar 0, a connection 2 plus `first` times the cost of one of its nodes, so
nested connections multiply. Actual cost (what the bucket finally pays): the same, but
counting the nodes the answer really holds. A mutation costs 10.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from typing import Any

MUTATION_COST = 10
_TOKEN = re.compile(r"(\w+)\s*(\([^)]*\))?\s*\{|\}")
_FIRST = re.compile(r"(?<![$\w])first:\s*(\$\w+|\d+)")
_AFTER = re.compile(r"(?<![$\w])after:\s*(\$\w+|\"[^\"]*\")")
# Wrappers that are no object of their own: a connection's node list and its page info.
_FREE = frozenset({"nodes", "edges", "node", "pageInfo"})


@dataclass
class _Field:
    name: str
    first: int | None
    children: list[_Field] = field(default_factory=list)

    def cost(self) -> int:
        inner = sum(child.cost() for child in self.children)
        if self.first is not None:
            return 2 + self.first * (1 + inner)
        if self.name == "pageInfo":
            return 0
        return inner if self.name in _FREE else 1 + inner


def _argument(pattern: re.Pattern[str], args: str, variables: dict[str, Any]) -> Any:
    found = pattern.search(args or "")
    if not found:
        return None
    token = found.group(1)
    if token.startswith("$"):
        return variables.get(token[1:])
    return token.strip('"')


def parse(query: str, variables: dict[str, Any]) -> _Field:
    """The query's field tree (only fields with a selection set; scalars cost nothing)."""
    root = _Field("operation", None)
    stack = [root]
    body = query[query.find("{") + 1 :]  # past "query Name($vars…) {"
    for match in _TOKEN.finditer(body):
        if match.group(0) == "}":
            if len(stack) > 1:
                stack.pop()
            continue
        first = _argument(_FIRST, match.group(2), variables)
        child = _Field(match.group(1), int(first) if first is not None else None)
        stack[-1].children.append(child)
        stack.append(child)
    return root


def requested_cost(query: str, variables: dict[str, Any]) -> int:
    if query.lstrip().startswith("mutation"):
        return MUTATION_COST
    return parse(query, variables).cost()


def actual_cost(data: Any) -> int:
    """What the answer holds: 1 per object, 2 more per connection (a dict with `nodes`)."""
    if isinstance(data, list):
        return sum(actual_cost(entry) for entry in data)
    if not isinstance(data, dict):
        return 0
    inner = sum(actual_cost(value) for key, value in data.items() if key != "pageInfo")
    if "nodes" in data:
        return 2 + inner
    return inner + (1 if "id" in data else 0)


def connection_page(
    rows: list[Any], first: int, after: str | None
) -> tuple[list[Any], dict[str, Any]]:
    """A page of `rows` after the opaque cursor, and its pageInfo (Relay style)."""
    start = int(base64.b64decode(after).decode().split(":")[1]) + 1 if after else 0
    page = rows[start : start + first]
    end = start + len(page) - 1
    info = {
        "hasNextPage": start + first < len(rows),
        "endCursor": base64.b64encode(f"at:{end}".encode()).decode() if page else None,
    }
    return page, info


def after_of(args_query: str, connection: str, variables: dict[str, Any]) -> str | None:
    """The `after:` a connection named in the query was asked for (a variable or literal)."""
    found = re.search(rf"{connection}\s*(\([^)]*\))", args_query)
    value = _argument(_AFTER, found.group(1), variables) if found else None
    return str(value) if value else None


def first_of(args_query: str, connection: str, variables: dict[str, Any]) -> int:
    found = re.search(rf"{connection}\s*(\([^)]*\))", args_query)
    value = _argument(_FIRST, found.group(1), variables) if found else None
    return int(value) if value is not None else 10
