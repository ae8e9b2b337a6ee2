"""One response cache for every provider call (docs/ARCHITECTURE.md, "Providers").

Entries are keyed by the normalised request (service + arguments, coordinates rounded to ~0.1 m) and expire
after a time to live per service (a place does not move in a day; a forecast is reissued within hours).
Only answers a service gave itself are stored (MapServices checks the answer's source): a failure or a
fallback's estimate is never kept, so the next call asks the real service again. In memory for now
(cachetools); a disk backend can take the same two calls.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from cachetools import TLRUCache

#: Seconds an answer stays valid, per service.
DEFAULT_TTL_S: Mapping[str, float] = {
    "geocode": 30 * 86_400,
    "search": 86_400,
    "detail": 30 * 86_400,
    "matrix": 86_400,
    "route": 86_400,
    "weather": 1_800,  # forecasts are reissued several times a day
}
COORD_DECIMALS = 6  # ~0.1 m: the same point typed twice is the same key


def point_key(p: Any) -> tuple[float, float]:
    return (round(float(p[0]), COORD_DECIMALS), round(float(p[1]), COORD_DECIMALS))


class ResponseCache:
    """A bounded, thread-safe cache with a time to live per service (the first item of every key)."""

    def __init__(
        self,
        *,
        max_entries: int = 20_000,
        ttl_s: Mapping[str, float] | None = None,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl_s = dict(DEFAULT_TTL_S if ttl_s is None else ttl_s)
        self._lock = threading.Lock()
        self._data: TLRUCache[Hashable, Any] = TLRUCache(maxsize=max_entries, ttu=self._expires, timer=timer)

    def _expires(self, key: Hashable, value: Any, now: float) -> float:
        service = key[0] if isinstance(key, tuple) and key else ""
        return now + self.ttl_s.get(str(service), 3_600.0)

    def get(self, key: Hashable) -> tuple[bool, Any]:
        with self._lock:
            try:
                return True, self._data[key]
            except KeyError:
                return False, None

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._data[key] = value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)
