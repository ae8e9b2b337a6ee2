"""The provider protocol (geopy/routingpy style) and the typed objects it returns.

All coordinates here are WGS-84. A provider whose service speaks another datum (AMap: GCJ-02)
converts at its own boundary.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any, Literal, NamedTuple, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

TravelMode = Literal["driving", "walking"]
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
    raw: Any = Field(default=None, exclude=True, repr=False)

    @property
    def lonlat(self) -> LonLat:
        return LonLat(self.lon, self.lat)


class TravelMatrix(BaseModel):
    """Distances (metres) and durations (seconds) between every ordered pair of points."""

    distances_m: list[list[float]]
    durations_s: list[list[float]]
    source: str
    mode: TravelMode
    notes: list[str] = Field(default_factory=list)


class Leg(BaseModel):
    distance_m: float
    duration_s: float
    geometry: list[tuple[float, float]] = Field(default_factory=list, description="[(lon, lat), ...] WGS-84")
    source: str
    mode: TravelMode


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


class WeatherProvider(Protocol):
    """Optional capability: providers with a weather source (AMap) have it, the offline one does not."""

    def weather(self, city: str, *, day: date) -> DayForecast | None: ...


@runtime_checkable
class MapProvider(Protocol):
    name: str

    def geocode(self, address: str, *, city: str | None = None) -> list[Place]: ...

    def search(
        self, keywords: str, *, city: str | None = None, near: LonLat | None = None, limit: int = 10
    ) -> list[Place]: ...

    def detail(self, poi_id: str) -> Place | None: ...

    def matrix(self, points: Sequence[LonLat], *, mode: TravelMode) -> TravelMatrix: ...

    def route(self, origin: LonLat, destination: LonLat, *, mode: TravelMode) -> Leg: ...
