"""The offline provider: a gazetteer over a bundled region pack and estimated travel.

Geocoding is an exact lookup on name, alias or address; search is fuzzy (rapidfuzz) in Chinese
and English. Travel figures are straight line x circuity / speed from ``region.json`` and are
always labelled ``offline_estimate``: they are estimates, never presented as road data.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rapidfuzz import fuzz, process

from core.errors import InputError
from core.geo.base import Leg, LonLat, MatchLevel, Place, TravelMatrix, TravelMode
from core.geo.coords import haversine_m, haversine_matrix_m
from core.geo.text import normalize, strip_city_prefix
from core.packs.loader import EstimateParams, RegionPack, RegionPlace

OFFLINE_SOURCE = "offline_estimate"
_OTHER_CITY_PENALTY = 0.85


class OfflineProvider:
    name = "offline"

    def __init__(self, region: RegionPack):
        self.region = region
        self._places = list(region.places)
        self._by_id = {p.id: p for p in self._places}
        self._exact: dict[str, list[tuple[int, str]]] = {}
        self._choices: list[str] = []
        self._choice_owner: list[tuple[int, str]] = []
        for idx, place in enumerate(self._places):
            fields = [("name", place.name_zh), ("name_en", place.name_en), ("address", place.address)]
            fields += [("alias", a) for a in place.aliases]
            if place.district and place.address.startswith(place.district):
                fields.append(("address", place.address[len(place.district) :]))
            for field, value in fields:
                key = normalize(value)
                if not key:
                    continue
                self._exact.setdefault(key, []).append((idx, field))
                self._choices.append(key)
                self._choice_owner.append((idx, field))
        self._city_keys = {normalize(c) for c in region.city_names()}

    # -- helpers -------------------------------------------------------------------------------
    def _city_ok(self, city: str | None) -> bool:
        if not city:
            return True
        key = normalize(city)
        return key in self._city_keys or key.removesuffix("市") in self._city_keys

    def _to_place(self, place: RegionPlace, *, level: MatchLevel, score: float | None, matched_on: str | None) -> Place:
        return Place(
            name=place.name_zh,
            address=place.address,
            lon=place.lon,
            lat=place.lat,
            city=self.region.city,
            district=place.district or None,
            poi_id=place.id,
            category=place.category,
            level=level,
            score=score,
            matched_on=matched_on,
            source=f"offline:{self.region.name}",
            raw=place,
        )

    # -- protocol ------------------------------------------------------------------------------
    def geocode(self, address: str, *, city: str | None = None) -> list[Place]:
        if not self._city_ok(city):
            return []
        for key in dict.fromkeys([normalize(address), strip_city_prefix(address)]):
            hits = self._exact.get(key)
            if hits:
                seen: dict[int, str] = {}
                for idx, field in hits:
                    seen.setdefault(idx, field)
                return [
                    self._to_place(self._places[i], level="exact", score=100.0, matched_on=f) for i, f in seen.items()
                ]
        return []

    def search(
        self, keywords: str, *, city: str | None = None, near: LonLat | None = None, limit: int = 10
    ) -> list[Place]:
        query = strip_city_prefix(keywords)
        if not query or not self._choices:
            return []
        penalty = 1.0 if self._city_ok(city) else _OTHER_CITY_PENALTY
        best: dict[int, tuple[float, str]] = {}
        for _, score, pos in process.extract(query, self._choices, scorer=fuzz.WRatio, limit=max(limit * 6, 30)):
            idx, field = self._choice_owner[pos]
            # WRatio rewards substrings generously; an equal-length full match must beat a partial one.
            full = fuzz.ratio(query, self._choices[pos])
            score = 0.8 * score + 0.2 * full
            if score > best.get(idx, (-1.0, ""))[0]:
                best[idx] = (score, field)
        ranked = []
        for idx, (score, field) in best.items():
            place = self._places[idx]
            if near is not None:
                km = haversine_m(near.lon, near.lat, place.lon, place.lat) / 1000
                score += max(0.0, 3.0 - km)  # a small nudge towards nearby candidates
            ranked.append((min(100.0, score * penalty), idx, field))
        ranked.sort(key=lambda t: (-t[0], t[1]))
        return [
            self._to_place(self._places[i], level="fuzzy", score=round(s, 1), matched_on=f)
            for s, i, f in ranked[:limit]
        ]

    def detail(self, poi_id: str) -> Place | None:
        place = self._by_id.get(poi_id)
        return self._to_place(place, level="poi", score=None, matched_on="id") if place else None

    def matrix(self, points: Sequence[LonLat], *, mode: TravelMode) -> TravelMatrix:
        params = self._params(mode)
        pts = np.asarray([(p[0], p[1]) for p in points], dtype=float).reshape(-1, 2)
        straight = haversine_matrix_m(pts[:, 0], pts[:, 1])
        dist = straight * params.circuity
        dur = dist / (params.speed_kmh / 3.6) + params.fixed_overhead_s
        np.fill_diagonal(dur, 0.0)
        same = straight < 1.0  # the same spot twice: no travel, no overhead
        dur[same] = 0.0
        return TravelMatrix(
            distances_m=np.rint(dist).tolist(),
            durations_s=np.rint(dur).tolist(),
            source=OFFLINE_SOURCE,
            mode=mode,
            notes=[self.estimate_note(mode)],
        )

    def route(self, origin: LonLat, destination: LonLat, *, mode: TravelMode) -> Leg:
        params = self._params(mode)
        straight = haversine_m(origin[0], origin[1], destination[0], destination[1])
        dist = straight * params.circuity
        dur = 0.0 if straight < 1.0 else dist / (params.speed_kmh / 3.6) + params.fixed_overhead_s
        return Leg(
            distance_m=round(dist),
            duration_s=round(dur),
            geometry=[(origin[0], origin[1]), (destination[0], destination[1])],
            source=OFFLINE_SOURCE,
            mode=mode,
        )

    def _params(self, mode: TravelMode) -> EstimateParams:
        return estimate_params(self.region, mode)

    def estimate_note(self, mode: TravelMode) -> str:
        return estimate_note(self.region, mode)

    def close(self) -> None:
        """Nothing to release: the pack is in memory."""


def estimate_params(region: RegionPack, mode: TravelMode) -> EstimateParams:
    try:
        return region.estimate[mode]
    except KeyError:
        raise InputError(
            f"region '{region.name}' has no travel estimate for mode '{mode}'", field="transport_mode"
        ) from None


def estimate_note(region: RegionPack, mode: TravelMode) -> str:
    """How the offline figures of ``mode`` were made, in one sentence (shown beside every estimate)."""
    p = estimate_params(region, mode)
    return (
        f"Offline estimate ({mode}): straight-line distance x {p.circuity:g} circuity at {p.speed_kmh:g} km/h"
        + (f" + {p.fixed_overhead_s:g} s per leg" if p.fixed_overhead_s else "")
        + "; no road network or live traffic was used."
    )
