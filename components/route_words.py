"""The route planner's result in words for people, in one language (route.po): place names, the summary, why the
best order won, the sources of the figures and the planner's notices.

No Streamlit here (unit-testable). Place names come from the region pack where the point is one of its places
(``name_en`` in English, ``name_zh`` in Chinese; the other is the tooltip); anything else keeps the name the user
typed. The core's own sentences (its English notes, ranking reason and optimiser note) stay available in the
page's "Details" section; here the facts are worded again. Notices are worded by their code (core/route/notices.py)
and name places by their points' ids, which ``notice_names`` turns into names in the reader's language; a code this
build does not know gets a general sentence, with the code in the details. A candidate's places are its ``points``
(the planner's visiting order), never rebuilt here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from core.app import route as route_app
from core.app.route import source_words, stops_words
from core.app.route import (
    why_words as why_words,  # the page and the report say the same
)
from core.i18n import Lang, t
from core.models.route import LIVE_ORIGIN, CandidateRoute, Notice, ResolvedPoint, RoutePlanResult
from core.models.route_views import PlaceNames
from core.words.route import ROLE_KEYS, SOURCE_KEYS, STRATEGY_KEYS, TRANSPORT_KEYS

LIVE_START = "route.point.live_start"
# the route's word tables live in core (the HTML report words the same codes)
ROLE_LABELS = ROLE_KEYS
SOURCE_LABELS = SOURCE_KEYS
STRATEGY_WORDS = STRATEGY_KEYS
TRANSPORT_WORDS = TRANSPORT_KEYS


@lru_cache(maxsize=8)
def pack_names(region: str | None) -> Mapping[str, tuple[str, str]]:
    """``{place id: (name_zh, name_en)}`` of a region pack (empty when it cannot be read)."""
    if not region:
        return {}
    from core.app.regions import load_region
    from core.errors import OmniError

    try:
        pack = load_region(region)
    except (OmniError, ValueError, OSError):
        return {}
    return {p.id: (p.name_zh, p.name_en) for p in pack.places}


@dataclass(frozen=True)
class Name:
    """A place as shown: its name in the chosen language and, for the tooltip, the other one (or "")."""

    shown: str
    other: str = ""


def found_name(point: ResolvedPoint, lang: Lang, region: str | None) -> Name:
    """The place a point was found as: the pack's name in ``lang`` (the other language in ``other``) for a pack
    place, else the name the provider gave."""
    zh, en = pack_names(region).get(point.poi_id or "", ("", ""))
    if zh or en:
        shown, alt = (en or zh, zh) if lang == "en" else (zh or en, en)
        return Name(shown, alt if alt and alt != shown else "")
    return Name(point.resolved_name)


def point_name(point: ResolvedPoint, lang: Lang, region: str | None) -> Name:
    """A point as shown along a route: the pack's name in ``lang`` for a pack place, else the typed name."""
    found = found_name(point, lang, region)
    return found if point.poi_id and point.poi_id in pack_names(region) else Name(point.label)


def route_points(result: RoutePlanResult, candidate: CandidateRoute | None = None) -> list[ResolvedPoint | None]:
    """The points of a candidate in visiting order (its ``points``): start (None for a live start), stops,
    destination."""
    return [point for _, point in result.visiting(candidate)]


def order_names(result: RoutePlanResult, candidate: CandidateRoute | None, lang: Lang) -> list[Name]:
    """The names along a candidate, in the chosen language (a live start is "my location")."""
    return [
        Name(t(LIVE_START, lang)) if p is None else point_name(p, lang, result.region)
        for p in route_points(result, candidate)
    ]


def order_text(result: RoutePlanResult, candidate: CandidateRoute | None, lang: Lang) -> str:
    return " → ".join(n.shown for n in order_names(result, candidate, lang))


def summary_words(result: RoutePlanResult, lang: Lang) -> str:
    """One sentence: the order, the totals, how and with which figures."""
    best = result.best_route
    return t(
        "route.summary",
        lang,
        stops=stops_words(len(result.resolved_stops), lang),
        km=f"{best.total_distance_m / 1000:.1f}",
        minutes=f"{best.total_duration_s / 60:.0f}",
        transport=t(TRANSPORT_WORDS[result.transport_mode], lang),
        source=source_words(result.metric_source, lang),
    )


# --- notices -------------------------------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def region_display(region: str | None, lang: Lang) -> str | None:
    """A region pack's display name in ``lang`` (None when the pack cannot be read)."""
    if not region:
        return None
    from core.app.regions import load_region
    from core.errors import OmniError

    try:
        display = load_region(region).display_name
    except (OmniError, ValueError, OSError):
        return None
    return display.get(lang) or display.get("en") or None


def notice_names(result: RoutePlanResult, lang: Lang) -> PlaceNames:
    """How the notices name places in ``lang``: by point id, the place along the route (``point_name``; the live
    start is "my location") and the place found for an input (``found_name``); the region by its display name."""
    points = [result.resolved_origin, *result.resolved_stops, result.resolved_destination]
    region = result.region
    route = {LIVE_ORIGIN: t(LIVE_START, lang)}
    route |= {p.id: point_name(p, lang, region).shown for p in points if p is not None}
    found = {p.id: found_name(p, lang, region).shown for p in points if p is not None}
    shown = region_display(region, lang)
    part_ids = {i for n in result.notices for i in str(n.params.get("part_ids") or "").split(",") if i}
    pack = pack_names(region) if part_ids else {}
    places = {}
    for place_id in part_ids & pack.keys():
        zh, en = pack[place_id]
        places[place_id] = (en or zh) if lang == "en" else (zh or en)
    return PlaceNames(route=route, found=found, regions={region: shown} if region and shown else {}, places=places)


def notice_words(notice: Notice, lang: Lang, names: PlaceNames | None = None) -> tuple[str, bool]:
    """``(sentence, known)``: the notice in ``lang`` from its code (core/route/notices.py, route.po); a code this
    build cannot word gets a general sentence with ``known=False``, and the page shows the code in its details."""
    return route_app.notice_words(notice, lang, names=names), route_app.notice_known(notice)
