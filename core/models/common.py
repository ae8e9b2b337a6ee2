"""Vocabulary shared by every product: priorities and their rank (one list, one order)."""

from __future__ import annotations

from typing import Literal

Priority = Literal["must", "should", "nice"]
PRIORITIES: tuple[Priority, ...] = ("must", "should", "nice")
#: Lower is more important; sorts must before should before nice.
PRIORITY_RANK: dict[str, int] = {p: i for i, p in enumerate(PRIORITIES)}
#: Words an earlier version stored (trip store, agent): read them as today's vocabulary.
LEGACY_PRIORITY = {"normal": "should", "optional": "nice", "high": "must", "low": "nice"}


def as_priority(value: object) -> object:
    """A stored or typed priority in today's vocabulary (unknown values pass through for validation)."""
    if isinstance(value, str):
        v = value.strip().lower()
        return LEGACY_PRIORITY.get(v, v)
    return value
