"""How the resolver weighs and offers candidate places (core/route/resolver.py): how much a place looks like what
was typed (``similarity``, ``resembles``, ``alike``, ``score_of``), when two candidates are different places
(``distinct``, ``whole_and_part``), and the choice an ambiguity offers (``choice_of``, ``ambiguous``)."""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import fuzz

from core.errors import AmbiguousPlaceError
from core.geo.base import Place
from core.geo.coords import SAME_SPOT_M, haversine_m
from core.geo.text import normalize, resemblance, resembles_distinctly, strip_city_prefix
from core.models.route import AmbiguityReason, PlaceCandidate, PlaceChoice, RawStop, format_location

FAR_APART_M = 1000.0  # farther than this, two candidates are different destinations whatever their kind
#: a fuzzy candidate (below CONFIDENT_SCORE) is offered or taken only when its name really resembles the text
#: (core/geo/text.py resemblance: characters, words, transliteration). On the evaluation set every expected
#: place scores 75 or more, while 47 % of the other candidates above the fuzzy minimum score under 70
#: ("Qwerty Plaza" / "Radisson Blu Plaza" 57): 70 keeps every right answer and drops half the noise.
RESEMBLES_MIN = 70.0
MAX_CANDIDATES = 5


def similarity(query: str | None, text: str | None) -> float:
    q, t = normalize(query), normalize(text)
    if not q or not t:
        return 0.0
    q2 = strip_city_prefix(query or "") or q
    return max(fuzz.WRatio(q, t), fuzz.WRatio(q2, t)) * 0.8 + max(fuzz.ratio(q, t), fuzz.ratio(q2, t)) * 0.2


def resembles(raw: RawStop, place: Place) -> float:
    """The best resemblance of what was typed to any of the place's names or its address."""
    extra = place.raw
    forms = [place.name, getattr(extra, "name_en", None), *(getattr(extra, "aliases", None) or [])]
    typed = [t for t in (raw.name, raw.address) if t]
    named = (resemblance(t, f) for t in typed for f in forms if isinstance(f, str) and f)
    addressed = (resemblance(t, place.address, partial=False) for t in typed if place.address)
    return max([*named, *addressed], default=0.0)


def alike(raw: RawStop, place: Place, cities: frozenset[str]) -> bool:
    """Its names look like the text (``_resembles``), and not merely by a word of kind or of the city: "did you
    mean" offers "Kasvimuseo" for "Kasvimuseum", never "Kansalliskirjasto" for "National Museum of Finland"."""
    if resembles(raw, place) < RESEMBLES_MIN:
        return False
    extra = place.raw
    forms = [place.name, getattr(extra, "name_en", None), *(getattr(extra, "aliases", None) or [])]
    forms += [place.address, place.district]  # a district typed alone: the places in it ("杨浦区")
    typed = [t for t in (raw.name, raw.address) if t]
    return any(
        resembles_distinctly(t, f, cities=cities) >= RESEMBLES_MIN for t in typed for f in forms if isinstance(f, str)
    )


def score_of(raw: RawStop, place: Place) -> float:
    """The provider's own score when it gave one (it weighed aliases, pinyin, numbers and kinds), else the
    similarity of the input to the place's name and address."""
    if place.score is not None:
        return place.score
    return max(
        similarity(raw.name, place.name), similarity(raw.address, place.address), similarity(raw.address, place.name)
    )


def whole_and_part(a: Place, b: Place) -> bool:
    """One is a part of the other (an airport and its terminal, as the data links them)."""
    return bool(a.poi_id and b.poi_id and (a.poi_id == b.parent or b.poi_id == a.parent))


def distinct(a: Place, b: Place) -> bool:
    """Two candidates a route cannot treat as one: apart, and far apart or of one kind; or a district and a spot.
    A place and its part are not two answers: the whole is what its names mean, the part what its own name means."""
    if a.poi_id and a.poi_id == b.poi_id or whole_and_part(a, b):
        return False
    if (a.category == "district") != (b.category == "district"):
        return True  # a district and a place named alike: the whole area or the one spot in it, the user says which
    d = haversine_m(a.lon, a.lat, b.lon, b.lat)
    return d > FAR_APART_M or (d > SAME_SPOT_M and a.category is not None and a.category == b.category)


def choice_of(
    field_name: str, text: str, reason: AmbiguityReason, scored: Sequence[tuple[float | None, Place]]
) -> PlaceChoice:
    first = scored[0][1]
    options = [
        PlaceCandidate(
            poi_id=p.poi_id,
            name=p.name,
            name_en=getattr(p.raw, "name_en", None) or None,
            district=p.district,
            address=p.address,
            category=p.category,
            lon=p.lon,
            lat=p.lat,
            location=format_location(p.lon, p.lat),
            score=None if score is None else round(score, 1),
            distance_to_first_m=round(haversine_m(first.lon, first.lat, p.lon, p.lat)),
            source=p.source,
        )
        for score, p in scored[:MAX_CANDIDATES]
    ]
    spread = max((haversine_m(a.lon, a.lat, b.lon, b.lat) for a in options for b in options if a is not b), default=0.0)
    return PlaceChoice(field=field_name, input=text, reason=reason, spread_m=round(spread), options=options)


def ambiguous(who: str, choice: PlaceChoice) -> AmbiguousPlaceError:
    listed = ", ".join(
        f"'{o.name}'" + (f" ({o.district})" if o.district else "") for o in choice.options[:MAX_CANDIDATES]
    )
    why = {
        "close_scores": "fits several places",
        "several_exact": "names several places",
        "district": "names a whole district",
        "near_miss": "is not an exact match for any place",
        "parts": "names a place whose parts are far apart",
        "name_address": "has a name and an address that are different places",
    }[choice.reason]
    apart = f", up to {choice.spread_m / 1000:.1f} km apart" if choice.spread_m >= 1000 else ""
    message = f"{who} {why}: {listed}{apart}; choose one"
    return AmbiguousPlaceError(message, field=choice.field, candidates={choice.field: choice.model_dump()})
