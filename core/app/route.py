"""Plan a route (job 1): the planner on the request's own view of the providers."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from core.app.context import RequestContext
from core.config import get_settings
from core.errors import OmniError
from core.i18n import Lang
from core.models.route import (
    CandidateRoute,
    Notice,
    OptimizerInfo,
    PlaceNames,
    ResolvedPoint,
    RoutePlanRequest,
    RoutePlanResult,
)
from core.packs.loader import RegionPack
from core.route.compare import OrderComparison
from core.route.planner import plan_route as _plan_route
from core.route.scenarios import Scenario
from core.route.stage_types import PlanStage, Progress
from core.words.route import stage_words

__all__ = [
    # the contracts the route's entry points take and return (defined in core.route)
    "OrderComparison",
    "Progress",
    "Scenario",
    # entry points
    "amap_navigates_in",
    "compare_with_best",
    "export_csv",
    "export_html",
    "export_json",
    "export_stem",
    "notice_known",
    "notice_words",
    "place_key",
    "provider_words",
    "plan_route",
    "qr_svg_data_uri",
    "safe_href",
    "scenarios",
    "has_road_geometry",
    "search_words",
    "source_words",
    "stops_words",
    "web_part_spans",
    "why_words",
]


def plan_route(ctx: RequestContext, request: RoutePlanRequest, *, progress: Progress | None = None) -> RoutePlanResult:
    """The best order per strategy, its candidates, links and notices; the result holds this request's warnings
    and provider calls only (the context's view), however many plans run at once."""
    if progress is None:
        return _plan_route(request, provider=ctx.providers, settings=ctx.settings)
    report = progress  # the face's display: a label in the request's language

    def worded(stage: PlanStage, fraction: float) -> None:
        report(stage_words(stage, ctx.lang), fraction)

    return _plan_route(request, provider=ctx.providers, settings=ctx.settings, progress=worded)


# ---- what a face shows of a route: scenarios, comparisons, notices, links, exports ----------------------------
# The faces word and render these; the rules (which links, which notices, how an export looks) stay in core.route.


def scenarios(region: str | None = None, *, data_dir: Path | None = None) -> list[Scenario]:
    """The ready-made scenarios of ``region`` (every region's when None), for the route form."""
    from core.route.scenarios import list_scenarios

    return list(list_scenarios(region, data_dir=data_dir or get_settings().data_dir))


def place_key(point: ResolvedPoint) -> str:
    """The place a point stands for (its POI id, else its coordinates): how orders are compared."""
    from core.route.compare import place_key as _place_key

    return _place_key(point)


def compare_with_best(result: RoutePlanResult, candidate: CandidateRoute) -> OrderComparison:
    """A candidate of ``result`` against its best route (which stops moved)."""
    from core.route.compare import compare_with_best as _compare

    return _compare(result, candidate)


def notice_known(notice: Notice) -> bool:
    """Whether this build has words for the notice's code."""
    from core.route.notices import known

    return known(notice)


def notice_words(notice: Notice, lang: Lang, *, names: PlaceNames | None = None) -> str:
    """The notice in ``lang`` from its code and parameters (points and regions named through ``names``)."""
    from core.route.notices import words

    return words(notice, lang, names=names)


def source_words(code: str | None, lang: Lang) -> str:
    """A figure's source code(s) in words (``offline_estimate`` → "offline estimate")."""
    from core.words.route import source_words as _source_words

    return _source_words(code, lang)


def provider_words(name: str | None, lang: Lang, *, short: bool = False) -> str:
    """A provider's name in words ("offline" → "Offline (region pack …)"; "pack+osrm" → its places and travel
    services; ``short``: a whole provider's name alone); its keys come from the services' names."""
    from core.words.route import provider_words as _provider_words

    return _provider_words(name, lang, short=short)


def stops_words(n: int, lang: Lang) -> str:
    """How many stops, in words ("1 stop" / "3 stops")."""
    from core.words.route import stops_words as _stops_words

    return _stops_words(n, lang)


def search_words(optimizer: OptimizerInfo, lang: Lang) -> str:
    """What the order search did, exactly: every order listed, an exact dynamic programme or a heuristic with
    its budget."""
    from core.words.route import search_words as _search_words

    return _search_words(optimizer, lang)


def has_road_geometry(result: RoutePlanResult) -> bool:
    """Whether the best route is drawn along the roads (else straight lines between its points)."""
    from core.words.route import has_road_geometry as _has_road_geometry

    return _has_road_geometry(result)


def why_words(result: RoutePlanResult, lang: Lang) -> str:
    """Why the best order is first, as the page and the HTML report say it."""
    from core.words.route import why_words as _why_words

    return _why_words(result, lang)


def safe_href(link: str | None) -> str | None:
    """``link`` if its scheme is allowed for a button or an anchor, else None."""
    from core.words.route_export import safe_href as _safe_href

    return _safe_href(link)


def amap_navigates_in(country: str) -> bool:
    """Whether AMap's app and web navigation cover a region of ``country`` (its deep links are made there)."""
    from core.route.links import amap_navigates_in as _navigates

    return _navigates(country)


def web_part_spans(n_points: int, transport_mode: str) -> list[tuple[int, int]]:
    """Where each browser link of the result starts and ends, as positions in ``[start, *stops, destination]``."""
    from core.route.links import web_part_spans as _spans

    return _spans(n_points, transport_mode)


def qr_svg_data_uri(link: str, *, scale: int = 4) -> str:
    """A QR code of ``link`` as an SVG ``data:`` URI (cached per link and size)."""
    from core.route.links import qr_svg_data_uri as _qr

    return _qr(link, scale=scale)


def export_stem(result: RoutePlanResult, *, on: date, destination_name: str | None = None) -> str:
    """The file name (no extension) of the result's exports: the trip's name slugged, then the day ``on``."""
    from core.words.route_export import export_stem as _stem

    return _stem(result, on=on, destination_name=destination_name)


def export_json(result: RoutePlanResult) -> str:
    """The result as JSON (Chinese readable; round-trips through ``RoutePlanResult.model_validate_json``)."""
    from core.words.route_export import result_to_json

    return result_to_json(result)


def export_csv(result: RoutePlanResult) -> bytes:
    """The best route's legs as CSV, UTF-8 with a byte order mark (Excel reads the Chinese names right)."""
    from core.words.route_export import legs_to_csv_bytes

    return legs_to_csv_bytes(result)


def export_html(result: RoutePlanResult, *, lang: Lang = "en", data_dir: Path | None = None) -> str:
    """One self-contained HTML page of the result (no network, no scripts), worded in ``lang``, with the names of
    its region pack (in ``data_dir``, default: the settings' data folder; none when the pack cannot be read)."""
    from core.words.route_export import result_to_html

    return result_to_html(result, lang=lang, pack=_result_pack(result, data_dir or get_settings().data_dir))


def _result_pack(result: RoutePlanResult, data_dir: Path) -> RegionPack | None:
    """The pack ``result`` was planned on, for its words (None: no region, or a pack this data folder lacks)."""
    from core.packs.loader import load_region

    if not result.region:
        return None
    try:
        return load_region(result.region, data_dir)
    except (OmniError, OSError, ValueError):
        return None
