"""The provider contracts (geopy/routingpy style): a Geocoder, a Router, a WeatherService, and the typed
objects they return (docs/ARCHITECTURE.md, "Adding a provider").

All coordinates here are WGS-84. A provider whose service speaks another datum (AMap: GCJ-02)
converts at its own boundary.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal, NamedTuple, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

# defined with the request models (core.models sits below core.geo); re-exported for the providers
from core.models.common import TravelMode as TravelMode
from core.models.entrance import Entrance

MatchLevel = Literal["exact", "poi", "house_number", "road", "area", "city", "fuzzy", "unknown"]


class LonLat(NamedTuple):
    lon: float
    lat: float


class Place(BaseModel):
    """One candidate answer of a geocode/search/detail call."""

    model_config = ConfigDict(frozen=True)

    name: str
    address: str | None = None
    lon: float
    lat: float
    city: str | None = None
    district: str | None = None
    poi_id: str | None = None
    category: str | None = None
    level: MatchLevel = "unknown"
    score: float | None = Field(default=None, description="0-100 similarity to the query, when the provider scored it")
    matched_on: str | None = Field(default=None, description="Which field matched: name, alias, address, ...")
    source: str = "offline"
    parent: str | None = Field(default=None, description="POI id of the whole place this one is a part of")
    parts: tuple[str, ...] = Field(default=(), description="POI ids of this place's parts (an airport's terminals)")
    raw: Any = Field(default=None, exclude=True, repr=False)

    @property
    def lonlat(self) -> LonLat:
        return LonLat(self.lon, self.lat)


class PairDoors(BaseModel):
    """The doors one matrix pair was measured between: ``origin``/``destination`` are point indices; an end
    without a door was measured from its point."""

    origin: int
    destination: int
    origin_entrance: Entrance | None = None
    destination_entrance: Entrance | None = None


class TravelMatrix(BaseModel):
    """Distances (metres) and durations (seconds) between every ordered pair of points."""

    distances_m: list[list[float]]
    durations_s: list[list[float]]
    source: str
    mode: TravelMode
    notes: list[str] = Field(default_factory=list)
    estimated_pairs: list[tuple[int, int]] = Field(
        default_factory=list, description="(i, j) pairs filled from the offline estimate (source 'mixed')"
    )
    off_network: list[int] = Field(
        default_factory=list, description="points the router's network does not reach (their pairs are estimated)"
    )
    destinations: list[int] | None = Field(
        default=None,
        description="the columns asked (legs ending there); the other columns' cells are inf: not asked. None: all",
    )
    entrances: list[PairDoors] = Field(
        default_factory=list,
        description="the pairs measured from or to a place's door (walking, cycling), with the doors; a pair not "
        "listed was measured between the points themselves",
    )

    def doors(self, i: int, j: int) -> PairDoors | None:
        """The doors pair (i, j) was measured between (None: between the points)."""
        return next((d for d in self.entrances if d.origin == i and d.destination == j), None)


class Leg(BaseModel):
    distance_m: float
    duration_s: float
    geometry: list[tuple[float, float]] = Field(default_factory=list, description="[(lon, lat), ...] WGS-84")
    source: str
    mode: TravelMode
    origin_entrance: Entrance | None = Field(default=None, description="the door the leg was measured from")
    destination_entrance: Entrance | None = Field(default=None, description="the door the leg was measured to")


class DayForecast(BaseModel):
    """One day of a provider's weather forecast, as the provider published it (nothing derived)."""

    city: str | None = None
    adcode: str | None = None
    date: date
    day_weather: str | None = None
    night_weather: str | None = None
    day_temp_c: float | None = None
    night_temp_c: float | None = None
    day_wind: str | None = None
    night_wind: str | None = None
    day_power: str | None = Field(default=None, description="Wind force as published, e.g. '1-3' or '4'")
    night_power: str | None = None
    report_time: str | None = Field(default=None, description="When the provider issued the forecast (local time)")
    source: str


@dataclass(frozen=True)
class LoggedWarning:
    """One warning a service recorded: a code with its facts (the planner turns it into a Notice, words are chosen
    at the edge) and the English sentence kept for logs and the details."""

    code: str
    message: str
    params: dict[str, str | int | float] = field(default_factory=dict)


class WarningLog:
    """What a service had to say while answering (a fallback used, pairs estimated), as codes with their facts and
    an English sentence each.

    One log belongs to one MapServices; the planner drains it into the result's notices (``drain_entries``);
    ``drain`` gives the English sentences (the itinerary and the agent read those). While a request's view of the
    providers makes a call (``MapServices.for_request``), what the shared services add goes to that view's log
    (``warnings_to``): two requests on one provider never see each other's warnings."""

    def __init__(self) -> None:
        self._items: list[LoggedWarning] = []
        self._lock = threading.Lock()

    def add(
        self, message: str, *, code: str = "PROVIDER_NOTE", params: dict[str, str | int | float] | None = None
    ) -> None:
        target = _REQUEST_LOG.get()
        if target is not None and target is not self:
            target.add(message, code=code, params=params)
            return
        with self._lock:
            if all(item.message != message for item in self._items):
                self._items.append(LoggedWarning(code=code, message=message, params=dict(params or {})))

    def entries(self) -> list[LoggedWarning]:
        """What was recorded so far (kept: ``drain_entries`` takes it)."""
        with self._lock:
            return list(self._items)

    def drain_entries(self) -> list[LoggedWarning]:
        with self._lock:
            out, self._items = self._items, []
        return out

    def drain(self) -> list[str]:
        return [item.message for item in self.drain_entries()]


#: the log of the request whose call is running in this thread / task (None: each service's own log)
_REQUEST_LOG: ContextVar[WarningLog | None] = ContextVar("omni_request_warnings", default=None)


@contextmanager
def warnings_to(log: WarningLog) -> Iterator[None]:
    """Every warning a service adds while the block runs (in this thread or task) goes to ``log``."""
    token = _REQUEST_LOG.set(log)
    try:
        yield
    finally:
        _REQUEST_LOG.reset(token)


class RequestTally:
    """Remote requests made on one request's behalf (thread-safe: a request's calls may run in worker threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0

    def add(self) -> None:
        with self._lock:
            self.count += 1


_REQUEST_TALLY: ContextVar[RequestTally | None] = ContextVar("omni_request_tally", default=None)


@contextmanager
def requests_to(tally: RequestTally) -> Iterator[None]:
    """Every remote request a service sends while the block runs (in this thread or task) is counted in ``tally``:
    a request's own count, where the services and their rate limiter are shared by the whole process."""
    token = _REQUEST_TALLY.set(tally)
    try:
        yield
    finally:
        _REQUEST_TALLY.reset(token)


def note_request() -> None:
    """Called by the HTTP base for each request it sends."""
    tally = _REQUEST_TALLY.get()
    if tally is not None:
        tally.add()


_DEGRADED: ContextVar[bool] = ContextVar("omni_degraded_answer", default=False)


def note_degraded() -> None:
    """Called by a service whose answer is (partly) a fallback's estimate: no cache may keep that answer."""
    _DEGRADED.set(True)


@contextmanager
def degradation_watch() -> Iterator[Callable[[], bool]]:
    """``with degradation_watch() as degraded: ...call...; degraded()`` tells whether the call degraded
    (per thread / task, so concurrent calls do not see each other's flag)."""
    token = _DEGRADED.set(False)
    try:
        yield _DEGRADED.get
    finally:
        _DEGRADED.reset(token)


class _Budget:
    """One plan's provider budget: a deadline that pacing pushes back (``exclude_from_budget``); a nested budget
    pushes its outer one back by the same time, so the pause counts against neither.

    It is also the request's memory of what failed (``remember_failure``): a provider that timed out, a service that
    failed after its retry. The budget lives exactly as long as the request's provider calls, in whichever threads
    they run, so the same request does not wait on them again, and the next request asks them afresh."""

    __slots__ = ("_lock", "call_wait_s", "deadline", "excluded_s", "failed", "parent")

    def __init__(self, deadline: float, parent: _Budget | None, *, call_wait_s: float | None = None) -> None:
        self.deadline = deadline
        self.parent = parent
        self.excluded_s = 0.0
        #: the most one call may wait for its answer (None: up to the deadline)
        inherited: float | None = parent.call_wait_s if parent is not None else None
        self.call_wait_s: float | None = call_wait_s if call_wait_s is not None else inherited
        self.failed: dict[str, str] = {}  # what failed in this request ("amap", "amap/geocode") -> how, first time
        self._lock = threading.Lock()

    def extend(self, seconds: float) -> None:
        with self._lock:
            self.deadline += seconds
            self.excluded_s += seconds
        if self.parent is not None:
            self.parent.extend(seconds)

    def remember_failure(self, key: str, how: str) -> None:
        with self._lock:
            self.failed.setdefault(key, how)
        if self.parent is not None:
            self.parent.remember_failure(key, how)

    def failed_earlier(self, key: str) -> str | None:
        budget: _Budget | None = self
        while budget is not None:
            with budget._lock:
                how = budget.failed.get(key)
            if how is not None:
                return how
            budget = budget.parent
        return None


_DEADLINE: ContextVar[_Budget | None] = ContextVar("omni_provider_deadline", default=None)


@contextmanager
def provider_budget(seconds: float, *, call_wait_s: float | None = None) -> Iterator[None]:
    """Bound the time one plan (or agent request) may spend waiting on remote providers: past the deadline a
    remote call is not made and its service degrades to the fallback with a warning. Nested budgets keep the
    earlier deadline. Time a call spends waiting for its turn (a rate limiter's pacing) is not waiting on the
    provider: it pushes the deadline back (``exclude_from_budget``).

    ``call_wait_s``: the most one call waits for its answer, where the budget is sized for many calls (a paced
    plan's budget grows with its calls; one call that never answers should not spend it all)."""
    deadline = time.monotonic() + max(0.0, seconds)
    outer = _DEADLINE.get()
    budget = _Budget(deadline if outer is None else min(outer.deadline, deadline), outer, call_wait_s=call_wait_s)
    token = _DEADLINE.set(budget)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def start_budget(seconds: float, *, call_wait_s: float | None = None) -> _Budget:
    """A provider budget that starts now and is entered later, as often as needed, with ``within_budget``: one
    deadline across the several steps of a stream whose steps may run in different threads (a generator a server
    iterates in a thread pool cannot hold a context variable across its yields)."""
    return _Budget(time.monotonic() + max(0.0, seconds), None, call_wait_s=call_wait_s)


@contextmanager
def within_budget(budget: _Budget) -> Iterator[None]:
    """The calls of the block run under ``budget`` (an outer budget's earlier deadline is kept)."""
    outer = _DEADLINE.get()
    inner = budget if outer is None or outer.deadline >= budget.deadline else outer
    token = _DEADLINE.set(inner)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def budget_left() -> float | None:
    """Seconds left of the current provider budget (None: no budget is set)."""
    budget = _DEADLINE.get()
    return None if budget is None else budget.deadline - time.monotonic()


def call_wait_left() -> float | None:
    """The most the next remote call may wait for its answer: the budget's time left, at most its ``call_wait_s``
    (None: no budget is set; the service's own timeout applies)."""
    budget = _DEADLINE.get()
    if budget is None:
        return None
    left = budget.deadline - time.monotonic()
    return left if budget.call_wait_s is None else min(left, budget.call_wait_s)


def remember_failure(key: str, how: str) -> None:
    """``key`` (a provider, or one of its services) failed in this request, ``how``: the request's later calls to it
    go to the fallback at once (no budget: nothing is remembered, each call is asked on its own)."""
    budget = _DEADLINE.get()
    if budget is not None:
        budget.remember_failure(key, how)


def failed_earlier(key: str) -> str | None:
    """How ``key`` failed earlier in this request (None: it has not)."""
    budget = _DEADLINE.get()
    return None if budget is None else budget.failed_earlier(key)


def exclude_from_budget(seconds: float) -> None:
    """``seconds`` spent pacing (not waiting for an answer): the current budget's deadline moves back by them."""
    budget = _DEADLINE.get()
    if budget is not None and seconds > 0:
        budget.extend(seconds)


def budget_excluded_s() -> float:
    """Seconds of pacing the current budget has excluded so far (0 without a budget)."""
    budget = _DEADLINE.get()
    return 0.0 if budget is None else budget.excluded_s


@runtime_checkable
class Geocoder(Protocol):
    """Places from text: geocode an address, search by keywords, look a POI up by id (all WGS-84)."""

    name: str

    def geocode(self, address: str, *, city: str | None = None) -> list[Place]: ...

    def search(
        self, keywords: str, *, city: str | None = None, near: LonLat | None = None, limit: int = 10
    ) -> list[Place]: ...

    def detail(self, poi_id: str) -> Place | None: ...


@runtime_checkable
class BatchGeocoder(Protocol):
    """A geocoder that answers several addresses in one call (AMap: up to 10): one list of places per address,
    in the order asked (an empty list: no match for that address)."""

    name: str
    batch_size: int

    def geocode_batch(self, addresses: Sequence[str], *, city: str | None = None) -> list[list[Place]]: ...


@runtime_checkable
class Router(Protocol):
    """Travel between points: a distance/duration matrix, and one leg with its drawn path."""

    name: str

    def matrix(self, points: Sequence[LonLat], *, mode: TravelMode) -> TravelMatrix: ...

    def route(self, origin: LonLat, destination: LonLat, *, mode: TravelMode) -> Leg: ...


@runtime_checkable
class ColumnRouter(Protocol):
    """A router that pays per destination (AMap's distance service: up to 100 origins, one destination a call): it
    asks only the columns ``destinations`` of the matrix (the points a leg can end at); the cells of every other
    column are ``math.inf``, not asked (``TravelMatrix.destinations`` says which were)."""

    name: str

    def matrix_to(self, points: Sequence[LonLat], destinations: Sequence[int], *, mode: TravelMode) -> TravelMatrix: ...


def column_groups(points: Sequence[LonLat], destinations: Sequence[int]) -> dict[LonLat, list[int]]:
    """The wanted columns by their point: two columns at one point (a round trip's start and end, two stops at one
    place) are one destination to ask, answered once."""
    groups: dict[LonLat, list[int]] = {}
    for j in sorted(set(destinations)):
        groups.setdefault(LonLat(float(points[j][0]), float(points[j][1])), []).append(j)
    return groups


@runtime_checkable
class MapService(Geocoder, Router, Protocol):
    """A service that is both (AMap, the offline gazetteer): what ResilientProvider wraps and falls back to."""

    def close(self) -> None: ...


@runtime_checkable
class WeatherService(Protocol):
    """A published forecast: every day the service publishes for ``city`` (an adcode where the service wants one)."""

    name: str

    def weather_forecast(self, city: str) -> list[DayForecast]: ...
