"""Resolve each input place to a coordinate and (where possible) a POI, never inventing one.

The order (docs/ARCHITECTURE.md, "Route planner"):
1. geocode the address;
2. text search when geocoding is empty, fuzzy or too coarse, choosing by name, address and city;
3. a detail look-up to confirm a fuzzy POI match;
4. a fallback to the road/compound (house number dropped) or the nearest POI, with a note.
Every point records ``source`` and ``confidence_note``; an input that cannot be resolved raises
ResolutionError naming it.

An input that fits several places is never settled by taking the first (issue 12): when the best candidates
are within ``AMBIGUITY_MARGIN`` of each other and are different places (more than ``FAR_APART_M`` apart, or
of one kind and more than ``SAME_SPOT_M`` apart: two terminals, two museums, two branches), when several
places match exactly, when a district is named alone, or when the best fuzzy match is a near miss (below
``NEAR_MISS_BELOW``), it raises AmbiguousPlaceError with the candidates (name, district, distance between them,
score) for that input field, and the faces offer the choice.

A place the data says is made of parts (its ``parts``: an airport and its terminals) is the place its names mean:
it is taken with a notice naming the parts, its point lying between them; a part is still found by its own name,
and a part and its whole close in score are one answer, not a choice. Parts more than ``FAR_APART_M`` apart (Hongqiao
airport's terminals, across the runways) get a notice that says how far apart they are and that naming one goes
to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from core.config import Settings
from core.errors import AmbiguousPlaceError, ResolutionError
from core.geo.base import Geocoder, LonLat, Place
from core.geo.composite import MapServices
from core.geo.coords import haversine_m
from core.geo.kind_words import NameWithoutKind, name_without_kind
from core.geo.text import canonical, distinctive, house_number, normalize, strip_house_number
from core.models.common import echo
from core.models.route import (
    Notice,
    PointSource,
    RawStop,
    ResolvedPoint,
    RoutePlanRequest,
    format_location,
    point_id,
)
from core.route.elsewhere import coverage_facts, known_elsewhere
from core.route.notices import english, notice, point_names
from core.route.notices import who as named_input
from core.route.place_choice import (
    FAR_APART_M,
    alike,
    ambiguous,
    choice_of,
    distinct,
    score_of,
    similarity,
    whole_and_part,
)

Role = Literal["origin", "stop", "destination"]
PRECISE_GEO_LEVELS = {"exact", "poi", "house_number"}
CONFIDENT_SCORE = 95.0
AMBIGUITY_MARGIN = 4.0  # scores this close do not tell two places apart
NEAR_MISS_BELOW = 84.0  # a best fuzzy match under this is offered as a choice, not taken
#: a stop's name and its address found this far apart (and not one place and its part) are two places: asked
NAME_ADDRESS_APART_M = 200.0
#: a whole place's point this close to one of its parts is that part's: the whole's arrival point (Hongqiao airport
#: is its T2 terminal, data/README.md "Places made of parts"), not a point between its parts
ARRIVAL_M = 50.0
SHOWN_BAND = 10.0  # an ambiguity offers every candidate this close to the best


@dataclass
class Resolution:
    point: ResolvedPoint
    notices: list[Notice] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        """The notices in English."""
        return english(self.notices, names=point_names([self.point]))


@dataclass
class ResolvedPoints:
    origin: ResolvedPoint | None
    stops: list[ResolvedPoint]
    destination: ResolvedPoint
    notices: list[Notice] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        points = [p for p in (self.origin, *self.stops, self.destination) if p is not None]
        return english(self.notices, names=point_names(points))


def _describe(role: Role, raw: RawStop, index: int | None) -> str:
    who = f"stop {index + 1}" if role == "stop" and index is not None else role
    return f"{who} '{echo(raw.label())}'"


def _field(role: Role, index: int | None) -> str:
    return f"stops.{index}" if role == "stop" else f"{role}_address"


def _point(
    raw: RawStop,
    place: Place,
    *,
    role: Role,
    source: PointSource,
    note: str,
    provider: str,
    index: int | None,
    score: float | None,
) -> ResolvedPoint:
    # an address point (a geocode without a POI: its name is its address) is named as the person named it; the
    # address it gave stays in the note
    address_point = bool(raw.name) and not place.poi_id and place.name == place.address
    return ResolvedPoint(
        role=role,
        input_name=raw.name,
        input_address=raw.address,
        resolved_name=raw.name if address_point else place.name,
        city=place.city,
        district=place.district,
        location=format_location(place.lon, place.lat),
        lon=place.lon,
        lat=place.lat,
        poi_id=place.poi_id,
        source=source,
        confidence_note=f"{note}; the address found: {place.address}" if address_point else note,
        provider=provider,
        match_score=None if score is None else round(score, 1),
        index=index,
        matched_on=place.matched_on if source == "geo" else None,
    )


def _other_names(place: Place) -> list[str]:
    """A gazetteer place's other names (its English name, its aliases); none from a service that gives none."""
    extra = place.raw
    names = [getattr(extra, "name_en", None), *(getattr(extra, "aliases", None) or [])]
    return [n for n in names if isinstance(n, str) and n]


def resolve_point(
    raw: RawStop,
    *,
    role: Role,
    provider: Geocoder,
    settings: Settings,
    index: int | None = None,
    default_city: str | None = None,
) -> Resolution:
    """Where ``raw`` is, in this order: the place chosen among an earlier ambiguity's candidates (by id), a precise
    geocode, a text search chosen by name, address and city, then the road without its house number, then a
    road-level geocode; an ambiguity is asked (``AmbiguousPlaceError``), nothing found is a ``ResolutionError``."""
    job = _Resolving(
        raw=raw, role=role, provider=provider, settings=settings, index=index, city=raw.city or default_city
    )
    if raw.poi_id:
        return job.chosen(raw.poi_id)
    found, coarse = job.by_geocode()
    if found is None:
        found = job.by_name_without_kind()
    if found is not None:
        return job.agreeing(found)
    everything, ranked = job.candidates()
    found = job.by_search(ranked)
    if found is not None:
        return job.agreeing(found)
    found = job.by_fallbacks(coarse)
    if found is not None:
        return found
    raise job.not_found(everything, ranked)


@dataclass
class _Resolving:
    """One input being resolved: what it says, whom to ask, and the notices gathered on the way."""

    raw: RawStop
    role: Role
    provider: Geocoder
    settings: Settings
    index: int | None
    city: str | None
    notices: list[Notice] = field(default_factory=list)

    @property
    def who_text(self) -> str:
        return _describe(self.role, self.raw, self.index)

    @property
    def field_name(self) -> str:
        return _field(self.role, self.index)

    @property
    def named(self) -> dict[str, str | int | float]:
        return named_input(point_id(self.role, self.index), echo(self.raw.label()))

    # ---- the answer -----------------------------------------------------------------------------------
    def make(self, place: Place, source: PointSource, note: str, score: float | None = None) -> Resolution:
        if place.parts:
            note += self.whole(place)
        elif getattr(place.raw, "approximate", False) is True:  # a square the map data holds only part of
            note += "; its point is approximate (the map data holds only part of it)"
        if place.category == "district":  # a part of a city: its mapped centre stands for it, said so
            detail = f"{self.who_text} is the district '{place.name}': its centre as the map data gives it was used"
            self.notices.append(notice("DISTRICT_CENTRE", detail=detail, **self.named))
            note += "; a district: its mapped centre"
        # the service that really answered: a fallback's place (the pack's gazetteer while AMap failed) says so
        pname = self.provider.name
        answered_by = (place.source or pname).split(":")[0] or pname
        point = _point(
            self.raw,
            place,
            role=self.role,
            source=source,
            note=note,
            provider=answered_by,
            index=self.index,
            score=score,
        )
        return Resolution(point, self.notices)

    def whole(self, place: Place) -> str:
        """A place of parts is what its names mean: it is taken, said with its parts. Parts farther apart than
        ``FAR_APART_M`` (two terminals across the runways) are said to be so, and naming a part goes to that part:
        the whole's point is its arrival part's when the pack puts it there (``PLACE_PARTS_ARRIVAL``), else a point
        between them, which is no entrance (``PLACE_PARTS_APART``)."""
        parts = [p for p in (self.provider.detail(i) for i in place.parts) if p is not None]
        spread = max((haversine_m(a.lon, a.lat, b.lon, b.lat) for a in parts for b in parts), default=0.0)
        names = ", ".join(p.name for p in parts)
        # the parts by id too, so a reader names them in its own language (the map data's names are one language)
        part_ids = ",".join(p.poi_id or "" for p in parts) if all(p.poi_id for p in parts) else ""
        arrival = next((p for p in parts if haversine_m(place.lon, place.lat, p.lon, p.lat) <= ARRIVAL_M), None)
        detail = f"{self.who_text} is '{place.name}', a place of {len(parts)} parts ({names})"
        km, count = f"{spread / 1000:.1f}", len(parts)
        if arrival is not None and spread > FAR_APART_M:
            detail += f", {km} km apart: its arrival point {arrival.name} was used"
            arrival_name, arrival_id = arrival.name, arrival.poi_id or ""
            made = notice(
                "PLACE_PARTS_ARRIVAL",
                detail=detail,
                parts=names,
                part_ids=part_ids,
                count=count,
                km=km,
                arrival=arrival_name,
                arrival_id=arrival_id,
                **self.named,
            )
        elif spread > FAR_APART_M:
            detail += f": a point between them was used; the parts are {km} km apart"
            made = notice(
                "PLACE_PARTS_APART", detail=detail, parts=names, part_ids=part_ids, count=count, km=km, **self.named
            )
        else:
            detail += ": a point between them was used"
            made = notice("PLACE_HAS_PARTS", detail=detail, parts=names, part_ids=part_ids, count=count, **self.named)
        self.notices.append(made)
        if arrival is not None:
            return f"; a place of {len(parts)} parts ({names}): its point is that of {arrival.name}, its arrival point"
        return f"; a place of {len(parts)} parts ({names}): its point lies between them (approximate)"

    def agreeing(self, found: Resolution) -> Resolution:
        """``found``, unless the stop's name alone is precisely one other place, farther than ``NAME_ADDRESS_APART_M``
        from it (东方明珠 at the address 陆家嘴, the skywalk): the two are asked, the name's place first, never one
        taken for the other (issue 31 §2). A name several places share (a chain) is told apart by the address."""
        raw, point = self.raw, found.point
        if not (raw.name and raw.address) or normalize(raw.name) == normalize(raw.address):
            return found
        precise = [p for p in self.provider.geocode(raw.name, city=self.city) if p.level in PRECISE_GEO_LEVELS]
        if not precise or (point.poi_id is not None and any(p.poi_id == point.poi_id for p in precise)):
            return found
        named = precise[0]
        if any(distinct(named, p) for p in precise[1:]):  # a chain's name (Burger King): the address says which
            return found
        if point.poi_id is None:  # the address found a bare address point: no place to offer beside the name's
            return self._address_apart(found, named)
        at_address = self.provider.detail(point.poi_id)
        if at_address is None or whole_and_part(named, at_address):
            return found
        if haversine_m(named.lon, named.lat, at_address.lon, at_address.lat) <= NAME_ADDRESS_APART_M:
            return found
        scored = [(named.score, named), (at_address.score, at_address)]
        raise ambiguous(self.who_text, choice_of(self.field_name, raw.label(), "name_address", scored))

    def _address_apart(self, found: Resolution, named: Place) -> Resolution:
        """A stop whose address led to a bare address point while its name is precisely a place farther than
        ``NAME_ADDRESS_APART_M`` away: the route goes to the address, labelled by the address (never by the name of
        the place it is not), and a notice names both."""
        point = found.point
        metres = round(haversine_m(named.lon, named.lat, point.lon, point.lat))
        if metres <= NAME_ADDRESS_APART_M:
            return found
        address = self.raw.address or ""
        self.notices.append(
            notice(
                "NAME_ADDRESS_APART",
                detail=f"{self.who_text}: the name is '{named.name}', {metres} m from the address '{address}'",
                named=named.name,
                address=address,
                metres=metres,
                **self.named,
            )
        )
        return Resolution(point.model_copy(update={"resolved_name": address}), self.notices)

    # ---- 0. a place the user chose among an ambiguity's candidates: its POI, by id ---------------------
    def chosen(self, poi_id: str) -> Resolution:
        place = self.provider.detail(poi_id)
        if place is None:
            raise ResolutionError(
                f"{self.who_text}: the chosen place '{echo(poi_id)}' is not known to the {self.provider.name} provider",
                field=self.field_name,
            )
        return self.make(place, "geo", f"chosen among the candidates: POI {poi_id} (detail look-up)", None)

    # ---- 1. geocode ------------------------------------------------------------------------------------
    def by_geocode(self) -> tuple[Resolution | None, Place | None]:
        """A precise geocode's answer (None: none), and the first road-level one (for the fallbacks)."""
        coarse: Place | None = None
        for query in dict.fromkeys(q for q in (self.raw.address, self.raw.name) if q):
            geo = self.provider.geocode(query, city=self.city)
            if not geo:
                continue
            top = geo[0]
            if top.level == "area" and len(geo) > 1:  # a district named alone: which of its places?
                raise ambiguous(
                    self.who_text, choice_of(self.field_name, query, "district", [(p.score, p) for p in geo])
                )
            if top.level in PRECISE_GEO_LEVELS:
                return self._precise(query, geo), coarse
            if top.level == "road" and coarse is None:
                coarse = top
        return None, coarse

    def _precise(self, query: str, geo: list[Place]) -> Resolution:
        top = geo[0]
        on = f" on {top.matched_on}" if top.matched_on else ""
        note = f"geocoded: exact match{on} '{query}'"
        if len(geo) > 1:
            if any(distinct(top, p) for p in geo[1:]):
                choice = choice_of(self.field_name, query, "several_exact", [(p.score, p) for p in geo])
                raise ambiguous(self.who_text, choice)
            others = ", ".join(p.name for p in geo[1:3])
            # the same words as before issue 12 (the pages word this warning by its shape); now they lie at one spot
            self.notices.append(
                notice(
                    "SEVERAL_EXACT_ONE_SPOT",
                    detail=f"{self.who_text} matched {len(geo)} places exactly; used '{top.name}' (also: {others})",
                    count=len(geo),
                    others=others,
                    **self.named,
                )
            )
            note += f"; {len(geo)} exact matches at one spot, first taken"
        return self.make(top, "geo", note, top.score)

    # ---- 1b. the name said with a word of its kind ("Ateneumin taidemuseo": the museum named "Ateneum") ---------
    def by_name_without_kind(self) -> Resolution | None:
        """A place named exactly as the text without its words of kind (core/geo/kind_words.py), of the kind those
        words name (a map service that gives no kind gives no answer here); None: none. Several such places apart
        are asked. In Chinese the place's name need only leave the same once its own words of kind are set aside
        ("奇亚斯玛美术馆" / "奇亚斯玛当代艺术博物馆"): taken with the notice of a fuzzy match."""
        if not getattr(self.provider, "places_carry_kinds", False):
            return None  # its places carry no kind: every call here would be spent for nothing (AMap's quota)
        for text in dict.fromkeys(q for q in (self.raw.name, self.raw.address) if q):
            named = name_without_kind(text, cities=self.cities())
            for form in named.forms if named is not None else ():
                assert named is not None
                geo = [p.model_copy(update={"matched_on": "name_kind"}) for p in self._of_kind(form, named)]
                if not geo:
                    continue
                if any(distinct(geo[0], p) for p in geo[1:]):
                    scored = [(p.score, p) for p in geo]
                    raise ambiguous(self.who_text, choice_of(self.field_name, text, "several_exact", scored))
                if named.distinctive:  # a name that only shares its distinctive part: taken, and said so
                    return self._fuzzy(
                        geo[0].score or CONFIDENT_SCORE, geo[0].model_copy(update={"matched_on": None}), []
                    )
                note = f"geocoded: exact match on its name '{form}' said with a word of its kind ('{text}')"
                return self.make(geo[0], "geo", note, geo[0].score)
        return None

    def _of_kind(self, form: str, named: NameWithoutKind) -> list[Place]:
        """The places of ``named``'s kinds named ``form`` exactly (a street named alike is no place); in Chinese, the
        places a search finds whose own name, without its words of kind and city, is ``form``."""
        if not named.distinctive:
            found = [p for p in self.provider.geocode(form, city=self.city) if p.level in PRECISE_GEO_LEVELS]
            return [
                p for p in found if p.category in named.kinds and not (p.matched_on or "address").startswith("address")
            ]
        cities = self.cities()
        return [
            p
            for p in self.provider.search(form, city=self.city, limit=8)
            if p.category in named.kinds
            and any(distinctive(n, cities=cities) == form for n in (p.name, *_other_names(p)))
        ]

    def cities(self) -> frozenset[str]:
        """The request's city and the pack's city in every language it is named in."""
        region = getattr(self.provider, "region", None)
        return frozenset({self.city or "", *(region.city_names() if region is not None else ())} - {""})

    # ---- 2. text search, choosing by name, address and city -------------------------------------------
    def candidates(self) -> tuple[list[tuple[float, Place]], list[tuple[float, Place]]]:
        """Every place the searches found, best first, and those that look like the text ("did you mean" only
        what resembles it: a fuzzy candidate whose names do not is noise)."""
        raw, city = self.raw, self.city
        pool: dict[str, tuple[float, Place]] = {}
        for query in dict.fromkeys(q for q in (raw.name, raw.address) if q):
            for place in self.provider.search(query, city=city, limit=8):
                key = place.poi_id or format_location(place.lon, place.lat)
                score = score_of(raw, place)
                if (
                    city
                    and place.city
                    and normalize(place.city).removesuffix("市") != normalize(city).removesuffix("市")
                ):
                    score *= 0.85
                if key not in pool or score > pool[key][0]:
                    pool[key] = (score, place)
        everything = sorted(pool.values(), key=lambda sp: -sp[0])
        cities = self.cities()
        ranked = [(s, p) for s, p in everything if s >= CONFIDENT_SCORE or alike(raw, p, cities)]
        return everything, ranked

    def by_search(self, ranked: list[tuple[float, Place]]) -> Resolution | None:
        """The best candidate when it is clearly the one (else an ambiguity is asked); None: no candidate good
        enough, or one with another house number than the text's."""
        min_score = self.settings.fuzzy_min_score
        if not ranked or ranked[0][0] < min_score:
            return None
        score, best = ranked[0]
        wanted_no = house_number(canonical(self.raw.address))  # "2号航站楼" is a terminal (t2), not number 2
        if wanted_no is not None and house_number(best.address) != wanted_no:
            if similarity(self.raw.name, best.name) < CONFIDENT_SCORE:
                return None
        close = [(s, p) for s, p in ranked[1:] if s >= score - AMBIGUITY_MARGIN]
        whole = next(((s, p) for s, p in close if best.parent and p.poi_id == best.parent), None)
        if whole is not None:  # the text fits a part no better than its whole (no part named): the whole
            score, best = whole
            close = [(s, p) for s, p in ranked if s >= score - AMBIGUITY_MARGIN and p is not best]
        text = self.raw.label()
        if any(distinct(best, p) for _, p in close):
            shown = [(s, p) for s, p in ranked if s >= max(score - SHOWN_BAND, min_score)]
            raise ambiguous(self.who_text, choice_of(self.field_name, text, "close_scores", shown))
        if score < NEAR_MISS_BELOW:
            likely = [(s, p) for s, p in ranked if s >= min_score]
            raise ambiguous(self.who_text, choice_of(self.field_name, text, "near_miss", likely))
        return self._fuzzy(score, best, close)

    def _fuzzy(self, score: float, best: Place, close: list[tuple[float, Place]]) -> Resolution:
        source: PointSource = "text_search"
        note = f"text search: '{best.name}' (score {score:.0f})"
        self.notices.append(
            notice(
                "FUZZY_MATCH",
                detail=f"{self.who_text} is a fuzzy match: resolved to '{best.name}' ({best.address or 'no address'}), "
                f"score {score:.0f}/100",
                address=best.address or "",
                score=round(score),
                **self.named,
            )
        )
        if score < CONFIDENT_SCORE and best.poi_id:
            confirmed = self.provider.detail(best.poi_id)
            if confirmed is not None:
                best, source = confirmed, "search_detail"
                note += "; POI confirmed by detail look-up"
        close = [(s, p) for s, p in close if not whole_and_part(best, p)]  # the parts are said by their whole
        if close:  # close in score but at one spot (or a different kind nearby): said, not asked
            alt = close[0][1]
            metres = round(haversine_m(best.lon, best.lat, alt.lon, alt.lat))
            self.notices.append(
                notice(
                    "ALSO_FITS_NEARBY",
                    detail=f"{self.who_text} also fits '{alt.name}' ({close[0][0]:.0f}), {metres} m away",
                    alt=alt.name,
                    metres=metres,
                    **self.named,
                )
            )
            note += f"; also fits '{alt.name}' {metres} m away"
        return self.make(best, source, note, score)

    # ---- 3. fallbacks: the road or compound without the house number, then the coarse geocode ------------
    def by_fallbacks(self, coarse: Place | None) -> Resolution | None:
        raw, min_score = self.raw, self.settings.fuzzy_min_score
        road = strip_house_number(raw.address)
        if road and normalize(road) != normalize(raw.address) and len(normalize(road)) >= 2:
            near = [
                p
                for p in self.provider.search(road, city=self.city, limit=10)
                if similarity(road, p.address) >= min_score or similarity(road, p.name) >= min_score
            ]
            if near:
                anchor = coarse.lonlat if coarse else None
                best = min(near, key=lambda p: haversine_m(*anchor, p.lon, p.lat)) if anchor else near[0]
                note = (
                    f"fallback: '{raw.address}' not found; used the nearest known POI on '{road}': "
                    f"'{best.name}' ({best.address or 'no address'})"
                )
                detail = f"{self.who_text}: house number not found, fell back to '{best.name}' on '{road}' - check it"
                self.notices.append(notice("HOUSE_NUMBER_FALLBACK", detail=detail, road=road, **self.named))
                return self.make(best, "manual_fallback", note, None)
        if coarse is not None:
            note = f"fallback: only a road-level geocode was found for '{raw.address}'; no POI id"
            detail = f"{self.who_text}: resolved only to the road '{coarse.name}' (road-level coordinate)"
            self.notices.append(notice("ROAD_LEVEL_ONLY", detail=detail, **self.named))
            return self.make(coarse, "manual_fallback", note, None)
        return None

    def not_found(self, everything: list[tuple[float, Place]], ranked: list[tuple[float, Place]]) -> ResolutionError:
        hint = ""
        if ranked:
            best_score, best = ranked[0]
            hint = f"; closest candidate was '{best.name}' (score {best_score:.0f}, below {self.settings.fuzzy_min_score:.0f})"
        elif everything:  # nothing alike: not found, and no name offered (sharing the city's name is no likeness)
            hint = "; not found - no place in the map data resembles it"
        region = getattr(self.provider, "region", None)
        known = known_elsewhere(self.raw.label(), region) if region is not None else None
        if known is not None:
            hint += f"; '{known['place']}' is in {known['city']}, outside the map data's coverage"
        facts: dict[str, Any] = {"input": echo(self.raw.label())}
        if known:
            facts["outside"] = {self.field_name: known}
        return ResolutionError(f"could not resolve {self.who_text}{hint}", field=self.field_name, facts=facts)


def resolve_points(
    request: RoutePlanRequest,
    *,
    provider: MapServices,
    settings: Settings,
    default_city: str | None = None,
) -> ResolvedPoints:
    """Resolve origin (fixed only), every stop and the destination; report every failure at once."""
    notices: list[Notice] = []
    failures: list[ResolutionError] = []

    def run(raw: RawStop, role: Role, index: int | None = None) -> ResolvedPoint | None:
        try:
            res = resolve_point(
                raw, role=role, provider=provider, settings=settings, index=index, default_city=default_city
            )
        except ResolutionError as exc:
            failures.append(exc)
            return None
        notices.extend(res.notices)
        return res.point

    origin_raw = request.origin_stop()
    origin = run(origin_raw, "origin") if origin_raw else None
    stops = [run(s, "stop", i) for i, s in enumerate(request.stops)]
    destination = run(request.destination_stop(), "destination")
    if failures:
        message = "; ".join(f.message for f in failures)
        unresolved = [f for f in failures if not isinstance(f, AmbiguousPlaceError)]
        if len(failures) > 1:
            message = f"{len(failures)} places could not be resolved: {message}"
        if unresolved and provider.geocoder.name == "offline":
            message += f". The offline provider only knows the bundled places of region '{provider.region.name}'."
        candidates = {k: v for f in failures for k, v in f.candidates.items()}
        kind = ResolutionError if unresolved else AmbiguousPlaceError
        # every place not found, where a gazetteer knows it to be, and what the map data covers: one answer
        facts = {
            "not_found": [f.field for f in unresolved],
            "inputs": {f.field: f.facts["input"] for f in unresolved if f.field and "input" in f.facts},
            "outside": {k: v for f in unresolved for k, v in f.facts.get("outside", {}).items()},
            "coverage": coverage_facts(provider.region),
        }
        raise kind(
            message, field=failures[0].field, details=[f.field for f in failures], candidates=candidates, facts=facts
        )
    assert destination is not None
    return ResolvedPoints(
        origin=origin, stops=[s for s in stops if s is not None], destination=destination, notices=notices
    )


def same_place(a: ResolvedPoint, b: ResolvedPoint, *, tolerance_m: float = 15.0) -> bool:
    if a.poi_id and b.poi_id:
        return a.poi_id == b.poi_id
    return haversine_m(a.lon, a.lat, b.lon, b.lat) <= tolerance_m


def current_location_point(lon: float, lat: float) -> LonLat:
    return LonLat(lon, lat)
