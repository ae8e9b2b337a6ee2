"""A generator's answer without its parts: the half-day's composers and tools show their work as they go (each plan
the moment it is made), and a caller that wants only the answer runs them to the end."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

R = TypeVar("R")


def returned(made: Generator[Any, None, R]) -> R:
    """What ``made`` returns, every part it yields passed over."""
    while True:
        try:
            next(made)
        except StopIteration as end:
            value: R = end.value
            return value
