"""The demo venue sites' content: hotels (rooms, a price per night), restaurants (menu, hours, tables per slot)
and theatres (shows, seat classes). Every figure is demo data from ``data/venues/<region>.json``, labelled as such
on every page; nothing here is computed but what the file says (weekday/weekend rate, or the date's own rate)."""

from __future__ import annotations

import json
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

#: the evidence's source for every figure these sites publish
DEMO_SOURCE = "demo-venue-site"

Words = dict[str, str]  # {"zh": ..., "en": ...}
VenueKind = Literal["hotel", "restaurant", "theatre"]


class Room(BaseModel):
    code: str
    name: Words
    weekday: float
    weekend: float = Field(description="Friday and Saturday nights")


class Hotel(BaseModel):
    slug: str
    place_id: str
    name: Words
    rooms: list[Room]
    dates: dict[date, dict[str, float | None]] = Field(
        default_factory=dict, description="a date's own rates; null: that room is sold out that night"
    )
    cancellation: Words
    captcha: bool = False

    def rate(self, room: Room, night: date) -> float | None:
        """The night's price of ``room``, or None when it is sold out."""
        own = self.dates.get(night, {})
        if room.code in own:
            return own[room.code]
        return room.weekend if night.weekday() in (4, 5) else room.weekday


class MenuItem(BaseModel):
    name: Words
    price: float


class Restaurant(BaseModel):
    slug: str
    place_id: str
    name: Words
    opening_hours: str
    menu: list[MenuItem]
    slots: list[str]
    tables_per_slot: int
    booked: dict[date, dict[str, int]] = Field(default_factory=dict)
    deposit_per_person: float

    def tables_left(self, day: date, slot: str) -> int:
        return max(0, self.tables_per_slot - self.booked.get(day, {}).get(slot, 0))


class SeatClass(BaseModel):
    code: str
    name: Words
    price: float
    seats: int


class Show(BaseModel):
    date: date
    time: str
    title: Words
    sold: dict[str, int] = Field(default_factory=dict)


class Theatre(BaseModel):
    slug: str
    place_id: str
    name: Words
    seat_classes: list[SeatClass]
    shows: list[Show]

    def seats_left(self, show: Show, seat: SeatClass) -> int:
        return max(0, seat.seats - show.sold.get(seat.code, 0))


class VenueSites(BaseModel):
    note: str
    timezone: str
    currency: str
    hotels: list[Hotel] = Field(default_factory=list)
    restaurants: list[Restaurant] = Field(default_factory=list)
    theatres: list[Theatre] = Field(default_factory=list)

    def site_paths(self) -> list[VenueSite]:
        """Every venue's page: its place, its kind and its path on the demo server."""
        return [
            *(VenueSite(place_id=h.place_id, kind="hotel", path=f"/hotels/{h.slug}", name=h.name) for h in self.hotels),
            *(
                VenueSite(place_id=r.place_id, kind="restaurant", path=f"/restaurants/{r.slug}", name=r.name)
                for r in self.restaurants
            ),
            *(
                VenueSite(place_id=t.place_id, kind="theatre", path=f"/theatres/{t.slug}", name=t.name)
                for t in self.theatres
            ),
        ]


class VenueSite(BaseModel):
    place_id: str
    kind: VenueKind
    path: str = Field(description="the page on the demo server; it takes ?date=YYYY-MM-DD")
    name: Words


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> VenueSites:
    return VenueSites.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))


def load_sites(venues_dir: Path, region: str) -> VenueSites | None:
    """The region's demo sites, or None when it has none."""
    file = venues_dir / f"{region}.json"
    if not file.is_file():
        return None
    return _load(str(file), file.stat().st_mtime)
