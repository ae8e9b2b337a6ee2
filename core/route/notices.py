"""The route planner's notices: every code it can emit, the catalog key of its words, and how they are worded
(issue 12 §1: the core returns codes and facts, the words are chosen at the edge).

A notice is ``Notice(code, params, severity, detail)`` (core/models/route.py). ``NOTICES`` is the registry: a
code not listed here cannot be made (``notice`` raises), and ``tests/route/test_notices.py`` checks that every
code has words in both languages (locales/*/LC_MESSAGES/route.po) filled by its parameters. ``words`` fills the
words in one language; the result's ``warnings`` are the notices in English through it, so the CLI and the API
keep their sentences. The pages pass ``names`` (a place's label or found name → its name in the user's language,
a region's code → its display name) for the parameters that name places or regions.

Parameters shared by the resolver's notices: ``role`` (origin, stop, destination), ``stop`` (1-based, 0 for the
ends) and ``input`` (what the user typed) make ``{who}``; ``service`` and ``mode`` are worded from tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from core.geo.base import LoggedWarning
from core.i18n import t
from core.models.route import Notice, NoticeParam, NoticeSeverity

UNKNOWN_KEY = "route.warning.unknown"


WHO = ("role", "stop", "input")  # an input named: its role, its stop number (0 for the ends), what was typed


@dataclass(frozen=True)
class NoticeSpec:
    """A code's words (a catalog key), the parameters every notice of it carries, its severity, and which of its
    parameters name places (or a region)."""

    key: str
    params: tuple[str, ...] = ()
    severity: NoticeSeverity = "warning"
    places: tuple[str, ...] = ()


NOTICES: dict[str, NoticeSpec] = {
    # resolver (core/route/resolver.py)
    "FUZZY_MATCH": NoticeSpec("route.warning.fuzzy", (*WHO, "name", "address", "score"), places=("name",)),
    "ALSO_FITS_NEARBY": NoticeSpec("route.warning.also_fits", (*WHO, "name", "alt", "metres"), places=("name", "alt")),
    "SEVERAL_EXACT_ONE_SPOT": NoticeSpec(
        "route.warning.several_exact", (*WHO, "count", "name", "others"), places=("name",)
    ),
    "HOUSE_NUMBER_FALLBACK": NoticeSpec("route.warning.house_number", (*WHO, "name", "road"), places=("name",)),
    "ROAD_LEVEL_ONLY": NoticeSpec("route.warning.road_level", (*WHO, "name"), places=("name",)),
    "DISTRICT_CENTRE": NoticeSpec("route.warning.district_centre", (*WHO, "name"), places=("name",)),
    # planner (core/route/planner.py)
    "SAME_PLACE_STOPS": NoticeSpec("route.warning.same_place", ("a", "b", "name"), places=("name",)),
    "STOP_AT_ORIGIN": NoticeSpec("route.warning.stop_at_origin", ("n", "name"), places=("name",)),
    "START_OUTSIDE_REGION": NoticeSpec(
        "route.warning.start_outside_region", ("where", "region", "km"), places=("region",)
    ),
    "START_UNKNOWN": NoticeSpec("route.warning.start_unknown"),
    "OFF_NETWORK": NoticeSpec("route.warning.off_network", ("name", "region"), places=("name", "region")),
    "OFFLINE_ESTIMATES": NoticeSpec("route.warning.offline_estimates"),
    "OFFLINE_ESTIMATES_AT": NoticeSpec("route.warning.offline_estimates_at", ("mode", "circuity", "speed_kmh")),
    "GEOMETRY_MISSING": NoticeSpec("route.warning.geometry_missing", ("a", "b"), places=("a", "b")),
    "EXACT_LEGS_KEPT": NoticeSpec("route.warning.exact_legs_kept", ("n", "legs")),
    "LONG_WALK": NoticeSpec("route.warning.long_walk", ("n", "km", "total_km", "minutes")),
    # deep links (core/route/links.py)
    "PERSONAL_MAP_NO_IDS": NoticeSpec("route.warning.personal_map_no_ids", ("missing", "points")),
    "PERSONAL_MAP_NEEDS_MCP": NoticeSpec("route.warning.personal_map_needs_mcp"),
    "PERSONAL_MAP_FAILED": NoticeSpec("route.warning.personal_map_failed"),
    "PERSONAL_MAP_NOTE": NoticeSpec("route.warning.personal_map_note", severity="info"),
    "APP_LINK_VIAS": NoticeSpec(
        "route.warning.app_link_vias", ("vias", "covered", "total", "omitted", "end"), places=("end",)
    ),
    "WEB_NO_START": NoticeSpec("route.warning.web_no_start", severity="info"),
    "WEB_SPLIT": NoticeSpec("route.warning.web_split", ("n", "vias"), severity="info"),
    "CYCLING_LINKS": NoticeSpec("route.warning.cycling_links", severity="info"),
    "NAVIGATION_FAILED": NoticeSpec("route.warning.navigation_failed"),
    # map services (core/geo/resilience.py, drained from MapServices' WarningLog)
    "PROVIDER_FALLBACK": NoticeSpec("route.warning.provider_fallback", ("provider", "service", "used")),
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
}
WHO_KEYS = {"origin": "route.who.origin", "stop": "route.who.stop", "destination": "route.who.destination"}


def notice(code: str, *, detail: str | None = None, **params: NoticeParam) -> Notice:
    """A notice of a registered code with exactly the parameters the registry lists (its severity from there)."""
    spec = NOTICES[code]  # a KeyError here is a code without words: add it to NOTICES and route.po
    if set(params) != set(spec.params):
        raise ValueError(f"notice {code} takes {sorted(spec.params)}, not {sorted(params)}")
    return Notice(code=code, params=params, severity=spec.severity, detail=detail)


def who(role: str, stop: int, text: str) -> dict[str, NoticeParam]:
    """The parameters naming an input: its role, its stop number (1-based; 0 for the ends) and what was typed."""
    return {"role": role, "stop": stop, "input": text}


def from_log(entry: LoggedWarning) -> Notice:
    """A map service's warning as a notice (an unregistered code, or one without its parameters, reads as a general
    provider note; the service's English sentence is the detail either way)."""
    spec = NOTICES.get(entry.code)
    if spec is None or not set(spec.params) <= set(entry.params):
        return Notice(code="PROVIDER_NOTE", severity=NOTICES["PROVIDER_NOTE"].severity, detail=entry.message)
    params = {k: v for k, v in entry.params.items() if k in spec.params}
    return Notice(code=entry.code, params=params, severity=spec.severity, detail=entry.message)


def known(item: Notice) -> bool:
    return item.code in NOTICES


def words(item: Notice, lang: str, *, names: Mapping[str, str] | None = None) -> str:
    """The notice in ``lang``: its code's words with its parameters (places and regions named through ``names``,
    code-valued parameters worded); a code this build does not know gets a general sentence."""
    spec = NOTICES.get(item.code)
    if spec is None:
        return t(UNKNOWN_KEY, lang)
    params: dict[str, object] = dict(item.params)
    for name in spec.places:
        value = params.get(name)
        if isinstance(value, str) and names:
            params[name] = names.get(value, value)
    for name, table in VALUE_WORDS.items():
        value = params.get(name)
        if isinstance(value, str) and value in table:
            params[name] = t(table[value], lang)
    role = params.get("role")
    if isinstance(role, str) and role in WHO_KEYS:
        params["who"] = t(WHO_KEYS[role], lang, n=params.get("stop", 0), name=params.get("input", ""))
    return t(spec.key, lang, **params)


def unique(items: list[Notice]) -> list[Notice]:
    """The notices without repeats (the same code with the same facts), in order."""
    seen: dict[tuple[str, tuple[tuple[str, NoticeParam], ...]], Notice] = {}
    for item in items:
        seen.setdefault((item.code, tuple(sorted(item.params.items()))), item)
    return list(seen.values())


def english(items: list[Notice], *, names: Mapping[str, str] | None = None) -> list[str]:
    """The notices as English sentences, one each (the result's ``warnings``)."""
    return [words(item, "en", names=names) for item in items]
