"""The words of the route planner's HTML report (core/route/export.py) in the reader's language: the codes it shows
(sources, roles, strategies, modes), the region's name, the notices worded from their codes and facts
(core/route/notices.py) and the summary sentence (route.po)."""

from __future__ import annotations

import math
from typing import Literal

from core import i18n
from core.i18n import Lang, join_words, t
from core.models.region import RegionPack
from core.models.route import LIVE_ORIGIN, CandidateRoute, OptimizerInfo, ResolvedPoint, RoutePlanResult
from core.models.route_views import PlaceNames
from core.route.notices import core_names
from core.route.notices import words as notice_words
from core.route.stage_types import PlanStage

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
    "user_location": "route.found.user_location",
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
#: how the AMap links were made (RouteLinks.mode_used)
LINK_MODE_KEYS = {"personal_map": "route.deep_link.personal_map", "route_plan": "route.deep_link.route_plan"}


def provider_key(kind: Literal["provider", "provider.short", "places", "travel"], name: str) -> str:
    """The catalog key (common.po) of a map service's name in words, derived from its name in the provider registry
    (core/geo/registry.py): ``common.places.<name>`` for a geocoder, ``common.travel.<name>`` for a router,
    ``common.provider.<name>`` (and ``.short.``) for a name that is a whole provider (``offline``, ``amap``); a
    hyphen is written ``_``. A new service needs no table here, only its words in both catalogs."""
    return f"common.{kind}.{name.replace('-', '_')}"


def _worded(key: str) -> bool:
    return any(i18n.has(key, lang) for lang in i18n.LANGS)


def _service_words(kind: Literal["places", "travel"], name: str, lang: Lang) -> str:
    """A geocoder's or a router's name in words; one without words stays as it is."""
    key = provider_key(kind, name)
    return t(key, lang) if name and _worded(key) else name


def provider_words(name: str | None, lang: Lang, *, short: bool = False) -> str:
    """A provider's name in words: a whole provider ("offline"; ``short``: its name alone, "Offline") or its places
    and travel services ("pack+osrm"); a part this build does not know stays as it is."""
    name = name or ""
    whole = provider_key("provider.short" if short else "provider", name)
    if name and "+" not in name and _worded(whole):
        return t(whole, lang)
    places, _, travel = name.partition("+")
    return t(
        "common.provider.pair",
        lang,
        places=_service_words("places", places, lang),
        travel=_service_words("travel", travel, lang),
    )


def word(table: dict[str, str], code: str | None, lang: Lang) -> str:
    """A code's words in ``lang`` from ``table`` (a code the table lacks stays as it is)."""
    return t(table[code], lang) if code in table else str(code or "")


#: what an exact look-up matched (ResolvedPoint.matched_on): said instead of the general "exact address match"
MATCH_KEYS = {
    "name": "route.found.match.name",
    "name_en": "route.found.match.name",
    "alias": "route.found.match.alias",
    "address": "route.found.match.address",
    "name_form": "route.found.match.form",
    "name_en_form": "route.found.match.form",
    "alias_form": "route.found.match.form",
    "address_form": "route.found.match.address_form",
    "name_part": "route.found.match.part",
    "name_en_part": "route.found.match.part",
    "alias_part": "route.found.match.part",
    "address_part": "route.found.match.address_part",
    "name_kind": "route.found.match.kind",  # "Ateneumin taidemuseo": the name "Ateneum" with a word of its kind
}


def found_by_words(point: ResolvedPoint, lang: Lang) -> str:
    """How a point was found, in ``lang``: what the look-up really matched where the map data says (its name, one
    of its other names, its address, written another way or in part), else the source's words."""
    if point.source == "geo" and point.matched_on in MATCH_KEYS:
        return t(MATCH_KEYS[point.matched_on], lang)
    return source_words(point.source, lang)


def source_words(code: str | None, lang: Lang) -> str:
    """``offline_estimate`` → "offline estimate"; "a, b" lists each; unknown codes stay as they are."""
    parts = [p.strip() for p in str(code or "").split(",") if p.strip()]
    return join_words((t(SOURCE_KEYS[p], lang) if p in SOURCE_KEYS else p for p in parts), lang)


def strategies_sentence(result: RoutePlanResult, lang: Lang) -> str | None:
    """Why the strategies pick one order, when they do: on straight-line estimates they cannot differ (time is
    distance at one speed); on other figures, when every candidate is best for all of them or none. None: they
    differ, the candidates show how."""
    if result.straight_line_estimate:
        return t("route.strategies_agree.estimates", lang)
    if len({s for c in result.candidates for s in c.best_for}) < 2:
        return None
    if any(len(c.best_for) == 1 for c in result.candidates):
        return None
    return t("route.strategies_agree.figures", lang)


def delta_words(value: float, unit: str, lang: Lang) -> str:
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


def why_words(result: RoutePlanResult, lang: Lang) -> str:
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
    beaten = beaten_words(result, lang)
    if beaten:
        head = t("route.reason.joined", lang, reason=head, search=beaten)
    opt = result.optimizer
    if opt is None:
        return head
    return t("route.reason.joined", lang, reason=head, search=search_words(opt, lang))


#: differences the page shows as "same distance" / "same time" (``delta_words``)
_SAME_M, _SAME_S = 50, 30


def beaten_words(result: RoutePlanResult, lang: Lang) -> str:
    """Why the best "fastest time" order is not the fastest shown (or the best "shortest distance" order not the
    shortest), when another candidate beats it in the figures on the page: a near-tie the strategy resolves by
    the other total, legs measured again after the ranking, or rounded legs. "" when nothing shown beats it."""
    strategy = result.route_strategy
    if strategy not in ("fastest_time", "shortest_distance"):
        return ""
    best = result.best_route
    on_time = strategy == "fastest_time"

    def total(c: CandidateRoute) -> float:
        return c.total_duration_s if on_time else c.total_distance_m

    rivals = [c for c in result.candidates if total(best) - total(c) > (_SAME_S if on_time else _SAME_M)]
    if not rivals:
        return ""
    rival = min(rivals, key=total)
    gap = total(best) - total(rival)
    amount = f"{gap / 60:.0f}" if on_time else f"{gap / 1000:.1f}"
    facts = {"rank": rival.rank or "—", "amount": amount}
    kind = "time" if on_time else "distance"
    tolerance = result.optimizer.tie_tolerance if result.optimizer is not None else None
    if tolerance is not None and total(best) <= total(rival) * (1 + tolerance) + 1e-9:
        return t(f"route.reason.beaten_{kind}.near_tie", lang, pct=f"{tolerance * 100:g}", **facts)
    if "directions" in (best.measured_by, rival.measured_by) or "partly_directions" in (
        best.measured_by,
        rival.measured_by,
    ):
        return t(f"route.reason.beaten_{kind}.measured", lang, **facts)
    return t(f"route.reason.beaten_{kind}.rounded", lang, **facts)


ENGINE_KEYS = {"ils_2opt_oropt": "route.engine.ils_2opt_oropt", "ortools_gls": "route.engine.ortools_gls"}
#: n! is worded only while it is a count a person can read (18 stops: 6.4e15)
_COUNTABLE_STOPS = 18


def _possible_orders(opt: OptimizerInfo) -> int | None:
    """n! for the stops (a result stored before ``orders_possible`` existed gets it from its stop count)."""
    if opt.orders_possible is not None:
        return opt.orders_possible
    return math.factorial(opt.stops) if opt.stops <= _COUNTABLE_STOPS else None


def search_words(opt: OptimizerInfo, lang: Lang) -> str:
    """What the order search did, exactly (issue 23): every order listed (enumeration), an exact dynamic
    programme that proves the optimum without listing them (Held-Karp), or a heuristic with its budget; and, where
    ``max_permutations`` bounded the orders ranked, how many the search found and how many were ranked."""
    said = _method_words(opt, lang)
    limit = opt.max_permutations
    found = opt.orders_found  # None: a result stored before the bound, whose ranking it did not bound
    if opt.method in ("held_karp", "heuristic") and limit is not None and found is not None:
        bound = t(
            "route.search.bounded",
            lang,
            limit=f"{limit:,}",
            found=f"{found:,}",
            ranked=f"{opt.orders_ranked:,}" if opt.orders_ranked is not None else "—",
        )
        return t("route.reason.joined", lang, reason=said, search=bound)
    return said


def _method_words(opt: OptimizerInfo, lang: Lang) -> str:
    possible = _possible_orders(opt)
    ranked = opt.orders_ranked if opt.orders_ranked is not None else opt.orders_evaluated
    if opt.method == "trivial" or opt.stops <= 1:
        return t("route.search.trivial", lang)
    if opt.method == "enumeration":
        n = opt.orders_evaluated or possible or 0
        return t("route.search.enumeration", lang, possible=f"{n:,}", stops=opt.stops)
    if opt.method == "held_karp" and possible is not None:
        return t(
            "route.search.held_karp",
            lang,
            stops=opt.stops,
            possible=f"{possible:,}",
            ranked=f"{ranked:,}" if ranked is not None else "—",
        )
    engines = join_words(
        (t(ENGINE_KEYS.get(code, "route.engine.other"), lang) for code in opt.engines or ["other"]), lang
    )
    facts = {
        "stops": opt.stops,
        "exact_limit": opt.exact_limit if opt.exact_limit is not None else "—",
        "engines": engines,
        "seconds": f"{(opt.time_limit_s or 0) / 2:g}",
        "ranked": f"{ranked:,}" if ranked is not None else "—",
    }
    if opt.kicks and opt.search_stop in ("stall", "no_moves"):  # it stopped because it stopped improving
        return t("route.search.heuristic_stall", lang, kicks=f"{opt.kicks:,}", **facts)
    if opt.kicks and opt.search_stop == "max_kicks":
        return t("route.search.heuristic_max_kicks", lang, kicks=f"{opt.kicks:,}", **facts)
    if opt.kicks:  # the clock ended it (or an older result that does not say)
        return t("route.search.heuristic_kicks", lang, kicks=f"{opt.kicks:,}", **facts)
    return t("route.search.heuristic", lang, **facts)


def region_names(pack: RegionPack | None, lang: Lang) -> dict[str, str]:
    """The region's code → its display name in ``lang`` (nothing without its pack)."""
    if pack is None:
        return {}
    return {pack.name: pack.display_name.get(lang) or pack.display_name.get("en") or pack.name}


def notice_lines(result: RoutePlanResult, *, lang: Lang = "en", pack: RegionPack | None) -> list[str]:
    """The result's warnings in ``lang``: its notices worded from their codes and facts, its places named in
    ``lang`` (``reader_names``); only a result that carries no notice for every warning (from an older build) keeps
    its own sentences."""
    if len(result.notices) != len(result.warnings):
        return list(result.warnings)
    names = reader_names(result, lang, pack)
    return [notice_words(item, lang, names=names) for item in result.notices]


def reader_names(result: RoutePlanResult, lang: Lang, pack: RegionPack | None) -> PlaceNames:
    """How a reader of ``lang`` names the result's places: a pack place by its name in ``lang`` (else its local
    name), anything else as typed or as the map data gave it; the region by its display name."""
    core = core_names(result, region_names(pack, lang))
    points = [p for p in (result.resolved_origin, *result.resolved_stops, result.resolved_destination) if p]
    route = dict(core.route) | {p.id: place_name(p, pack, lang) for p in points}
    route[LIVE_ORIGIN] = t("route.export.live_name", lang)
    found = dict(core.found) | {p.id: found_place_name(p, pack, lang) for p in points}
    return PlaceNames(route=route, found=found, regions=core.regions, places=core.places)


def stops_words(n: int, lang: Lang) -> str:
    """ "1 stop" / "3 stops" (1 个途经点 / 3 个途经点)."""
    return t("route.stops.one" if n == 1 else "route.stops.many", lang, n=n)


def summary_line(result: RoutePlanResult, *, lang: Lang = "en") -> str:
    """The result's summary in ``lang``, worded from its figures (a failed plan keeps the planner's sentence)."""
    if not result.success:
        return result.summary
    best = result.best_route
    return t(
        "route.summary",
        lang,
        stops=stops_words(len(result.resolved_stops), lang),
        km=f"{best.total_distance_m / 1000:.1f}",
        minutes=f"{best.total_duration_s / 60:.0f}",
        transport=word(TRANSPORT_KEYS, result.transport_mode, lang),
        source=word(SOURCE_KEYS, result.metric_source, lang),
    )


def summary_paragraph(result: RoutePlanResult, *, lang: Lang = "en", pack: RegionPack | None = None) -> str:
    """The result in one paragraph in ``lang`` (the API's and the CLI's ``summary``; issue 31: the core words
    nothing): the best order and its totals, why it won and how the orders were searched, a start that is unknown,
    and how many warnings follow."""
    if not result.success:
        return summary_line(result, lang=lang)
    parts = [
        # the places as a reader of ``lang`` names them (a pack place by its name in ``lang``), as the title does
        t("route.summary.order", lang, order=" → ".join(_title_name(p, pack, lang) for _, p in result.visiting())),
        summary_line(result, lang=lang),
        why_words(result, lang),
    ]
    if result.origin_mode == "current_location" and result.live_origin is None:
        parts.append(t("route.summary.start_unknown", lang))
    if result.warnings:
        parts.append(t("route.summary.warnings", lang, n=len(result.warnings)))
    return ("" if lang == "zh" else " ").join(p.strip() for p in parts if p.strip())


#: the task name a request gets when it names none (core/models/route.py); a report then takes its places' names
DEFAULT_TASK_NAME = "multi-destination-route-planning"
#: a title names every place up to this many; a longer trip is "first → … → last"
_TITLE_PLACES = 4


def report_title(result: RoutePlanResult, lang: Lang, *, pack: RegionPack | None) -> str:
    """The report's title: the task's name when the request gave one, else the trip's places in visiting order
    in ``lang`` ("外滩 → … → 豫园"; the pack's name of a pack place, else the name typed)."""
    if result.task_name and result.task_name != DEFAULT_TASK_NAME:
        return result.task_name
    names = [_title_name(p, pack, lang) for _, p in result.visiting()]
    if len(names) > _TITLE_PLACES:
        names = [names[0], "…", names[-1]]
    return " → ".join(names)


def _title_name(point: ResolvedPoint | None, pack: RegionPack | None, lang: Lang) -> str:
    return t("route.export.live_name", lang) if point is None else place_name(point, pack, lang)


def _pack_name(place_id: str | None, pack: RegionPack | None, lang: Lang) -> str | None:
    """A pack place's name in ``lang``, else its local name (None: not a place of ``pack``)."""
    place = pack.place_by_id(place_id) if pack is not None and place_id else None
    if place is None:
        return None
    return (place.name_en or place.name_zh) if lang == "en" else (place.name_zh or place.name_en)


def place_name(point: ResolvedPoint, pack: RegionPack | None, lang: Lang) -> str:
    """A point as named along a route in ``lang``: the pack's name of a pack place (its local name where the pack
    has none in ``lang``), else the name typed."""
    return _pack_name(point.poi_id, pack, lang) or point.label


def found_place_name(point: ResolvedPoint, pack: RegionPack | None, lang: Lang) -> str:
    """The place a point was found as, in ``lang``: the pack's name, else the name the map data gave."""
    return _pack_name(point.poi_id, pack, lang) or point.resolved_name


def candidate_names(
    result: RoutePlanResult, candidate: CandidateRoute | None, lang: Lang, pack: RegionPack | None
) -> list[str]:
    """The names along a candidate (the best by default) in visiting order, in ``lang``."""
    return [_title_name(point, pack, lang) for _, point in result.visiting(candidate)]


def district_words(pack: RegionPack | None, district: str | None, lang: Lang) -> str:
    """A district in ``lang``: the pack's name for it (region.json ``district_names``), else as the place names it."""
    if pack is None or not district:
        return district or ""
    return pack.district_names.get(district, {}).get(lang) or district


def stage_words(stage: PlanStage, lang: Lang) -> str:
    """A plan's stage in ``lang``: "Resolving places (AMap: 3 calls made, at most 16 left)"."""
    words = t(f"route.progress.{stage.code}", lang)
    if stage.service is None or stage.made is None or stage.left is None:
        return words
    key = f"common.provider.short.{stage.service.replace('-', '_')}"
    service = t(key, lang) if stage.service in ("amap", "amap-mcp") else stage.service
    return f"{words} {t('route.progress.calls', lang, service=service, made=stage.made, left=stage.left)}"
