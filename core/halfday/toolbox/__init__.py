"""The half-day planner's tools, one module each (docs/ARCHITECTURE.md, "Adding a half-day tool").

A module is named as its tool (``core.config.HalfDayToolName``, the registry: one line per tool) and declares it:
``tool(deps) -> ToolSpec`` binds the tool, its mock and its facts to a planner's dependencies. ``builtin_tools`` loads
them in the registry's order.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import cast

from core.config import HalfDayToolName
from core.halfday.tools import ToolBuilder


def builtin_tools() -> tuple[ToolBuilder, ...]:
    """Every tool the registry names, as its module declares it."""
    return tuple(tool_of(name) for name in HalfDayToolName)


@cache
def tool_of(name: HalfDayToolName) -> ToolBuilder:
    """The ``tool`` of the module named ``name`` (a module that lacks one, or names another tool, is refused)."""
    module = importlib.import_module(f"{__name__}.{name}")
    builder = getattr(module, "tool", None)
    if not callable(builder) or getattr(module, "NAME", None) != name:
        raise ImportError(f"{module.__name__} must declare NAME = HalfDayToolName.{name.name} and tool(deps)")
    return cast(ToolBuilder, builder)
