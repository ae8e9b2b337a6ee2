"""What can be reserved in a region, and on what terms: the pack's places that need a reservation and its
restaurants, theatres and museums, with slots, capacity, lead time and a cancellation policy per category
(``data/regions/<name>/reservations.json``, overridable per place). Everything is data; nothing is invented:
a price is the pack's ``price_per_person`` or unknown."""

from __future__ import annotations

import json
from datetime import date, datetime, time, timedelta, tzinfo
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

from core.models.reservations import CancellationPolicy
from core.packs.loader import RegionPack, RegionPlace


class Terms(BaseModel):
    """How one kind of item is booked."""

    slot_minutes: int = Field(default=30, ge=5, le=240)
    first_slot: time = time(10, 0)
    last_slot: time = time(20, 0)
    capacity_per_slot: int = Field(default=20, ge=1, description="parties (tables, ticket batches) per slot")
    max_party: int = Field(default=10, ge=1, le=20)
    lead_time_hours: int = Field(default=2, ge=0, description="how long before the slot a booking closes")
    cancellation: CancellationPolicy = CancellationPolicy(free_until_hours=24, fee_share=0.0)


class ReservationTerms(BaseModel):
    by_category: dict[str, Terms] = Field(default_factory=dict)
    by_place: dict[str, Terms] = Field(default_factory=dict)
    bookable_categories: list[str] = Field(default_factory=list)


class BookableItem(BaseModel):
    id: str
    name: str
    category: str
    price_per_person: float | None
    terms: Terms

    def slots(self) -> list[time]:
        start = datetime.combine(date(2000, 1, 1), self.terms.first_slot)
        end = datetime.combine(date(2000, 1, 1), self.terms.last_slot)
        out = []
        while start <= end:
            out.append(start.time())
            start += timedelta(minutes=self.terms.slot_minutes)
        return out

    def next_slot(self, at: time) -> time:
        """The first slot at or after ``at`` (the last slot when ``at`` is later than all of them)."""
        slots = self.slots()
        return next((s for s in slots if s >= at), slots[-1])

    def closes_at(self, day: date, slot: time, zone: tzinfo) -> datetime:
        """When bookings for ``slot`` on ``day`` close: the lead time before it starts."""
        return datetime.combine(day, slot, tzinfo=zone) - timedelta(hours=self.terms.lead_time_hours)


@lru_cache(maxsize=8)
def _terms_file(path: str) -> ReservationTerms:
    file = Path(path)
    if not file.is_file():
        return ReservationTerms()
    return ReservationTerms.model_validate(json.loads(file.read_text(encoding="utf-8")))


def terms_for(pack: RegionPack) -> ReservationTerms:
    if pack.folder is None:
        return ReservationTerms()
    return _terms_file(str(pack.folder / "reservations.json"))


def bookable(place: RegionPlace, terms: ReservationTerms) -> bool:
    return place.needs_reservation or place.category in terms.bookable_categories


def item_for(pack: RegionPack, item_id: str) -> BookableItem | None:
    """The place ``item_id`` as a bookable item, or None when it does not exist or cannot be booked."""
    place = pack.place_by_id(item_id)
    terms = terms_for(pack)
    if place is None or not bookable(place, terms):
        return None
    item_terms = terms.by_place.get(place.id) or terms.by_category.get(place.category) or Terms()
    return BookableItem(
        id=place.id,
        name=place.name_zh,
        category=place.category,
        price_per_person=place.price_per_person,
        terms=item_terms,
    )


def catalogue(pack: RegionPack) -> list[BookableItem]:
    terms = terms_for(pack)
    return [item for p in pack.places if bookable(p, terms) and (item := item_for(pack, p.id)) is not None]
