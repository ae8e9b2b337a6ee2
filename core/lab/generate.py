"""Batches drawn from a region pack (``python -m core lab generate``; docs/ARCHITECTURE.md, "Strategy lab").

Nothing is invented: every origin and stop is a place of the pack, given in the request by its pack id
(``poi_id`` / ``origin_poi_id``, which the planner resolves by a detail look-up) with its name and address for
people (an address the pack's gazetteer resolves to exactly that place, checked here), and listed in
``place_ids``; the coordinates come from the pack when the request is planned. The ids keep a batch resolving when
the gazetteer grows: names alone turned ambiguous once the pack gained squares and stops named like them
(``16``, ``Colorado``). The same region, kind, sizes and seed give a
byte-identical file (``random.Random(seed)``, places in the pack's order, JSON written with fixed separators).

Kinds:

* ``delivery``: a round trip from one place through N stops drawn from every place of the pack, driving.
* ``sightseeing``: a round trip from a hotel through N sights (landmarks, museums, parks, temples, ...), walking.
* ``trip-day``: a one-day ``TripRequest`` from a hotel over N sights (the itinerary pipeline).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from core.config import Settings
from core.errors import InputError
from core.geo.offline import OfflineProvider
from core.geo.text import normalize
from core.models.itinerary import PlaceRef, TripDay, TripPlace, TripRequest
from core.models.lab import RouteBatchItem, TripBatchItem
from core.models.region import RegionPack, RegionPlace
from core.models.route import RawStop, RoutePlanRequest, TransportMode
from core.packs.loader import load_region

SIGHTS = ("landmark", "museum", "park", "temple", "theatre", "family", "market")
#: the first day of generated trip days (a Monday); day i of the batch is this date + i
TRIP_DAY_ZERO = date(2027, 5, 3)


@dataclass(frozen=True)
class KindSpec:
    origins: tuple[str, ...] | None  # categories an origin may have (None: any)
    stops: tuple[str, ...] | None
    mode: TransportMode


KINDS: dict[str, KindSpec] = {
    "delivery": KindSpec(origins=None, stops=None, mode="driving"),
    "sightseeing": KindSpec(origins=("hotel",), stops=SIGHTS, mode="walking"),
    "trip-day": KindSpec(origins=("hotel",), stops=SIGHTS, mode="walking"),
}


def resolvable_places(pack: RegionPack) -> list[RegionPlace]:
    """The pack's places whose address the pack's gazetteer resolves to that place alone (in pack order): a
    request naming them cannot land elsewhere."""
    gazetteer = OfflineProvider(pack)
    out = []
    for place in pack.places:
        if not place.name_zh.strip() or not place.address.strip():
            continue
        hits = gazetteer.geocode(place.address, city=pack.city)
        if len(hits) == 1 and hits[0].poi_id == place.id:
            out.append(place)
    return out


def _keys(place: RegionPlace) -> set[str]:
    return {normalize(place.name_zh), normalize(place.address)} - {""}


def generate_batch(
    *,
    region: str,
    kind: str,
    n: int,
    stops: tuple[int, int],
    seed: int,
    settings: Settings,
) -> list[RouteBatchItem | TripBatchItem]:
    """``n`` requests of ``kind`` over ``region``'s pack, each with a stop count drawn from ``stops`` (inclusive)."""
    if kind not in KINDS:
        raise InputError(f"unknown batch kind '{kind}'; choose {', '.join(KINDS)}", field="kind")
    lo, hi = stops
    if not 1 <= lo <= hi:
        raise InputError(f"stops must be a range like 5-25 with 1 <= low <= high, not {lo}-{hi}", field="stops")
    if n < 1:
        raise InputError(f"n must be at least 1, not {n}", field="n")
    spec = KINDS[kind]
    pack = load_region(region, settings.data_dir)
    places = resolvable_places(pack)
    origins = [p for p in places if spec.origins is None or p.category in spec.origins]
    pool = [p for p in places if spec.stops is None or p.category in spec.stops]
    if not origins or len(pool) < hi + 1:
        raise InputError(
            f"the pack '{region}' has {len(origins)} usable origins and {len(pool)} usable stops for '{kind}'; "
            f"{hi} stops need at least {hi + 1}",
            field="stops",
        )
    rng = random.Random(seed)
    items: list[RouteBatchItem | TripBatchItem] = []
    for i in range(n):
        origin = origins[rng.randrange(len(origins))]
        taken = _keys(origin)
        candidates = [p for p in pool if p.id != origin.id and not (_keys(p) & taken)]
        count = rng.randint(lo, hi)
        chosen: list[RegionPlace] = []
        for p in rng.sample(candidates, len(candidates)):  # a seeded shuffle; keep places with distinct names
            if len(chosen) == count:
                break
            if not (_keys(p) & taken):
                chosen.append(p)
                taken |= _keys(p)
        item_id = f"{region}-{kind}-{i + 1:04d}"
        ids = [origin.id, *(p.id for p in chosen)]
        if kind == "trip-day":
            items.append(
                TripBatchItem(
                    id=item_id, region=region, seed=seed, place_ids=ids, request=_trip(pack, origin, chosen, i, spec)
                )
            )
        else:
            request = RoutePlanRequest(
                task_name=f"{kind} {i + 1}",
                origin_mode="fixed",
                origin_name=origin.name_zh,
                origin_address=origin.address,
                origin_poi_id=origin.id,
                round_trip=True,
                stops=[RawStop(name=p.name_zh, address=p.address, poi_id=p.id) for p in chosen],
                transport_mode=spec.mode,
                need_deep_link=False,
            )
            items.append(RouteBatchItem(id=item_id, region=region, seed=seed, place_ids=ids, request=request))
    return items


def _trip(pack: RegionPack, hotel: RegionPlace, sights: list[RegionPlace], i: int, spec: KindSpec) -> TripRequest:
    return TripRequest(
        trip_name=f"day {i + 1}",
        region=pack.name,
        hotel=PlaceRef(place_id=hotel.id),
        days=[TripDay(date=TRIP_DAY_ZERO + timedelta(days=i))],
        mode=spec.mode,
        places=[TripPlace(place_id=p.id) for p in sights],
    )


def batch_lines(items: list[RouteBatchItem | TripBatchItem]) -> str:
    """The JSON-lines text of a batch (deterministic: fields in model order, no whitespace, UTF-8 kept)."""
    return "".join(
        json.dumps(item.model_dump(mode="json", exclude_none=True), ensure_ascii=False, separators=(",", ":")) + "\n"
        for item in items
    )


def write_batch(items: list[RouteBatchItem | TripBatchItem], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(batch_lines(items).encode("utf-8"))
    return path
