"""The words of the route planner's HTML report (core/route/export.py) in the reader's language: the codes it shows
(sources, roles, strategies, modes), the region's name, the notices worded from their codes and facts
(core/route/notices.py) and the summary sentence (route.po)."""

from __future__ import annotations

from core.errors import OmniError
from core.i18n import t
from core.models.route import RoutePlanResult
from core.route.notices import words as notice_words

#: the words of the codes the report shows (route.po)
SOURCE_KEYS = {
    "offline_estimate": "route.source.offline_estimate",
    "amap": "route.source.amap",
    "osrm": "route.source.osrm",
    "valhalla": "route.source.valhalla",
    "road_network": "route.source.road_network",
    "user_input": "route.source.user_input",
    "mixed": "route.source.mixed",
}
ROLE_KEYS = {"origin": "route.role.origin", "stop": "route.role.stop", "destination": "route.role.destination"}
STRATEGY_KEYS = {
    "shortest_distance": "route.strategy.shortest_distance",
    "fastest_time": "route.strategy.fastest_time",
    "balanced": "route.strategy.balanced",
}
TRANSPORT_KEYS = {
    "driving": "route.transport.driving",
    "walking": "route.transport.walking",
    "cycling": "route.transport.cycling",
}


def word(table: dict[str, str], code: str | None, lang: str) -> str:
    """A code's words in ``lang`` from ``table`` (a code the table lacks stays as it is)."""
    return t(table[code], lang) if code in table else str(code or "")


def region_names(region: str | None, lang: str) -> dict[str, str]:
    """The region's code → its display name in ``lang`` (nothing when its pack cannot be read)."""
    if not region:
        return {}
    from core.packs.loader import load_region

    try:
        pack = load_region(region)
    except (OmniError, OSError, ValueError):
        return {}
    return {region: pack.display_name.get(lang) or pack.display_name.get("en") or region}


def notice_lines(result: RoutePlanResult, *, lang: str = "en") -> list[str]:
    """The result's warnings in ``lang``: its notices worded from their codes and facts; in English, or when the
    result carries no notice for every warning (a result from an older build), its own sentences."""
    if lang == "en" or len(result.notices) != len(result.warnings):
        return list(result.warnings)
    names = region_names(result.region, lang)
    return [notice_words(item, lang, names=names) for item in result.notices]


def summary_line(result: RoutePlanResult, *, lang: str = "en") -> str:
    """The result's summary in ``lang`` (English keeps the planner's own, fuller sentence)."""
    if lang == "en" or not result.success:
        return result.summary
    best = result.best_route
    return t(
        "route.summary",
        lang,
        stops=len(result.resolved_stops),
        km=f"{best.total_distance_m / 1000:.1f}",
        minutes=f"{best.total_duration_s / 60:.0f}",
        transport=word(TRANSPORT_KEYS, result.transport_mode, lang),
        source=word(SOURCE_KEYS, result.metric_source, lang),
    )
