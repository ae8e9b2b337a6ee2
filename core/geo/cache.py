"""A caching, counting wrapper around any MapProvider.

One instance lives as long as the app's provider (``st.cache_resource``) or a CLI run, so
re-planning the same points costs no new provider calls. ``calls`` counts what reached the
wrapped provider; ``cache_hits`` what was answered here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from threading import Lock

from core.geo.base import Leg, LonLat, Place, TravelMatrix, TravelMode
from core.models.route import ProviderCalls

_COORD_DECIMALS = 6  # ~0.1 m: the same point typed twice is the same key


def _pt(p: LonLat) -> tuple[float, float]:
    return (round(float(p[0]), _COORD_DECIMALS), round(float(p[1]), _COORD_DECIMALS))


class CachedProvider:
    def __init__(self, inner, *, max_entries: int = 20_000):
        self.inner = inner
        self.name = inner.name
        self._cache: dict[tuple, object] = {}
        self._max = max_entries
        self._lock = Lock()
        self.calls: Counter[str] = Counter()
        self.cache_hits = 0

    def __getattr__(self, item):  # region, estimate_note, drain_warnings, ... of the wrapped provider
        return getattr(self.inner, item)

    def _cached(self, key: tuple, method: str, fn):
        with self._lock:
            if key in self._cache:
                self.cache_hits += 1
                return self._cache[key]
        value = fn()
        degraded = getattr(self.inner, "is_degraded", None)
        with self._lock:
            self.calls[method] += 1
            if callable(degraded) and degraded(value):
                return value  # a fallback answer: ask the real service again next time
            if len(self._cache) >= self._max:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = value
        return value

    def snapshot(self) -> ProviderCalls:
        return ProviderCalls(
            geocode=self.calls["geocode"],
            search=self.calls["search"],
            detail=self.calls["detail"],
            matrix=self.calls["matrix"],
            route=self.calls["route"],
            cache_hits=self.cache_hits,
        )

    @staticmethod
    def diff(after: ProviderCalls, before: ProviderCalls) -> ProviderCalls:
        return ProviderCalls(**{k: getattr(after, k) - getattr(before, k) for k in ProviderCalls.model_fields})

    # -- protocol ------------------------------------------------------------------------------
    def geocode(self, address: str, *, city: str | None = None) -> list[Place]:
        return self._cached(("geocode", address, city), "geocode", lambda: self.inner.geocode(address, city=city))

    def search(
        self, keywords: str, *, city: str | None = None, near: LonLat | None = None, limit: int = 10
    ) -> list[Place]:
        key = ("search", keywords, city, _pt(near) if near else None, limit)
        return self._cached(key, "search", lambda: self.inner.search(keywords, city=city, near=near, limit=limit))

    def detail(self, poi_id: str) -> Place | None:
        return self._cached(("detail", poi_id), "detail", lambda: self.inner.detail(poi_id))

    def matrix(self, points: Sequence[LonLat], *, mode: TravelMode) -> TravelMatrix:
        key = ("matrix", tuple(_pt(p) for p in points), mode)
        return self._cached(key, "matrix", lambda: self.inner.matrix(points, mode=mode))

    def route(self, origin: LonLat, destination: LonLat, *, mode: TravelMode) -> Leg:
        key = ("route", _pt(origin), _pt(destination), mode)
        return self._cached(key, "route", lambda: self.inner.route(origin, destination, mode=mode))

    def drain_warnings(self) -> list[str]:
        drain = getattr(self.inner, "drain_warnings", None)
        return list(drain()) if callable(drain) else []
