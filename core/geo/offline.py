"""The offline provider: a gazetteer over a bundled region pack and estimated travel.

Geocoding is an exact lookup on name, alias or address; search is fuzzy (rapidfuzz) in Chinese
and English. Travel figures are straight line x circuity / speed from ``region.json`` and are
always labelled ``offline_estimate``: they are estimates, never presented as road data.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field

import numpy as np
from rapidfuzz import fuzz, process

from core.errors import InputError
from core.geo.base import Leg, LonLat, MatchLevel, Place, TravelMatrix, TravelMode
from core.geo.coords import haversine_m, haversine_matrix_m
from core.geo.text import (
    base_name,
    canonical,
    discriminators,
    kind_marks,
    normalize,
    pinyin_key,
    sound_key,
    spaced,
    strip_city_names,
    strip_city_prefix,
)
from core.i18n import has_cjk
from core.models.region import EstimateParams, RegionPack, RegionPlace

OFFLINE_SOURCE = "offline_estimate"
_OTHER_CITY_PENALTY = 0.85
_OTHER_NUMBER = 0.75  # the text says T3, 700号 or 北, the key another number or direction
_NO_NUMBER = 0.92  # the text has a number or direction the key lacks (上海东站 for 上海站)
_NOT_THAT_KIND = 0.85  # the text names a station, hotel or airport, the place is none
_WRATIO_CUTOFF = 50.0  # below this a key cannot reach the resolver's fuzzy minimum (0.8 x 50 + 20 = 60)
_PINYIN_CAP = 93.0  # a pinyin match is a guess at the characters: never as sure as the written name
_PINYIN_MIN = 92.0  # loose pinyin keys this close are the same sounds give or take a typed letter
_KINDS = {"station": {"station", "airport", "stop"}, "hotel": {"hotel"}, "airport": {"airport"}}
#: a place at least this much more important (core/packs/osm_places.py importance_of) than a stop or business named
#: like it and this close to it is what the name means: the railway station over its tram stop and its grill
#: kiosk (Rautatieasema), the square over its stops (Kauppatori). 25 is one step of kind (a kiosk 10, a stop 30,
#: a landmark 45-85, a station 70-90): two landmarks, or a stop and a shop, never outrank each other by it.
_NAMED_AFTER_LEAD = 25
_NAMED_AFTER_M = 400.0
#: words that ask for the stop itself ("Kauppatori tram"): then the stop is not yielded to the square
_STOP_WORDS = frozenset(
    "tram bus stop metro subway train raitiovaunu ratikka pysakki bussi juna hallplats sparvagn buss".split()
)
#: how far importance moves a fuzzy score: a tie-break between names as alike, never over a better-typed name
_IMPORTANCE_BONUS = 4.0
#: every word typed is a whole word of the place's name ("tuomiokirkko" in "Helsingin tuomiokirkko", not the
#: genitive of "Tuomiokirkon krypta"): the name as typed, worth a little more than a look-alike
_WHOLE_WORDS_BONUS = 3.0
_NOT_A_CENTRE = {"address", "hotel", "restaurant", "cafe", "district", "stop"}


def _district_forms(districts: Iterable[str]) -> dict[str, str]:
    """Every way a district is named alone: 徐汇区, 徐汇, xuhui, xuhuidistrict, 浦东新区, 浦东, pudongnewarea."""
    forms: dict[str, str] = {}
    for district in {d for d in districts if d}:
        key = normalize(district)
        short = key.removesuffix("新区").removesuffix("区") if has_cjk(key) else key
        variants = {key, short} if len(short) >= 2 else {key}
        if py := pinyin_key(short):
            variants |= {py, py + "district", py + "qu", py + "newarea", py + "newdistrict"}
        for v in variants:
            forms.setdefault(v, district)
    return forms


@dataclass
class _Index:
    """The gazetteer's look-up tables of one pack, built on the first look-up (a provider used only for its travel
    estimates never pays for them) and shared by every provider on the same pack object."""

    exact: dict[str, list[tuple[int, str]]] = dc_field(default_factory=dict)
    canon: dict[str, list[tuple[int, str]]] = dc_field(default_factory=dict)
    base: dict[str, list[tuple[int, str]]] = dc_field(default_factory=dict)  # a branch's name without "(…店)"
    choices: list[str] = dc_field(default_factory=list)
    choice_owner: list[tuple[int, str]] = dc_field(default_factory=list)
    pinyin_choices: list[str] = dc_field(default_factory=list)
    pinyin_owner: list[tuple[int, str]] = dc_field(default_factory=list)
    districts: dict[str, str] = dc_field(default_factory=dict)
    words: dict[int, frozenset[str]] = dc_field(default_factory=dict)  # every word of a place's names


_INDEXES: dict[int, tuple[weakref.ref[RegionPack], _Index]] = {}
_INDEX_LOCK = threading.Lock()


def _build_index(places: list[RegionPlace]) -> _Index:
    ix = _Index()
    for idx, place in enumerate(places):
        fields = [("name", place.name_zh), ("name_en", place.name_en), ("address", place.address)]
        fields += [("alias", a) for a in place.aliases]
        if place.district and place.address.startswith(place.district):
            fields.append(("address", place.address[len(place.district) :]))
        line = place.address.split(",")[0]
        if line != place.address and any(c.isdigit() for c in line):  # "Aleksanterinkatu 52" of "…, 00100 Helsinki"
            fields.append(("address", line))
        for kind, value in fields:
            key = normalize(value)
            if not key:
                continue
            ix.exact.setdefault(key, []).append((idx, kind))
            whole, base = canonical(value), canonical(base_name(value))
            ix.canon.setdefault(whole, []).append((idx, kind))
            if base and base not in (whole, key):
                ix.base.setdefault(base, []).append((idx, kind))
            words = spaced(value) if kind != "address" else ""  # word order matters in names only
            for form in dict.fromkeys(f for f in (key, whole, base, words) if f):
                ix.choices.append(form)
                ix.choice_owner.append((idx, kind))
            if kind in ("name", "alias"):
                for py in dict.fromkeys(sound_key(pinyin_key(f)) for f in (key, base)):
                    if py:
                        ix.pinyin_choices.append(py)
                        ix.pinyin_owner.append((idx, kind))
    ix.districts = _district_forms(p.district for p in places)
    for idx, place in enumerate(places):
        names = [place.name_zh, place.name_en, *place.aliases]
        ix.words[idx] = frozenset(w for n in names if n for w in (spaced(n) or normalize(n)).split())
    return ix


def _index_of(region: RegionPack, places: list[RegionPlace]) -> _Index:
    with _INDEX_LOCK:
        kept = _INDEXES.get(id(region))
        if kept is not None and kept[0]() is region:
            return kept[1]
        ix = _build_index(places)
        key = id(region)
        _INDEXES[key] = (weakref.ref(region, lambda _: _INDEXES.pop(key, None)), ix)
        return ix


class OfflineProvider:
    name = "offline"
    #: its places carry the pack's categories (a museum, a park): a name said with a word of its kind can be read
    places_carry_kinds = True

    def __init__(self, region: RegionPack):
        self.region = region
        self._places = list(region.places)
        # the most important first (pack order among equals): a stop's namesake is looked for from the top down
        self._by_importance = sorted(self._places, key=lambda place: -place.importance)
        self._name_words: dict[str, list[set[str]]] = {}  # a place's names as sets of words, made at first need
        self._by_id = {p.id: p for p in self._places}
        self._parts = {whole: tuple(ids) for whole, ids in region.parts_of().items()}
        # a whole's parts' numbers ({"1", "2"} of PVG): a number none of them has names no part of it (PVG T3)
        self._part_marks = {
            i: frozenset().union(*(discriminators(canonical(self._by_id[k].name_zh)) for k in self._parts[p.id]))
            for i, p in enumerate(self._places)
            if p.id in self._parts
        }
        self._ix: _Index | None = None
        self._city_keys = {normalize(c) for c in region.city_names()}
        self._city_prefixes = frozenset(self._city_keys | {k + "市" for k in self._city_keys if has_cjk(k)})

    @property
    def _index(self) -> _Index:
        if self._ix is None:
            self._ix = _index_of(self.region, self._places)
        return self._ix

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
            parent=place.parent,
            parts=self._parts.get(place.id, ()),
            raw=place,
        )

    # -- protocol ------------------------------------------------------------------------------
    def _hits(self, index: dict[str, list[tuple[int, str]]], keys: list[str], *, how: str = "") -> list[Place]:
        """The places ``index`` holds under the first of ``keys`` that it has; ``matched_on`` is the field that
        matched, with ``how`` (``_form``: written another way, ``_part``: a part of it) after it."""
        for key in dict.fromkeys(k for k in keys if k):
            hits = index.get(key)
            if hits:
                seen: dict[int, str] = {}
                for idx, field in hits:
                    seen.setdefault(idx, field + how)
                # the place itself first: the more important (a packs' importance; 0 in curated packs: order kept)
                order = sorted(seen, key=lambda i: -self._places[i].importance)
                return [self._to_place(self._places[i], level="exact", score=100.0, matched_on=seen[i]) for i in order]
        return []

    def _named_after(self, found: list[Place], query: str) -> Place | None:
        """The place a stop or business found by ``query`` is named after: a much more important place near it
        whose names hold every word of the query (Rautatieasema: "Helsingin rautatieasema", the station by the
        tram stop "Rautatieasema (M)"); None when the found place is itself the most important."""
        words = spaced(query).split() or [normalize(query)]
        top = max((p.raw.importance for p in found if isinstance(p.raw, RegionPlace)), default=0)
        if not words[0] or top == 0:
            return None
        said = set(words)
        for place in self._by_importance:  # the first that fits is the most important (the earliest among equals)
            if place.importance < top + _NAMED_AFTER_LEAD:
                return None
            if not any(said <= named for named in self._words_of(place)):  # the cheaper test first
                continue
            if any(haversine_m(p.lon, p.lat, place.lon, place.lat) <= _NAMED_AFTER_M for p in found):
                return self._to_place(place, level="exact", score=100.0, matched_on="name")
        return None

    def _words_of(self, place: RegionPlace) -> list[set[str]]:
        if place.id not in self._name_words:
            names = [place.name_zh, place.name_en, *place.aliases]
            self._name_words[place.id] = [set((spaced(n) or normalize(n)).split()) for n in names if n]
        return self._name_words[place.id]

    def geocode(self, address: str, *, city: str | None = None) -> list[Place]:
        """Exact look-ups, in order: the text as written (with and without the city), then the forms people vary
        (terminals, 火车站/站, 国际机场, a bracketed qualifier); a district named alone answers its places (level
        ``area``, best known first) so the resolver can offer the choice."""
        if not self._city_ok(city):
            return []
        norm = normalize(address)
        plain = [norm, strip_city_prefix(address), strip_city_names(norm, self._city_prefixes)]
        found = self._hits(self._index.exact, plain)
        if found:
            parent = self._named_after(found, address)
            return [parent, *found] if parent else found
        forms = [canonical(k) for k in plain] + [canonical(base_name(address))]
        found = self._hits(self._index.canon, forms, how="_form")
        if found:
            return found
        found = self._hits(self._index.base, forms, how="_part")
        if found:  # a branch's plain name ("来福士广场"): every other place whose name holds it is an answer too
            key = next(k for k in forms if k in self._index.base)
            owners = {p.poi_id for p in found}
            siblings = dict.fromkeys(idx for form, hits in self._index.canon.items() if key in form for idx, _ in hits)
            found += [
                self._to_place(self._places[i], level="exact", score=100.0, matched_on="name_part")
                for i in siblings
                if self._places[i].id not in owners
            ]
            return found
        district = self._index.districts.get(strip_city_names(norm, self._city_prefixes))
        if district:
            return self._district_places(district)
        return []

    def _district_places(self, district: str, limit: int = 6) -> list[Place]:
        """The best-known places of a district (rated, not addresses or hotels), for a district named alone."""
        inside = [p for p in self._places if p.district == district and p.category not in _NOT_A_CENTRE]
        inside.sort(key=lambda p: (-(p.rating or 0.0), p.id))
        return [self._to_place(p, level="area", score=None, matched_on="district") for p in inside[:limit]]

    def search(
        self, keywords: str, *, city: str | None = None, near: LonLat | None = None, limit: int = 10
    ) -> list[Place]:
        """Fuzzy search over names, aliases, English names, addresses and the pinyin of Chinese names.

        The text is tried as written, without the city, and in its canonical form; Chinese text is also compared
        by its pinyin (homophone typos), capped below a written match. A number that disagrees (T3 for T1, 7号
        for 700号) and a station asked for but a non-station found lower the score."""
        query = strip_city_prefix(keywords)
        ix = self._index
        if not query or not ix.choices:
            return []
        penalty = 1.0 if self._city_ok(city) else _OTHER_CITY_PENALTY
        variants = dict.fromkeys(
            v
            for q in (query, strip_city_names(query, self._city_prefixes))
            for v in (q, canonical(q), spaced(keywords))
            if v
        )
        best: dict[int, tuple[float, str]] = {}
        typed = frozenset((spaced(keywords) or normalize(keywords)).split())

        def consider(q: str, choices: list[str], owners: list[tuple[int, str]], *, by_sound: bool = False) -> None:
            want, kinds = discriminators(canonical(q)), kind_marks(canonical(q))
            if by_sound:  # pinyin: the same sounds or nearly, whole keys only (a fuzzy sound is another word)
                found = process.extract(q, choices, scorer=fuzz.ratio, limit=limit, score_cutoff=_PINYIN_MIN)
            else:
                found = process.extract(
                    q, choices, scorer=fuzz.WRatio, limit=max(limit * 6, 30), score_cutoff=_WRATIO_CUTOFF
                )
            for key, score, pos in found:
                idx, field = owners[pos]
                if by_sound:
                    score = _PINYIN_CAP * score / 100
                else:  # WRatio rewards substrings generously; an equal-length full match must beat a partial one
                    score = 0.8 * score + 0.2 * fuzz.ratio(q, key)
                have = discriminators(key)
                if want - have:
                    other = have or (want - self._part_marks.get(idx, want))
                    score *= _OTHER_NUMBER if other else _NO_NUMBER
                category = self._places[idx].category
                if any(category not in _KINDS[k] for k in kinds - kind_marks(key)):
                    score *= _NOT_THAT_KIND
                if score > best.get(idx, (-1.0, ""))[0]:
                    best[idx] = (score, field)

        for q in variants:
            consider(q, ix.choices, ix.choice_owner)
            sound = sound_key(pinyin_key(q) if has_cjk(q) else q.replace(" ", ""))
            if sound:
                consider(sound, ix.pinyin_choices, ix.pinyin_owner, by_sound=True)
                if has_cjk(q):  # the pinyin of Chinese text against names written in pinyin ("Waitan")
                    consider(sound, ix.choices, ix.choice_owner, by_sound=True)
        ranked = []
        for idx, (score, field) in best.items():
            place = self._places[idx]
            if near is not None:
                km = haversine_m(near.lon, near.lat, place.lon, place.lat) / 1000
                score += max(0.0, 3.0 - km)  # a small nudge towards nearby candidates
            if place.importance:  # an OSM pack: the place itself and the name as typed first (curated packs: 0)
                score += _IMPORTANCE_BONUS * place.importance / 100
                score += _WHOLE_WORDS_BONUS if typed and typed <= ix.words.get(idx, frozenset()) else 0.0
            ranked.append((min(100.0, score * penalty), idx, field))
        if not typed & _STOP_WORDS:
            ranked = self._named_after_first(ranked)
        ranked.sort(key=lambda t: (-t[0], t[1]))
        return [
            self._to_place(self._places[i], level="fuzzy", score=round(s, 1), matched_on=f)
            for s, i, f in ranked[:limit]
        ]

    def _named_after_first(self, ranked: list[tuple[float, int, str]]) -> list[tuple[float, int, str]]:
        """A stop or business that scores above a much more important place near it, named alike (within 10
        points), is named after that place: the place takes the stop's score plus a hair, so the place itself
        comes first and the stop beside it is said, not chosen (the cathedral over the bus stop "Hki
        tuomiokirkko", the station over "Rautatieaseman grilli")."""
        out = {idx: (score, idx, field) for score, idx, field in ranked}
        for score, idx, _ in sorted(ranked, key=lambda t: -t[0]):
            low = self._places[idx]
            for other_score, other, field in ranked:
                big = self._places[other]
                if (
                    big.importance >= low.importance + _NAMED_AFTER_LEAD
                    and score - 10.0 <= other_score < score
                    and haversine_m(low.lon, low.lat, big.lon, big.lat) <= _NAMED_AFTER_M
                ):
                    out[other] = (max(out[other][0], min(100.0, score + 0.1)), other, field)
        result = list(out.values())
        result.sort(key=lambda t: (-t[0], t[1]))
        return result

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
