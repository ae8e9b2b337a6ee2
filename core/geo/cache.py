"""One response cache for every provider call (docs/ARCHITECTURE.md, "Providers").

Entries are keyed by the normalised request (service + arguments, coordinates rounded to ~0.1 m) and expire
after a time to live per service (a place does not move in a day; a forecast is reissued within hours).
Only answers a service gave itself are stored (MapServices checks the answer's source): a failure or a
fallback's estimate is never kept, so the next call asks the real service again. In memory (cachetools); with
``OMNI_CACHE_DIR`` the answers of remote services also go to disk (diskcache), so a new process re-planning the
same points asks the remote service nothing.
"""

from __future__ import annotations

import pickle
import threading
import time
from collections.abc import Callable, Collection, Hashable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from cachetools import TLRUCache

_MISSING = object()

#: Seconds an answer stays valid, per service.
DEFAULT_TTL_S: Mapping[str, float] = {
    "geocode": 30 * 86_400,
    "search": 86_400,
    "detail": 30 * 86_400,
    "matrix": 86_400,
    "matrix_cell": 86_400,  # one pair of a matrix, kept on its own (MapServices.matrix)
    "route": 86_400,
    "weather": 1_800,  # forecasts are reissued several times a day
}
COORD_DECIMALS = 6  # ~0.1 m: the same point typed twice is the same key


def point_key(p: Any) -> tuple[float, float]:
    return (round(float(p[0]), COORD_DECIMALS), round(float(p[1]), COORD_DECIMALS))


class Cache(Protocol):
    """What a provider's cache does (MapServices asks nothing else): a hit and its value, and keeping one."""

    def get(self, key: Hashable) -> tuple[bool, Any]: ...

    def put(self, key: Hashable, value: Any) -> None: ...


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


class DiskResponseCache(ResponseCache):
    """The in-memory cache in front of an on-disk one (diskcache, SQLite underneath) for the services named in
    ``persist`` (the second item of a key: ``amap``, ``nominatim``, ...). Local answers stay in memory: they are
    cheap to recompute and would go stale when a pack is rebuilt. Entries expire with their service's TTL."""

    def __init__(
        self,
        directory: str | Path,
        *,
        persist: Collection[str],
        size_limit_bytes: int = 512 * 2**20,
        ttl_s: Mapping[str, float] | None = None,
        max_entries: int = 20_000,
    ) -> None:
        super().__init__(max_entries=max_entries, ttl_s=ttl_s)
        self.directory = Path(directory)
        self._disk = _disk_cache(str(self.directory.resolve()), size_limit_bytes)
        self._persist = frozenset(persist)

    def _disk_key(self, key: Hashable) -> str | None:
        if isinstance(key, tuple) and len(key) > 1 and key[1] in self._persist:
            return repr(key)  # the normalised request, the same text in every process
        return None

    def get(self, key: Hashable) -> tuple[bool, Any]:
        hit, value = super().get(key)
        disk_key = self._disk_key(key)
        if hit or disk_key is None:
            return hit, value
        try:
            value = self._disk.get(disk_key, default=_MISSING)
        except Exception:  # an entry an older version wrote and this one cannot read: a miss
            return False, None
        if value is _MISSING:
            return False, None
        super().put(key, value)
        return True, value

    def put(self, key: Hashable, value: Any) -> None:
        super().put(key, value)
        if (disk_key := self._disk_key(key)) is not None:
            service = str(key[0]) if isinstance(key, tuple) else ""
            self._disk.set(disk_key, value, expire=self.ttl_s.get(service, 3_600.0))

    def clear(self) -> None:
        super().clear()
        self._disk.clear()


@lru_cache(maxsize=8)
def _disk_cache(directory: str, size_limit_bytes: int) -> Any:
    """One diskcache per folder and process (each MapServices keeps its own memory cache in front of it)."""
    import diskcache

    Path(directory).mkdir(parents=True, exist_ok=True)
    return diskcache.Cache(directory, size_limit=size_limit_bytes)


class SharedResponseCache:
    """A team's cache (issue 33): ``inner`` (this process's memory, or memory and disk) in front of Redis for the
    services named in ``persist``, so an answer one machine fetched is not paid for again on another. Entries keep
    their service's TTL in Redis too. Values are pickled, as on disk: the Redis must be the team's own, private
    one. While Redis does not answer, ``inner`` alone serves (``RedisLink`` marks it down and tries again later)."""

    def __init__(
        self, inner: ResponseCache, link: Any, *, persist: Collection[str], prefix: str = "omni:cache"
    ) -> None:
        self.inner = inner
        self.link = link
        self.ttl_s = inner.ttl_s
        self._persist = frozenset(persist)
        self._prefix = prefix

    def _shared_key(self, key: Hashable) -> str | None:
        if isinstance(key, tuple) and len(key) > 1 and key[1] in self._persist:
            import hashlib

            return f"{self._prefix}:{hashlib.sha256(repr(key).encode('utf-8')).hexdigest()}"
        return None

    def get(self, key: Hashable) -> tuple[bool, Any]:
        hit, value = self.inner.get(key)
        shared = self._shared_key(key)
        if hit or shared is None:
            return hit, value
        ok, raw = self.link.call(lambda client: client.get(shared))
        if not ok or raw is None:
            return False, None
        try:
            value = pickle.loads(raw)  # noqa: S301 - the team's own Redis, as the disk cache is the machine's
        except Exception:  # an entry another version wrote that this one cannot read: a miss
            return False, None
        self.inner.put(key, value)
        return True, value

    def put(self, key: Hashable, value: Any) -> None:
        self.inner.put(key, value)
        if (shared := self._shared_key(key)) is not None:
            ttl = max(1, int(self.ttl_s.get(str(key[0]) if isinstance(key, tuple) else "", 3_600.0)))
            data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
            self.link.call(lambda client: client.set(shared, data, ex=ttl))

    def clear(self) -> None:
        self.inner.clear()

    def __len__(self) -> int:
        return len(self.inner)
