"""The journeys' typed tool names agree with the registry (journeys.tooling).

mypy reads each `ToolName[...]` annotation as the output a flow gets back; this checks
that annotation names the model the registered tool really returns, and that every
registered tool has its one typed name.
"""

from __future__ import annotations

import re

from journeys import tooling
from tools.registry import TOOL_MODULES, get_tool

_ANNOTATION = re.compile(r"^ToolName\[(\w+)\]$")


def _typed_names() -> dict[str, str]:
    """Tool name -> output model class name, as the annotations in journeys.tooling say."""
    found = {}
    for attribute, annotation in tooling.__annotations__.items():
        value = getattr(tooling, attribute)
        if isinstance(value, tooling.ToolName):
            match = _ANNOTATION.match(str(annotation))
            assert match, f"{attribute}: {annotation!r} is not ToolName[Model]"
            found[value.name] = match.group(1)
    return found


def test_every_typed_name_announces_the_output_model_of_its_tool() -> None:
    for name, model in _typed_names().items():
        assert get_tool(name).output_model.__name__ == model, name


def test_every_registered_tool_has_one_typed_name() -> None:
    assert sorted(_typed_names()) == sorted(TOOL_MODULES)
