"""What is derived from a loaded region pack and read on every request (its names as match keys, its words to mask,
its vocabulary): built once per pack, not once per request (issue 33: the fast path rebuilt them per message, most
of its CPU).

A pack is loaded once per process (``core.packs.loader.load_region``) and is not changed in place afterwards; a
changed pack is a new object (``model_copy``) and gets its own. As ``core.models.region``'s index by place id, the
memo is keyed by the pack object and checks that it still holds that object with as many places.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from core.models.region import RegionPack

T = TypeVar("T")

#: packs kept per derivation before it starts again (a process holds a few; a test run makes many)
MAX_PACKS = 32


class PerPack(Generic[T]):
    """``build(pack)``, made once per pack object: ``derived = PerPack(build)``; ``derived(pack)``."""

    def __init__(self, build: Callable[[RegionPack], T]) -> None:
        self._build = build
        self._held: dict[int, tuple[RegionPack, int, T]] = {}
        self._lock = threading.Lock()

    def holds(self, pack: RegionPack) -> bool:
        """Whether ``pack``'s value is made (the warm-up's proof)."""
        held = self._held.get(id(pack))
        return held is not None and held[0] is pack and held[1] == len(pack.places)

    def __call__(self, pack: RegionPack) -> T:
        if self.holds(pack):
            return self._held[id(pack)][2]
        value = self._build(pack)  # outside the lock: two first callers may both build; one is kept
        with self._lock:
            if len(self._held) >= MAX_PACKS:
                self._held.clear()
            self._held[id(pack)] = (pack, len(pack.places), value)
        return value
