"""MapServices: what the products plan with (docs/ARCHITECTURE.md, "Providers").

Any Geocoder paired with any Router (e.g. the pack's gazetteer with a road router, or AMap with AMap), the
region pack they serve, an optional WeatherService, one ResponseCache, call counts per service and the
warnings the services raised while answering. A fallback's answer is returned but never cached.

One MapServices is shared by every request of a process (its cache, breakers and clients are thread-safe); each
request plans on its own view (``for_request``), which keeps that request's warnings and call counts.
"""

from __future__ import annotations

import copy
import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from threading import Lock
from typing import Any, TypeVar

from pydantic import BaseModel

from core.errors import ProviderUnavailable
from core.geo.base import (
    BatchGeocoder,
    ColumnRouter,
    DayForecast,
    Geocoder,
    Leg,
    LonLat,
    PairDoors,
    Place,
    Router,
    TravelMatrix,
    TravelMode,
    WarningLog,
    WeatherService,
)
from core.geo.cache import Cache, ResponseCache, point_key
from core.geo.scope import CallScope, CallWatch, ProviderBudget, RequestTally, bind
from core.geo.weather import pick_forecast
from core.models.region import RegionPack
from core.models.route import ProviderCalls

T = TypeVar("T")
S = TypeVar("S")

#: match levels precise enough that one batch match is the answer (a road, an area, a city could be several places)
PRECISE_LEVELS = frozenset({"exact", "poi", "house_number"})


def _copy(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_copy(deep=True)
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


class MapServices:
    """A geocoder and a router (any pair), their region pack, optional weather, one cache, counts, warnings."""

    def __init__(
        self,
        *,
        geocoder: Geocoder,
        router: Router,
        region: RegionPack,
        weather: WeatherService | None = None,
        cache: Cache | None = None,
        warnings: WarningLog | None = None,
    ) -> None:
        self.geocoder = geocoder
        self.router = router
        self.region = region
        self.weather_service = weather
        self.cache: Cache = cache if cache is not None else ResponseCache()
        self.warnings = warnings if warnings is not None else WarningLog()
        self.name = geocoder.name if geocoder.name == router.name else f"{geocoder.name}+{router.name}"
        self.calls: Counter[str] = Counter()
        self.cache_hits = 0
        self.requests = RequestTally()  # remote requests sent for this view (or, unviewed, the process)
        #: what this view's calls carry to the shared services: its warnings, its tally, its provider budget
        self.scope = CallScope(warnings=self.warnings, tally=self.requests)
        self._lock = Lock()
        self.shared: MapServices | None = None  # a request's view: the MapServices it is a view of

    def for_request(self) -> MapServices:
        """A view for one request: the same services, cache and breakers, its own warnings and call counts.

        The view's calls carry its scope to the shared services (core.geo.scope): what they report lands in the
        view's log and tally, so concurrent requests on one provider never take each other's warnings or counts."""
        root = self.shared or self
        view = copy.copy(root)
        view.warnings = WarningLog()
        view.calls = Counter()
        view.cache_hits = 0
        view.requests = RequestTally()
        view.scope = CallScope(warnings=view.warnings, tally=view.requests)
        view._lock = Lock()
        view.shared = root
        return view

    def request_view(self) -> MapServices:
        """This request's view: itself when it is one, else a new view of these shared services (a root handed to
        a request's dependencies must not carry that request's budget for every other request)."""
        return self if self.shared is not None else self.for_request()

    # ---- the request's provider budget ----------------------------------------------------------------
    @contextmanager
    def budget(self, seconds: float, *, call_wait_s: float | None = None) -> Iterator[None]:
        """Bound the time this view's calls inside the block may spend waiting on remote providers: past the deadline
        a remote call is not made and its service degrades to the fallback with a warning. Nested budgets keep the
        earlier deadline. Time a call spends waiting for its turn (a rate limiter's pacing) is not waiting on the
        provider: it pushes the deadline back.

        ``call_wait_s``: the most one call waits for its answer, where the budget is sized for many calls (a paced
        plan's budget grows with its calls; one call that never answers should not spend it all)."""
        with self._scoped(self.scope.with_budget(seconds, call_wait_s=call_wait_s)):
            yield

    @contextmanager
    def within(self, budget: ProviderBudget) -> Iterator[None]:
        """The block's calls run under ``budget``, started earlier (``ProviderBudget.starting_now``): one deadline
        across the several steps of a stream, which may run in different threads."""
        with self._scoped(self.scope.entering(budget)):
            yield

    @contextmanager
    def watching(self) -> Iterator[CallWatch]:
        """Watch this view's calls inside the block: the ``CallWatch`` counts those its services answered from
        their fallback (a failure the provider hid behind its estimate) and those that degraded at all."""
        watch = CallWatch()
        with self._scoped(self.scope.watched_by(watch)):
            yield watch

    @contextmanager
    def _scoped(self, scope: CallScope) -> Iterator[None]:
        """The view's calls carry ``scope`` inside the block. A view is one request's, and its budget blocks nest in
        the thread that opens them (calls may run in any thread meanwhile): a block that ends after an inner one it
        did not open would hand the view a stale budget, so that is refused, never left silent."""
        outer = self.scope
        self.scope = scope
        try:
            yield
        finally:
            if self.scope is not scope:
                raise RuntimeError("a view's provider budgets must nest: another block changed it meanwhile")
            self.scope = outer

    def _count(self, service: str | None) -> None:
        """One call (``service``) or one cache hit (None), on this view and on the shared totals."""
        for target in (self, self.shared) if self.shared is not None else (self,):
            with target._lock:
                if service is None:
                    target.cache_hits += 1
                else:
                    target.calls[service] += 1

    def __repr__(self) -> str:
        return f"MapServices(geocoder={self.geocoder!r}, router={self.router!r}, region={self.region.name!r})"

    # ---- the one cache ------------------------------------------------------------------------------
    def _cached(self, key: Hashable, service: str, target: S, ask: Callable[[S], T]) -> T:
        """A copy of the cached answer, or ``ask(target)``'s answer, ``target`` bound to this view's scope for the
        call (kept unless it degraded to a fallback).

        Copies both ways: a caller mutating its answer must not change what the next caller gets."""
        hit, value = self.cache.get(key)
        if hit:
            self._count(None)
            return _copy(value)  # type: ignore[no-any-return]
        call = self.scope.for_call()
        value = ask(bind(target, call))
        # an answer with estimated figures in it is not an answer to keep (its answered cells are, one by one)
        keep = not call.degraded and not (
            isinstance(value, TravelMatrix) and (value.estimated_pairs or value.off_network or value.source == "mixed")
        )
        self._count(service)
        if keep:
            self.cache.put(key, _copy(value))
        return value

    # ---- Geocoder -----------------------------------------------------------------------------------
    def geocode(self, address: str, *, city: str | None = None) -> list[Place]:
        key = ("geocode", self.geocoder.name, address, city)
        return self._cached(key, "geocode", self.geocoder, lambda g: g.geocode(address, city=city))

    def search(
        self, keywords: str, *, city: str | None = None, near: LonLat | None = None, limit: int = 10
    ) -> list[Place]:
        key = ("search", self.geocoder.name, keywords, city, point_key(near) if near else None, limit)
        return self._cached(
            key, "search", self.geocoder, lambda g: g.search(keywords, city=city, near=near, limit=limit)
        )

    def detail(self, poi_id: str) -> Place | None:
        # the region pack's own id (a lab batch's poi_id, an airport's part, a choice offered from the pack) is the
        # pack's place: a remote geocoder cannot know it (AMap answers INVALID_PARAMS, a quota call spent)
        pack: Geocoder | None = getattr(self.geocoder, "fallback", None)
        if pack is not None and self.region.place_by_id(poi_id) is not None:
            return self._cached(("detail", pack.name, poi_id), "detail", pack, lambda g: g.detail(poi_id))
        return self._cached(("detail", self.geocoder.name, poi_id), "detail", self.geocoder, lambda g: g.detail(poi_id))

    def geocode_many(self, queries: Sequence[tuple[str, str | None]]) -> int:
        """Geocode ``(address, city)`` pairs ahead of the resolver, in the geocoder's batches (AMap: 10 a call),
        each answer cached as ``geocode(address, city=city)`` keeps it: pairs already cached are not asked again,
        and a batch that degraded to the fallback keeps nothing. Returns the calls made (0 for a geocoder
        without batches: the resolver then geocodes one by one)."""
        geocoder = self.geocoder
        if not isinstance(geocoder, BatchGeocoder) or int(geocoder.batch_size) < 2:
            return 0
        size = int(geocoder.batch_size)
        wanted: dict[str | None, list[str]] = {}
        for address, city in dict.fromkeys((a.strip(), c) for a, c in queries if a and a.strip()):
            if "|" in address or self.cache.get(("geocode", geocoder.name, address, city))[0]:
                continue
            wanted.setdefault(city, []).append(address)
        calls = 0
        for city, addresses in wanted.items():
            for start in range(0, len(addresses), size):
                chunk = addresses[start : start + size]
                call = self.scope.for_call()
                answers = bind(geocoder, call).geocode_batch(chunk, city=city)
                keep = not call.degraded
                self._count("geocode")
                calls += 1
                if keep:
                    for address, places in zip(chunk, answers, strict=True):
                        # a batch gives one match per address: only a precise one may stand for the single
                        # geocode's answer, which can hold several (the resolver asks "which one?" from those)
                        if all(p.level in PRECISE_LEVELS for p in places):
                            self.cache.put(("geocode", geocoder.name, address, city), _copy(places))
        return calls

    # ---- Router -------------------------------------------------------------------------------------
    def matrix(
        self, points: Sequence[LonLat], *, mode: TravelMode, destinations: Sequence[int] | None = None
    ) -> TravelMatrix:
        """The matrix of ``points``: from the cache (the whole matrix, or every cell of it from earlier matrices
        of the same router), else from the router. Each cell the router answered itself is kept on its own, so a
        later plan through some of the same points asks only for what is new to it.

        ``destinations``: the only columns the caller needs (the points a leg can end at). A router that pays per
        destination (a ColumnRouter: AMap) is asked for those columns only, and only for those not already whole
        in the cache; their other cells are ``math.inf``: not asked. Other routers answer the whole matrix."""
        keys = tuple(point_key(p) for p in points)
        n = len(keys)
        wanted = None if destinations is None else sorted(set(destinations))
        if wanted is not None and len(wanted) == n:
            wanted = None
        key = ("matrix", self._router_tag(), keys, mode, *(() if wanted is None else (tuple(wanted),)))
        if self.cache.get(key)[0]:
            return self._cached(key, "matrix", self.router, lambda r: r.matrix(points, mode=mode))
        router = self.router
        if wanted is None or not isinstance(router, ColumnRouter):
            assembled = self._matrix_from_cells(keys, mode)
            if assembled is not None:
                self.cache.put(key, _copy(assembled))
            result = self._cached(key, "matrix", router, lambda r: r.matrix(points, mode=mode))
            if assembled is None and result.source in (self.router.name, "mixed"):
                self._keep_cells(keys, result)  # the answered cells, even when some pairs were estimated
            return result
        known = self._matrix_from_cells(keys, mode, columns=wanted)
        missing = [j for j in wanted if known is None or not self._column_whole(known, j)]
        if not missing and known is not None:
            self.cache.put(key, _copy(known))
            return self._cached(key, "matrix", known, lambda whole: whole)
        asked_key = ("matrix", self._router_tag(), keys, mode, tuple(missing))
        result = self._cached(asked_key, "matrix", router, lambda r: r.matrix_to(points, missing, mode=mode))
        if result.source not in (router.name, "mixed"):
            return result  # the fallback's estimate: whole, never mixed with the router's own cells
        if result.source in (router.name, "mixed"):
            self._keep_cells(keys, result)
        merged = result.model_copy(deep=True)
        merged.destinations = wanted
        for j in set(wanted) - set(missing):  # the columns the cache had whole
            for i in range(n):
                merged.distances_m[i][j] = known.distances_m[i][j]  # type: ignore[union-attr]
                merged.durations_s[i][j] = known.durations_s[i][j]  # type: ignore[union-attr]
        if merged.source == router.name and all(self._column_whole(merged, j) for j in wanted):
            self.cache.put(key, _copy(merged))
        return merged

    @staticmethod
    def _column_whole(m: TravelMatrix, j: int) -> bool:
        return all(math.isfinite(row[j]) for row in m.distances_m)

    def _cell_key(self, a: tuple[float, float], b: tuple[float, float], mode: TravelMode) -> tuple[Any, ...]:
        return ("matrix_cell", self._router_tag(), a, b, mode)

    def _router_tag(self) -> str:
        """The router's name in cache keys, with how it measures (Valhalla from doors or points, on the ground or
        not): figures measured one way never answer for the other after a setting changed."""
        inner = getattr(self.router, "inner", self.router)
        variant = getattr(inner, "cache_variant", "")
        return f"{self.router.name}#{variant}" if variant else self.router.name

    def _keep_cells(self, keys: tuple[tuple[float, float], ...], m: TravelMatrix) -> None:
        estimated = set(map(tuple, m.estimated_pairs))
        off = set(m.off_network)  # their pairs are estimates too
        for i, a in enumerate(keys):
            for j, b in enumerate(keys):
                if i == j or (i, j) in estimated or a == b or i in off or j in off:
                    continue
                d, t = m.distances_m[i][j], m.durations_s[i][j]
                if math.isfinite(d) and math.isfinite(t) and not self.cache.get(self._cell_key(a, b, m.mode))[0]:
                    # with the doors it was measured between (a walk from Stockmann's north or south door)
                    pair = m.doors(i, j)
                    ends = (pair.origin_entrance, pair.destination_entrance) if pair else (None, None)
                    self.cache.put(self._cell_key(a, b, m.mode), (float(d), float(t), *ends))

    def _matrix_from_cells(
        self, keys: tuple[tuple[float, float], ...], mode: TravelMode, *, columns: Sequence[int] | None = None
    ) -> TravelMatrix | None:
        """The matrix from cached cells: every cell (``columns`` None), else the cells of ``columns`` that are
        cached, ``math.inf`` elsewhere (None when there are none)."""
        n = len(keys)
        if n < 2:
            return None
        wanted = set(range(n) if columns is None else columns)
        dist = [[0.0 if i == j else math.inf for j in range(n)] for i in range(n)]
        dur = [[0.0 if i == j else math.inf for j in range(n)] for i in range(n)]
        doors: list[PairDoors] = []
        found = 0
        for i, a in enumerate(keys):
            for j, b in enumerate(keys):
                if i == j or j not in wanted:
                    continue
                if a == b:
                    dist[i][j] = dur[i][j] = 0.0
                    continue
                hit, cell = self.cache.get(self._cell_key(a, b, mode))
                if not hit:
                    if columns is None:
                        return None
                    continue
                dist[i][j], dur[i][j], *ends = cell  # a cell kept before doors were kept has none
                found += 1
                if any(ends):
                    doors.append(
                        PairDoors(origin=i, destination=j, origin_entrance=ends[0], destination_entrance=ends[1])
                    )
        if columns is not None and not found:
            return None
        return TravelMatrix(
            distances_m=dist,
            durations_s=dur,
            source=self.router.name,
            mode=mode,
            destinations=None if columns is None else sorted(wanted),
            entrances=doors,
        )

    def _limiters(self) -> list[Any]:
        found = [getattr(getattr(s, "inner", s), "limiter", None) for s in (self.geocoder, self.router)]
        return list({id(lim): lim for lim in found if lim is not None}.values())

    def pacing_qps(self) -> float | None:
        """The calls per second the remote services' shared rate limiter allows (None: no limiter, unpaced)."""
        rates = [float(lim.rate) for lim in self._limiters() if isinstance(lim.rate, (int, float)) and lim.rate > 0]
        return min(rates) if rates else None

    def budget_for(self, calls: int, *, answers_s: float) -> float:
        """The time a use case may wait on providers for ``calls`` remote calls: ``answers_s`` for waiting on answers,
        plus, on a paced service, the calls at its rate (pacing itself is excluded as it happens: this keeps the
        answers' own time in scale with the work)."""
        qps = self.pacing_qps()
        return answers_s if not qps else answers_s + max(0, calls) / qps

    def remote_requests(self) -> int:
        """Remote requests sent for this view (its request), every HTTP call counted, retries included; other
        requests on the same shared services are not."""
        return self.requests.count

    @property
    def directions_differ(self) -> bool:
        """Whether the router's directions give other figures than its matrix (AMap: two services), so the legs a
        person follows are worth re-measuring; one engine answering both (Valhalla, OSRM, the estimate) gives the
        same figures twice."""
        inner = getattr(self.router, "inner", self.router)
        return bool(getattr(inner, "matrix_differs_from_directions", False))

    @property
    def places_carry_kinds(self) -> bool:
        """Whether the geocoder's places say what kind of place they are (the pack's gazetteer does; AMap's answers
        carry no category): only then is a name said with a word of its kind worth asking for (core/route/resolver)."""
        inner = getattr(self.geocoder, "inner", self.geocoder)
        return bool(getattr(inner, "places_carry_kinds", False))

    @property
    def pays_per_destination(self) -> bool:
        """Whether the router is paid by the destination (a ColumnRouter: AMap's distance service answers one
        destination a call, at the key's QPS), so a planner should measure the legs it shows, not a whole matrix."""
        inner = getattr(self.router, "inner", self.router)
        return isinstance(inner, ColumnRouter)

    def route(self, origin: LonLat, destination: LonLat, *, mode: TravelMode) -> Leg:
        key = ("route", self._router_tag(), point_key(origin), point_key(destination), mode)
        return self._cached(key, "route", self.router, lambda r: r.route(origin, destination, mode=mode))

    # ---- weather ------------------------------------------------------------------------------------
    @property
    def has_weather(self) -> bool:
        return self.weather_service is not None

    def weather(self, city: str, *, day: date) -> DayForecast | None:
        """The published forecast for ``day`` (None: not among the published days). One call answers every
        published day, so the whole forecast is cached per city (briefly: forecasts are reissued)."""
        service = self.weather_service
        if service is None:
            raise ProviderUnavailable(
                f"{self.name} has no weather service", code="NO_WEATHER_SOURCE", details={"service": "weather"}
            )
        days = self._cached(("weather", service.name, city), "weather", service, lambda w: w.weather_forecast(city))
        return pick_forecast(days, city, day)

    # ---- accounting ---------------------------------------------------------------------------------
    def drain_warnings(self) -> list[str]:
        return self.warnings.drain()

    def snapshot(self) -> ProviderCalls:
        with self._lock:
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

    def close(self) -> None:
        for service in {id(s): s for s in (self.geocoder, self.router, self.weather_service) if s}.values():
            close: Any = getattr(service, "close", None)
            if callable(close):
                close()
