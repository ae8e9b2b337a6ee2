"""The words of the route planner's HTML report (core/route/export.py) in the reader's language: the codes it shows
(sources, roles, strategies, modes), the region's name, the notices worded from their codes and facts
(core/route/notices.py) and the summary sentence (route.po)."""

from __future__ import annotations

from core.errors import OmniError
from core.i18n import join_words, t
from core.models.route import RoutePlanResult
from core.route.notices import core_names
from core.route.notices import words as notice_words

#: the words of the route's codes (route.po), for the report and the page: where a figure came from (MetricSource)
#: and how a point was found (PointSource)
SOURCE_KEYS = {
    "offline_estimate": "route.source.offline_estimate",
    "amap": "route.source.amap",
    "osrm": "route.source.osrm",
    "valhalla": "route.source.valhalla",
    "road_network": "route.source.road_network",
    "user_input": "route.source.user_input",
    "mixed": "route.source.mixed",
    "geo": "route.found.geo",
    "text_search": "route.found.text_search",
    "search_detail": "route.found.search_detail",
    "manual_fallback": "route.found.manual_fallback",
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


def source_words(code: str | None, lang: str) -> str:
    """``offline_estimate`` → "offline estimate"; "a, b" lists each; unknown codes stay as they are."""
    parts = [p.strip() for p in str(code or "").split(",") if p.strip()]
    return join_words((t(SOURCE_KEYS[p], lang) if p in SOURCE_KEYS else p for p in parts), lang)


def has_road_geometry(result: RoutePlanResult) -> bool:
    """Whether the best route is drawn along the roads (every leg's path came from a router)."""
    source = result.geometry_source or ""
    return bool(result.best_geometry) and not any(s in source for s in ("offline_estimate", "straight_line"))


def delta_words(value: float, unit: str, lang: str) -> str:
    """A difference to the best route in words: "0.5 km longer", "same time"."""
    if unit == "km":
        if abs(value) < 0.05:
            return t("route.delta.same_distance", lang)
        key = "route.delta.shorter" if value > 0 else "route.delta.longer"
        return t(key, lang, km=f"{abs(value):.1f}")
    if abs(value) < 0.5:
        return t("route.delta.same_time", lang)
    key = "route.delta.faster" if value > 0 else "route.delta.slower"
    return t(key, lang, minutes=f"{abs(value):.0f}")


def why_words(result: RoutePlanResult, lang: str) -> str:
    """Why the best order is first, from the candidates' figures: how it compares with the next one, and
    whether every order was compared."""
    best = result.best_route
    others = [c for i, c in enumerate(result.candidates) if i != result.best_index]
    runner = min(others, key=lambda c: c.rank or 0) if others else None
    strategy = t(STRATEGY_KEYS[result.route_strategy], lang)
    if runner is None:
        head = t("route.reason.only_one", lang, strategy=strategy)
    else:
        dkm = (runner.total_distance_m - best.total_distance_m) / 1000
        dmin = (runner.total_duration_s - best.total_duration_s) / 60
        head = t(
            "route.reason.best",
            lang,
            strategy=strategy,
            distance=delta_words(dkm, "km", lang),
            time=delta_words(dmin, "min", lang),
        )
    opt = result.optimizer
    if opt is None:
        return head
    if opt.exact:
        tail = t("route.reason.exact", lang, n=opt.orders_evaluated or 1)
    else:
        tail = t("route.reason.heuristic", lang)
    return t("route.reason.joined", lang, reason=head, search=tail)


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
    names = core_names(result, region_names(result.region, lang))
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
