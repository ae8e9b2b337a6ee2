"""Plan a route (job 1): the planner on the request's own view of the providers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import partial
from pathlib import Path
from typing import Literal

from core.app.context import RequestContext
from core.app.scope import in_scope, refuse_uncovered
from core.config import get_settings
from core.errors import OmniError, ResolutionError
from core.i18n import Lang
from core.models.region import RegionPack
from core.models.route import CandidateRoute, Notice, OptimizerInfo, ResolvedPoint, RoutePlanRequest, RoutePlanResult
from core.models.route_views import OrderComparison, PlaceNames, Scenario
from core.route.notices import notice
from core.route.planner import plan_route as _plan_route
from core.route.stage_types import PlanStage, Progress
from core.words.route import stage_words

__all__ = [
    # entry points
    "compare_with_best",
    "ExportFile",
    "RouteExports",
    "RouteLinks",
    "WebPart",
    "export_html",
    "exports",
    "notice_known",
    "notice_words",
    "provider_words",
    "plan_route",
    "order_only_changed",
    "outside_amap",
    "replan_own_order",
    "route_links",
    "scenarios",
    "search_words",
    "source_words",
    "stops_words",
    "why_words",
]


def plan_route(ctx: RequestContext, request: RoutePlanRequest, *, progress: Progress | None = None) -> RoutePlanResult:
    """The best order per strategy, its candidates, links and notices; the result holds this request's warnings
    and provider calls only (the context's view), however many plans run at once."""
    ctx, switched = _scoped(ctx, request)
    if progress is None:
        return _said(_plan_route(request, provider=ctx.providers, settings=ctx.settings), switched)
    report = progress  # the face's display: a label in the request's language

    def worded(stage: PlanStage, fraction: float) -> None:
        report(stage_words(stage, ctx.lang), fraction)

    return _said(_plan_route(request, provider=ctx.providers, settings=ctx.settings, progress=worded), switched)


def order_only_changed(planned: RoutePlanRequest, request: RoutePlanRequest) -> bool:
    """Whether ``request`` is ``planned`` with its stops listed in another order or another own order only: the
    person's order can then be planned again on the last plan's matrix (``replan_own_order``)."""
    from core.route.own_order import planned_index

    return planned_index(planned, request) is not None


def replan_own_order(
    ctx: RequestContext,
    request: RoutePlanRequest,
    previous: RoutePlanResult | None,
    *,
    progress: Progress | None = None,
) -> RoutePlanResult:
    """The person's own order (issue 32, X8) beside the best: on ``previous``'s matrix when ``request`` only
    reorders its stops or changes the own order, planned on the same provider and region (no provider call, no
    order search); else a new plan."""
    from core.route.own_order import own_order_again

    same_place = previous is not None and (previous.provider, previous.region) == (
        ctx.providers.name,
        ctx.providers.region.name,
    )
    again = own_order_again(previous, request) if previous is not None and same_place else None
    return again if again is not None else plan_route(ctx, request, progress=progress)


def _scoped(ctx: RequestContext, request: RoutePlanRequest) -> tuple[RequestContext, Notice | None]:
    """Scope before answer (core/app/scope.py) on the places typed, field by field: the first that names a place
    outside the region decides. Another installed region's: the context on it and the notice that says so; none's:
    ``RegionNotCovered`` naming the field."""
    fields = [
        (f"{end}_{part}", getattr(request, f"{end}_{part}"))
        for end in ("origin", "destination")
        for part in ("name", "address", "city")
    ]
    fields += [
        (f"stops.{i}.{part}", getattr(stop, part))
        for i, stop in enumerate(request.stops)
        for part in ("name", "address", "city")
    ]
    for field, text in fields:
        if not text:
            continue
        scoped, scope = in_scope(ctx, text)
        refuse_uncovered(scope, ctx.lang, field=field)
        if scope.verdict == "SWITCH":
            said = notice("REGION_SWITCHED", named=scope.named or "", region=scope.region, active=scope.active)
            return scoped, said
    return ctx, None


def _said(result: RoutePlanResult, switched: Notice | None) -> RoutePlanResult:
    """``result`` with the switch's notice first (and its English sentence first among the warnings, in step)."""
    if switched is not None:
        result.notices.insert(0, switched)
        result.warnings.insert(0, notice_words(switched, "en"))
    return result


# ---- what a face shows of a route: scenarios, comparisons, notices, links, exports ----------------------------
# The faces word and render these; the rules (which links, which notices, how an export looks) stay in core.route.


def scenarios(region: str | None = None, *, data_dir: Path | None = None) -> list[Scenario]:
    """The ready-made scenarios of ``region`` (every region's when None), for the route form."""
    from core.route.scenarios import list_scenarios

    return list(list_scenarios(region, data_dir=data_dir or get_settings().data_dir))


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


def why_words(result: RoutePlanResult, lang: Lang) -> str:
    """Why the best order is first, as the page and the HTML report say it."""
    from core.words.route import why_words as _why_words

    return _why_words(result, lang)


@dataclass(frozen=True)
class WebPart:
    """The ``n``-th browser link of the best order (counted among all the core made) and the points it goes from
    and to (None: where the phone is, the route having no fixed start)."""

    n: int
    href: str
    start: ResolvedPoint | None
    end: ResolvedPoint | None


@dataclass(frozen=True)
class RouteLinks:
    """The deep links of a result a face may show: only those ``safe_href`` allows (None where there is none)."""

    web_parts: tuple[WebPart, ...]
    navigation: str | None
    personal_map: str | None
    android_route_plan: str | None
    ios_route_plan: str | None


def route_links(result: RoutePlanResult, *, own: bool = False) -> RouteLinks | None:
    """The result's deep links to show (None: the core made none), the browser links with what each covers: the
    route cut as the core cut it (``core.route.links.web_part_spans``), its start the fixed origin or the phone.
    ``own``: the person's order's links (``own_deep_links``) instead of the best order's."""
    from core.route.links import web_part_spans
    from core.words.report_html import safe_href

    links = result.own_deep_links if own else result.deep_links
    if links is None or (own and result.own_route is None):
        return None
    order = result.own_route if own else None
    stops = [p for ref, p in result.visiting(order) if ref.role != "origin" and p is not None]
    points = [result.resolved_origin, *stops]
    spans = web_part_spans(len(points), result.transport_mode)
    parts = tuple(
        WebPart(n=n, href=href, start=points[start], end=points[end])
        for n, (url, (start, end)) in enumerate(zip(links.web_navigation, spans, strict=False), start=1)
        if (href := safe_href(url))
    )
    return RouteLinks(
        web_parts=parts,
        navigation=safe_href(links.navigation),
        personal_map=safe_href(links.personal_map),
        android_route_plan=safe_href(links.android_route_plan),
        ios_route_plan=safe_href(links.ios_route_plan),
    )


def outside_amap(region: str | None, *, data_dir: Path | None = None) -> bool:
    """Whether ``region``'s pack lies where AMap's app and web navigation do not go (why a result has no deep
    links); False when there is no region or its pack cannot be read."""
    from core.packs.loader import load_region
    from core.route.links import amap_navigates_in

    if not region:
        return False
    try:
        return not amap_navigates_in(load_region(region, data_dir or get_settings().data_dir).country)
    except (OmniError, ValueError, OSError):
        return False


@dataclass(frozen=True)
class ExportFile:
    """One download of a result: its kind, file name and media type, and what makes its content when asked for."""

    kind: Literal["json", "html", "csv"]
    file_name: str
    mime: str
    make: Callable[[], str | bytes]


@dataclass(frozen=True)
class RouteExports:
    """A result's downloads, named after ``stem`` (the trip's name slugged, then the day)."""

    stem: str
    files: tuple[ExportFile, ...]


def exports(
    result: RoutePlanResult, *, on: date, destination_name: str | None = None, lang: Lang = "en"
) -> RouteExports:
    """The result's downloads for the day ``on``, worded in ``lang`` with its places named as the region pack names
    them in ``lang``: the JSON (the whole result, Chinese readable, its warnings and summary in ``lang``; it
    round-trips through ``RoutePlanResult.model_validate_json``), the HTML page (``export_html`` in ``lang``) and the best route's legs
    as CSV (UTF-8 with a byte order mark: Excel reads the Chinese names right). Each is made only when asked for:
    the HTML page draws a QR code per link, and the three are seldom all wanted."""
    from core.words.route_export import export_stem, legs_to_csv_bytes, result_to_json

    stem = export_stem(result, on=on, destination_name=destination_name)
    pack = _result_pack(result, get_settings().data_dir)
    return RouteExports(
        stem=stem,
        files=(
            ExportFile(
                "json", f"{stem}.json", "application/json", partial(result_to_json, result, lang=lang, pack=pack)
            ),
            ExportFile("html", f"{stem}.html", "text/html", partial(export_html, result, lang=lang)),
            ExportFile("csv", f"{stem}-legs.csv", "text/csv", partial(legs_to_csv_bytes, result, lang=lang, pack=pack)),
        ),
    )


def export_html(result: RoutePlanResult, *, lang: Lang = "en", data_dir: Path | None = None) -> str:
    """One self-contained HTML page of the result (no network, no scripts), worded in ``lang``, with the names of
    its region pack (in ``data_dir``, default: the settings' data folder; none when the pack cannot be read)."""
    from core.words.route_export import result_to_html

    return result_to_html(result, lang=lang, pack=_result_pack(result, data_dir or get_settings().data_dir))


def in_words(ctx: RequestContext, result: RoutePlanResult) -> RoutePlanResult:
    """The result as a reader of the context's language reads it: its warnings and summary in that language, its
    places named as its region pack names them; the codes and facts stay in ``notices``."""
    from core.words.route_export import in_reader_words

    return in_reader_words(result, lang=ctx.lang, pack=_result_pack(result, ctx.settings.data_dir))


def with_sentences(result: RoutePlanResult, *, lang: Lang) -> RoutePlanResult:
    """The result with its summary and the optimiser's note worded in ``lang`` (the core leaves them empty), its
    warnings as they are: what the CLI prints and the API returns without a locale."""
    from core.words.route_export import with_sentences as _worded

    return _worded(result, lang=lang, pack=_result_pack(result, get_settings().data_dir))


def choice_words(error: ResolutionError, lang: Lang, *, region: str | None, data_dir: Path) -> str:
    """A resolution error's message in ``lang`` (core/words/place_choice.py): the inputs not found, and each choice
    (which input, why, the places offered named as the region pack names them in ``lang``); an error whose facts
    say neither keeps its own message."""
    from core.words.place_choice import resolution_message

    said = resolution_message(error.facts, error.candidates, lang, _region_pack(region, data_dir))
    return said or error.message


def _result_pack(result: RoutePlanResult, data_dir: Path) -> RegionPack | None:
    """The pack ``result`` was planned on, for its words (None: no region, or a pack this data folder lacks)."""
    return _region_pack(result.region, data_dir)


def _region_pack(region: str | None, data_dir: Path) -> RegionPack | None:
    from core.packs.loader import load_region

    if not region:
        return None
    try:
        return load_region(region, data_dir)
    except (OmniError, OSError, ValueError):
        return None
