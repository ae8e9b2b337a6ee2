"""The route planner's notices: every code it can emit, the catalog key of its words, and how they are worded
(issue 12 §1: the core returns codes and facts, the words are chosen at the edge).

A notice is ``Notice(code, params, severity, detail)`` (core/models/route.py). ``NOTICES`` is the registry: a
code not listed here cannot be made (``notice`` raises), and ``tests/route/test_notices.py`` checks that every
code has words in both languages (locales/*/LC_MESSAGES/route.po) filled by its parameters. ``words`` fills the
words in one language; the result's ``warnings`` are the notices in English through it, so the CLI and the API
keep their sentences.

A notice names a place by the id of its point in the result (``core.models.route.point_id``: ``origin``,
``live_origin``, ``stops.N``, ``destination``; issue 19), never by a label: the ``point`` parameter, and the
parameters a spec lists in ``points`` (``a``/``b`` of a missing path, ``end`` of the app links). ``words`` names
them through ``PlaceNames``, which the reader builds in its language (the pages from the region pack, the core's
English from the labels, ``core_names``): ``point`` fills ``{name}`` (the place found for it where the spec says
``found``, else the place along the route), a ``points`` parameter is replaced by its place's name, a ``regions``
parameter (a region's code) by the region's name.

The resolver's notices carry ``point`` and ``input`` (what the user typed), which make ``{who}`` ("Stop 3 '…'");
``service`` and ``mode`` are worded from tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from core.geo.base import LoggedWarning
from core.i18n import Lang, t
from core.models.route import LIVE_ORIGIN, Notice, NoticeParam, NoticeSeverity, ResolvedPoint, RoutePlanResult
from core.models.route_views import PlaceNames

UNKNOWN_KEY = "route.warning.unknown"


WHO = ("point", "input")  # an input named: its point's id (origin, destination, stops.N) and what was typed
#: the English name of the user's live start in the core's sentences (as the planner's legs label it)
LIVE_ORIGIN_LABEL = "我的位置 (current location)"


@dataclass(frozen=True)
class NoticeSpec:
    """A code's words (a catalog key), the parameters every notice of it carries, its severity; which parameters
    hold point ids worded as their place (``points``; ``point`` always fills ``{name}``), whether ``point`` is
    named as the place found for the input (``found``) rather than as the place along the route, and which
    parameters are region codes (``regions``)."""

    key: str
    params: tuple[str, ...] = ()
    severity: NoticeSeverity = "warning"
    points: tuple[str, ...] = ()
    found: bool = False
    regions: tuple[str, ...] = ()
    #: parameters added later, with the value a notice recorded before them reads as (its words stay whole)
    later: Mapping[str, str] = field(default_factory=dict)


NOTICES: dict[str, NoticeSpec] = {
    # resolver (core/route/resolver.py)
    # (``alt``: the other place's name as the map data gives it, not a point of the result)
    "FUZZY_MATCH": NoticeSpec("route.warning.fuzzy", (*WHO, "address", "score"), found=True),
    "ALSO_FITS_NEARBY": NoticeSpec("route.warning.also_fits", (*WHO, "alt", "metres"), found=True),
    "SEVERAL_EXACT_ONE_SPOT": NoticeSpec("route.warning.several_exact", (*WHO, "count", "others"), found=True),
    "HOUSE_NUMBER_FALLBACK": NoticeSpec("route.warning.house_number", (*WHO, "road"), found=True),
    "ROAD_LEVEL_ONLY": NoticeSpec("route.warning.road_level", WHO, found=True),
    "DISTRICT_CENTRE": NoticeSpec("route.warning.district_centre", WHO, found=True),
    # (``parts``: the parts' names as the map data gives them, ", "-joined; ``count``: how many)
    # (``part_ids``: the parts' place ids, comma-separated, for a reader's own names; "" in a notice from before)
    "PLACE_HAS_PARTS": NoticeSpec(
        "route.warning.place_parts", (*WHO, "parts", "part_ids", "count"), found=True, later={"part_ids": ""}
    ),
    # (``km``: how far apart its farthest two parts are, one decimal)
    "PLACE_PARTS_APART": NoticeSpec(
        "route.warning.place_parts_apart",
        (*WHO, "parts", "part_ids", "count", "km"),
        found=True,
        later={"part_ids": ""},
    ),
    # (``arrival``: the part whose point the whole's is, as the map data names it; ``arrival_id`` its place id, for a
    # reader's own name; Hongqiao airport is its T2 terminal, issue 31 §5)
    "PLACE_PARTS_ARRIVAL": NoticeSpec(
        "route.warning.place_parts_arrival",
        (*WHO, "parts", "part_ids", "count", "km", "arrival", "arrival_id"),
        found=True,
    ),
    # (``named``: the place the name alone is, as the map data names it; the route goes to the address's point)
    "NAME_ADDRESS_APART": NoticeSpec(
        "route.warning.name_address_apart", (*WHO, "named", "address", "metres"), found=True
    ),
    # planner (core/route/planner.py)
    "SAME_PLACE_STOPS": NoticeSpec("route.warning.same_place", ("a", "b", "point"), found=True),
    "STOP_AT_ORIGIN": NoticeSpec("route.warning.stop_at_origin", ("n", "point")),
    "START_OUTSIDE_REGION": NoticeSpec(
        "route.warning.start_outside_region", ("where", "region", "km"), regions=("region",)
    ),
    "START_UNKNOWN": NoticeSpec("route.warning.start_unknown"),
    # scope before answer (issue 31): a stop found outside the region's bounds; a request planned in the installed
    # region that covers the place it names (core/app/scope.py)
    "STOP_OUTSIDE_REGION": NoticeSpec(
        "route.warning.stop_outside_region", ("n", "point", "region"), found=True, regions=("region",)
    ),
    "REGION_SWITCHED": NoticeSpec(
        "route.warning.region_switched", ("named", "region", "active"), severity="info", regions=("region", "active")
    ),
    "OFF_NETWORK": NoticeSpec("route.warning.off_network", ("point", "region"), regions=("region",)),
    "OFFLINE_ESTIMATES": NoticeSpec("route.warning.offline_estimates"),
    "OFFLINE_ESTIMATES_AT": NoticeSpec("route.warning.offline_estimates_at", ("mode", "circuity", "speed_kmh")),
    # on straight-line estimates time is distance over one speed: the strategies cannot choose different orders
    "STRATEGIES_AGREE_ON_ESTIMATES": NoticeSpec("route.warning.strategies_agree_on_estimates", severity="info"),
    "GEOMETRY_MISSING": NoticeSpec("route.warning.geometry_missing", ("a", "b"), points=("a", "b")),
    "EXACT_LEGS_KEPT": NoticeSpec("route.warning.exact_legs_kept", ("n", "legs")),
    "LONG_WALK": NoticeSpec("route.warning.long_walk", ("n", "km", "total_km", "minutes")),
    # issue 20 §5: a place's walking and cycling figures measured from its door in the map data
    "ENTRANCE_USED": NoticeSpec("route.warning.entrance_used", ("point",), severity="info"),
    # deep links (core/route/links.py)
    # a region where AMap's app and web navigation do not go: no links at all
    "LINKS_OUTSIDE_AMAP": NoticeSpec(
        "route.warning.links_outside_amap", ("region",), severity="info", regions=("region",)
    ),
    "PERSONAL_MAP_NO_IDS": NoticeSpec("route.warning.personal_map_no_ids", ("missing", "points")),
    "PERSONAL_MAP_NEEDS_MCP": NoticeSpec("route.warning.personal_map_needs_mcp"),
    "PERSONAL_MAP_FAILED": NoticeSpec("route.warning.personal_map_failed"),
    "PERSONAL_MAP_NOTE": NoticeSpec("route.warning.personal_map_note", severity="info"),
    # deep_link_mode=auto (issue 20 §4): which links were chosen, and why
    "AUTO_PERSONAL_MAP": NoticeSpec("route.warning.auto_personal_map", ("total",), severity="info"),
    "AUTO_ROUTE_PLAN_NO_IDS": NoticeSpec("route.warning.auto_route_plan_no_ids", ("missing", "total"), severity="info"),
    "AUTO_ROUTE_PLAN_NO_MCP": NoticeSpec("route.warning.auto_route_plan_no_mcp", severity="info"),
    "APP_LINK_VIAS": NoticeSpec(
        "route.warning.app_link_vias", ("vias", "covered", "total", "omitted", "end"), points=("end",)
    ),
    "WEB_NO_START": NoticeSpec("route.warning.web_no_start", severity="info"),
    "WEB_SPLIT": NoticeSpec("route.warning.web_split", ("n", "vias"), severity="info"),
    "CYCLING_LINKS": NoticeSpec("route.warning.cycling_links", severity="info"),
    "NAVIGATION_FAILED": NoticeSpec("route.warning.navigation_failed"),
    # map services (core/geo/resilience.py, drained from MapServices' WarningLog)
    # how the service failed (issue 21): "timeout", "unavailable", "malformed", "rate_limited", "quota",
    # "daily_quota" (the day's quota, counted here or refused by AMap: it resets at 00:00 Beijing time),
    # "key_refused", "circuit_open", "failed" (a warning logged before the cause was kept reads as "failed")
    "PROVIDER_FALLBACK": NoticeSpec(
        "route.warning.provider_fallback", ("provider", "service", "used", "cause"), later={"cause": "failed"}
    ),
    # a service the plan's time for providers did not reach: never asked, so it did not fail
    "PROVIDER_NOT_REQUESTED": NoticeSpec("route.warning.provider_not_requested", ("provider", "service", "used")),
    "PROVIDER_PAIRS_ESTIMATED": NoticeSpec("route.warning.pairs_estimated", ("provider", "count", "total", "mode")),
    "PROVIDER_PAIRS_UNREACHABLE": NoticeSpec("route.warning.pairs_unreachable", ("provider", "count", "total", "mode")),
    "PROVIDER_NOTE": NoticeSpec("route.warning.provider_note"),
}

#: the words of parameters whose values are codes
VALUE_WORDS: dict[str, dict[str, str]] = {
    "service": {
        "geocode": "route.service.geocode",
        "search": "route.service.search",
        "detail": "route.service.detail",
        "matrix": "route.service.matrix",
        "route": "route.service.route",
    },
    "mode": {
        "driving": "route.transport.driving",
        "walking": "route.transport.walking",
        "cycling": "route.transport.cycling",
    },
    "cause": {
        "timeout": "route.cause.timeout",
        "unavailable": "route.cause.unavailable",
        "malformed": "route.cause.malformed",
        "rate_limited": "route.cause.rate_limited",
        "quota": "route.cause.quota",
        "daily_quota": "route.cause.daily_quota",
        "key_refused": "route.cause.key_refused",
        "circuit_open": "route.cause.circuit_open",
        "failed": "route.cause.failed",
    },
}
WHO_KEYS = {"origin": "route.who.origin", "stop": "route.who.stop", "destination": "route.who.destination"}


def notice(code: str, *, detail: str | None = None, **params: NoticeParam) -> Notice:
    """A notice of a registered code with exactly the parameters the registry lists (its severity from there)."""
    spec = NOTICES[code]  # a KeyError here is a code without words: add it to NOTICES and route.po
    if set(params) != set(spec.params):
        raise ValueError(f"notice {code} takes {sorted(spec.params)}, not {sorted(params)}")
    return Notice(code=code, params=params, severity=spec.severity, detail=detail)


def who(point: str, text: str) -> dict[str, NoticeParam]:
    """The parameters naming an input: its point's id (``point_id``) and what was typed."""
    return {"point": point, "input": text}


def _role(point: str) -> tuple[str, int]:
    """A point id's role and stop number (1-based; 0 for the ends)."""
    if point.startswith("stops.") and point.removeprefix("stops.").isdigit():
        return "stop", int(point.removeprefix("stops.")) + 1
    return ("origin" if point == LIVE_ORIGIN else point), 0


def from_log(entry: LoggedWarning) -> Notice:
    """A map service's warning as a notice (an unregistered code, or one without its parameters, reads as a general
    provider note; the service's English sentence is the detail either way)."""
    spec = NOTICES.get(entry.code)
    if spec is None or not set(spec.params) - set(spec.later) <= set(entry.params):
        return Notice(code="PROVIDER_NOTE", severity=NOTICES["PROVIDER_NOTE"].severity, detail=entry.message)
    params = {**spec.later, **{k: v for k, v in entry.params.items() if k in spec.params}}
    return Notice(code=entry.code, params=params, severity=spec.severity, detail=entry.message)


def known(item: Notice) -> bool:
    return item.code in NOTICES


def words(item: Notice, lang: Lang, *, names: PlaceNames | None = None) -> str:
    """The notice in ``lang``: its code's words with its parameters (points and regions named through ``names``,
    code-valued parameters worded); a code this build does not know gets a general sentence."""
    spec = NOTICES.get(item.code)
    if spec is None:
        return t(UNKNOWN_KEY, lang)
    names = names or PlaceNames()
    params: dict[str, object] = {**spec.later, **item.params}
    point = params.get("point")
    if isinstance(point, str):
        params["name"] = (names.found if spec.found else names.route).get(point) or names.route.get(point, point)
        point_role, stop = _role(point)
        params.update(role=point_role, stop=stop)
    for name in spec.points:
        value = params.get(name)
        if isinstance(value, str):
            params[name] = names.route.get(value, value)
    part_ids = [i for i in str(params.get("part_ids") or "").split(",") if i]
    if part_ids and all(i in names.places for i in part_ids):
        params["parts"] = ", ".join(names.places[i] for i in part_ids)
    arrival_id = params.get("arrival_id")
    if isinstance(arrival_id, str) and arrival_id in names.places:
        params["arrival"] = names.places[arrival_id]
    for name in spec.regions:
        value = params.get(name)
        if isinstance(value, str):
            params[name] = names.regions.get(value, value)
    for name, table in VALUE_WORDS.items():
        value = params.get(name)
        if isinstance(value, str) and value in table:
            params[name] = t(table[value], lang)
    role = params.get("role")  # (a notice stored before issue 19 carries role and stop itself)
    if isinstance(role, str) and role in WHO_KEYS:
        params["who"] = t(WHO_KEYS[role], lang, n=params.get("stop", 0), name=params.get("input", ""))
    return t(spec.key, lang, **params)


def core_names(result: RoutePlanResult, regions: Mapping[str, str] | None = None) -> PlaceNames:
    """The core's own names of a result's places (the labels along the route, the names the map data gave, the
    live start's label), for its English sentences and its report; ``regions`` a region code → its name."""
    points = [result.resolved_origin, *result.resolved_stops, result.resolved_destination]
    return point_names([p for p in points if p is not None], regions)


def point_names(
    points: list[ResolvedPoint],
    regions: Mapping[str, str] | None = None,
    places: Mapping[str, str] | None = None,
) -> PlaceNames:
    """``core_names`` of resolved points (before there is a result); ``places``: the names of places by id, in the
    sentences' language (a place's parts, and the place a point was found as: named so where it has a name in that
    language, else as the map data gave it)."""
    places = dict(places or {})
    route = {p.id: p.label for p in points}
    route[LIVE_ORIGIN] = LIVE_ORIGIN_LABEL
    return PlaceNames(
        route=route,
        found={p.id: places.get(p.poi_id or "", p.resolved_name) for p in points},
        regions=dict(regions or {}),
        places=places,
    )


def unique(items: list[Notice]) -> list[Notice]:
    """The notices without repeats (the same code with the same facts), in order."""
    seen: dict[tuple[str, tuple[tuple[str, NoticeParam], ...]], Notice] = {}
    for item in items:
        seen.setdefault((item.code, tuple(sorted(item.params.items()))), item)
    return list(seen.values())


def english(items: list[Notice], *, names: PlaceNames | None = None) -> list[str]:
    """The notices as English sentences, one each (the result's ``warnings``)."""
    return [words(item, "en", names=names) for item in items]
