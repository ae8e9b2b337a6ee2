"""What can be reserved in a region, and on what terms: the pack's places that need a reservation and its
restaurants, theatres and museums, with slots, capacity, lead time and a cancellation policy per category
(``data/regions/<name>/reservations.json``, overridable per place). Everything is data; nothing is invented:
a price is the pack's ``price_per_person`` or unknown."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

from core.models.region import RegionPack, RegionPlace
from core.models.reservations import BookableItem, Terms


class ReservationTerms(BaseModel):
    by_category: dict[str, Terms] = Field(default_factory=dict)
    by_place: dict[str, Terms] = Field(default_factory=dict)
    bookable_categories: list[str] = Field(default_factory=list)


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
