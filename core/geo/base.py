"""The provider contracts (geopy/routingpy style): a Geocoder, a Router, a WeatherService, and the typed
objects they return (docs/ARCHITECTURE.md, "Adding a provider").

All coordinates here are WGS-84. A provider whose service speaks another datum (AMap: GCJ-02)
converts at its own boundary.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal, NamedTuple, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

# defined with the request models (core.models sits below core.geo); re-exported for the providers
from core.models.common import CleanStr
from core.models.common import TravelMode as TravelMode
from core.models.entrance import Entrance

MatchLevel = Literal["exact", "poi", "house_number", "road", "area", "city", "fuzzy", "unknown"]


class LonLat(NamedTuple):
    lon: float
    lat: float


class Place(BaseModel):
    """One candidate answer of a geocode/search/detail call. Its words are the map data's, cleaned as a user's
    are (``clean_text``: no bidi override or other invisible format character reaches a page or an export)."""

    model_config = ConfigDict(frozen=True)

    name: CleanStr
    address: CleanStr | None = None
    lon: float
    lat: float
    city: CleanStr | None = None
    district: CleanStr | None = None
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
    ``drain`` gives the English sentences (the itinerary and the agent read those). A request's view of the providers
    (``MapServices.for_request``) has a log of its own, and the shared services add to the log of the request whose
    call they answer (``core.geo.scope.CallScope``): two requests on one provider never see each other's
    warnings."""

    def __init__(self) -> None:
        self._items: list[LoggedWarning] = []
        self._lock = threading.Lock()

    def add(
        self, message: str, *, code: str = "PROVIDER_NOTE", params: dict[str, str | int | float] | None = None
    ) -> None:
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
