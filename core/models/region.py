"""The region pack's contract (``data/regions/<name>/region.json`` + ``places.csv``, see data/README.md): what a
pack holds, as every layer reads it. ``core.packs.loader`` reads a pack's files into it."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, Field, field_validator

from core.models.common import CleanStr
from core.models.entrance import Entrance, main_entrances


class EstimateParams(BaseModel):
    """Straight line x circuity / speed (+ a fixed overhead for parking, crossings, ...)."""

    circuity: float = Field(gt=1.0, le=3.0)
    speed_kmh: float = Field(gt=0)
    fixed_overhead_s: float = Field(default=0, ge=0)


class RegionPlace(BaseModel):
    id: str
    # the map data's words, cleaned as a user's are (an OSM name can carry a bidi override)
    name_zh: CleanStr
    name_en: CleanStr = ""
    aliases: list[CleanStr] = Field(default_factory=list)
    address: CleanStr
    district: CleanStr = ""
    lon: float = Field(ge=-180, le=180)
    lat: float = Field(ge=-90, le=90)
    category: str
    tags: list[str] = Field(default_factory=list)
    opening_hours: str | None = None
    price_per_person: float | None = None
    rating: float | None = None
    visit_minutes: int | None = None
    needs_reservation: bool = False
    cuisine: list[str] = Field(
        default_factory=list, description="what it serves (core/packs/validate.py CUISINES); empty = unknown"
    )
    min_age: int | None = Field(default=None, ge=0, le=99, description="years; None = no limit known")
    importance: int = Field(
        default=0,
        ge=0,
        le=100,
        description="how much the feature is a place in its own right (a railway station, a square with a Wikipedia "
        "article) rather than a business or stop named after one; 0 = not stated (curated packs)",
    )
    approximate: bool = Field(
        default=False,
        description="the point is estimated (a square cut by the extract's edge: from its members present; a "
        "whole place: from its parts)",
    )
    parent: str | None = Field(
        default=None,
        description="the id of the whole place this one is a part of (an airport's terminal: the airport); "
        "None = not a part",
    )
    entrances: list[Entrance] = Field(
        default_factory=list,
        description="the doors of a building or area in the map data (entrances.csv: OSM nodes on its outline); "
        "empty = none known (a curated pack, a point feature)",
    )

    @field_validator("aliases", "tags", "cuisine", mode="before")
    @classmethod
    def _split_pipes(cls, v: object) -> object:
        if isinstance(v, str):
            return [p.strip() for p in v.split("|") if p.strip()]
        return v

    @field_validator("importance", mode="before")
    @classmethod
    def _blank_is_zero(cls, v: object) -> object:
        return 0 if v is None or isinstance(v, str) and not v.strip() else v

    @field_validator("opening_hours", "price_per_person", "rating", "visit_minutes", "min_age", "parent", mode="before")
    @classmethod
    def _blank_is_none(cls, v: object) -> object:
        return None if isinstance(v, str) and not v.strip() else v

    @field_validator("needs_reservation", "approximate", mode="before")
    @classmethod
    def _bool(cls, v: object) -> bool:
        if isinstance(v, str):
            return v.strip().lower() in {"true", "1", "yes", "y"}
        return bool(v)

    def main_entrances(self) -> tuple[Entrance, ...]:
        """The doors walks to and from the place may use (``core.models.entrance.main_entrances``)."""
        return main_entrances(self.entrances)

    def suits_age(self, age: int) -> bool:
        """False only when the pack states a minimum age above ``age`` (no minimum known: suitable)."""
        return self.min_age is None or age >= self.min_age


class PackRules(BaseModel):
    """Conventions one pack keeps (region.json ``validation``), checked by ``python -m core pack validate``."""

    id_prefix: str | None = None
    districts: list[str] = Field(default_factory=list)
    extent: tuple[float, float, float, float] | None = Field(
        default=None, description="west, south, east, north: where a place may be (defaults to the bbox)"
    )
    address_forbidden_prefixes: list[str] = Field(default_factory=list)
    address_starts_with_district: bool = False
    coordinate_decimals: int | None = None
    minimums: dict[str, int] = Field(default_factory=dict, description="'cat1+cat2' -> minimum rows")
    min_total: int = 0
    min_districts: int = 0
    curated: bool = Field(
        default=True,
        description="hand-curated (every row complete, names unique) or built from OpenStreetMap (fields as tagged)",
    )


class RoadNetwork(BaseModel):
    """A pack's own road graph (built by ``python -m core pack build``): what the embedded router uses."""

    engine: str = "valhalla"
    tiles: str = Field(description="folder of the pack holding the tiles")
    tile_count: int = 0
    source: str = ""


class RegionPack(BaseModel):
    name: str
    display_name: dict[str, str]
    city: str
    city_aliases: list[str] = Field(default_factory=list)
    country: str = ""
    adcode: str | None = None
    timezone: str
    crs: str = "WGS84"
    bbox: tuple[float, float, float, float]
    center: tuple[float, float]
    licence: str = ""
    attribution: str = ""
    coordinate_precision_m: float = 300
    estimate: dict[str, EstimateParams]
    validation: PackRules | None = None
    data_date: str | None = Field(default=None, description="when the data was last edited (ISO 8601)")
    coverage: dict[str, str] = Field(default_factory=dict, description="where the pack's figures hold, zh and en")
    district_names: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="a district as the places name it -> its name by language (zh, en)"
    )
    network: RoadNetwork | None = None
    basemap: str | None = Field(default=None, description="GeoJSON file of streets, water and parks in the pack")
    places: list[RegionPlace] = Field(default_factory=list)
    folder: Path | None = Field(default=None, exclude=True, description="where the pack was loaded from")

    @property
    def tile_dir(self) -> Path | None:
        """The pack's road graph, when it has one and it is on disk."""
        if self.network is None or self.folder is None:
            return None
        path = self.folder / self.network.tiles
        return path if path.is_dir() and any(path.iterdir()) else None

    @property
    def basemap_path(self) -> Path | None:
        if self.basemap is None or self.folder is None:
            return None
        path = self.folder / self.basemap
        return path if path.is_file() else None

    def city_names(self) -> set[str]:
        return {self.city, *self.city_aliases, self.display_name.get("en", ""), self.display_name.get("zh", "")} - {""}

    def place_by_id(self, place_id: str) -> RegionPlace | None:
        return _index_by_id(self.places).get(place_id)

    def parts_of(self) -> dict[str, list[str]]:
        """A whole place's id -> the ids of its parts, in the pack's order (the ``parent`` column read backwards)."""
        parts: dict[str, list[str]] = {}
        for place in self.places:
            if place.parent:
                parts.setdefault(place.parent, []).append(place.id)
        return parts


#: id(places list) -> (that list, its index by place id): built once per list, not on every look-up
_INDEXES: dict[int, tuple[list[RegionPlace], dict[str, RegionPlace]]] = {}


def _index_by_id(places: list[RegionPlace]) -> dict[str, RegionPlace]:
    held = _INDEXES.get(id(places))
    if held is None or held[0] is not places or len(held[1]) != len(places):
        if len(_INDEXES) > 64:
            _INDEXES.clear()
        held = _INDEXES[id(places)] = (places, {p.id: p for p in places})
    return held[1]


class ProviderFacts(Protocol):
    """What a face reads of a map provider: its name and its region pack (looking places up, keying a kept plan);
    planning goes through a request's context, never through the provider itself."""

    @property
    def name(self) -> str: ...

    @property
    def region(self) -> RegionPack: ...
