"""plan_route: the multi-stop route planner end to end, as a chain of typed stages (docs/ARCHITECTURE.md,
"Route planner").

resolve (+ same-place checks) -> one travel matrix -> candidate orders (core/optimizer/order_search.py) ->
rank by strategy -> geometry of the best route -> deep links -> summary + warnings (core/route/result.py). Each stage is a function
with typed input and output; ``plan_route`` composes them and reports progress.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import numpy as np

from core.config import Settings
from core.errors import InputError, ProviderError
from core.geo.base import LonLat, Place
from core.geo.composite import MapServices
from core.geo.coords import haversine_m
from core.geo.scope import bind
from core.models.region import RegionPack
from core.models.route import (
    LIVE_ORIGIN,
    STRATEGIES,
    CandidateRoute,
    LiveOrigin,
    Notice,
    ResolvedPoint,
    RoutePlanRequest,
    RoutePlanResult,
    RouteStrategy,
    TransportMode,
    format_location,
    point_id,
)
from core.optimizer.order_search import candidate_orders, distinct_place_orders, order_totals
from core.route.budget import (
    directions_top,
    geocode_ahead,
    makes_personal_maps,
    needed_calls,
    plan_budget_s,
    poi_ids_wanted,
)
from core.route.directions import DirectionLegs, directions_wanted, kept_matrix_notice, remeasure
from core.route.legs import candidate_route
from core.route.links import amap_navigates_in, build_deep_links
from core.route.notices import LIVE_ORIGIN_LABEL, from_log, notice
from core.route.own_order import attach_own_order
from core.route.poi_ids import with_poi_id
from core.route.resolver import resolve_points, same_place
from core.route.result import route_result
from core.route.stage_types import (
    OrderPool,
    PlanStage,
    PlanStageCode,
    RankedCandidates,
    ResolvedTrip,
    RouteGeometry,
    RouteLinks,
    StageProgress,
    TripMatrix,
    leg_cells,
)
from core.route.strategies import Scored, best_reason, other_reason, pareto_front, rank


def _noop(_stage: PlanStage, _frac: float) -> None:
    return None


def _place_groups(stops: list[ResolvedPoint], offset: int) -> dict[int, int]:
    """Matrix node of each stop -> node of the first stop at the same place (duplicates share one)."""
    groups: dict[int, int] = {}
    for i, s in enumerate(stops):
        twin = next((j for j in range(i) if same_place(s, stops[j])), i)
        groups[offset + i] = groups.get(offset + twin, offset + twin)
    return groups


def _inside(lon: float, lat: float, region: RegionPack) -> bool:
    west, south, east, north = region.bbox
    return west <= lon <= east and south <= lat <= north


def _outside_region(lon: float, lat: float, region: RegionPack) -> Notice | None:
    """A notice when the live start lies outside the region's bounding box (e.g. 0,0 or swapped values)."""
    if _inside(lon, lat, region):
        return None
    clon, clat = region.center
    dist = haversine_m(lon, lat, clon, clat)
    return notice("START_OUTSIDE_REGION", where=format_location(lon, lat), region=region.name, km=f"{dist / 1000:.1f}")


def resolve_stage(request: RoutePlanRequest, *, provider: MapServices, settings: Settings) -> ResolvedTrip:
    """Resolve every place; refuse a destination that is also a stop or a round trip that does not return."""
    notices: list[Notice] = []
    region = provider.region
    default_city = region.city
    geocode_ahead(request, provider=provider)
    resolved = resolve_points(request, provider=provider, settings=settings, default_city=default_city)
    notices.extend(resolved.notices)
    origin, stops, dest = resolved.origin, resolved.stops, resolved.destination
    if request.round_trip and origin is not None and not same_place(origin, dest):
        raise InputError(
            f"a round trip returns to the start ('{origin.resolved_name}'), but the destination resolves to "
            f"'{dest.resolved_name}'; leave the destination blank for a round trip, or untick round trip",
            field="destination_address",
        )
    for i, s in enumerate(stops):
        if same_place(s, dest):
            where = "the start and end of this round trip" if request.round_trip else "the destination"
            raise InputError(
                f"stop {i + 1} ('{s.label}') resolves to the same place as {where} ('{dest.resolved_name}'); "
                "the destination must not also be a stop",
                field=f"stops.{i}",
            )
        for j in range(i):
            if same_place(s, stops[j]):
                notices.append(notice("SAME_PLACE_STOPS", a=j + 1, b=i + 1, point=point_id("stop", i)))
        if origin is not None and same_place(s, origin):
            notices.append(notice("STOP_AT_ORIGIN", n=i + 1, point=point_id("stop", i)))
        if not _inside(s.lon, s.lat, region):  # found, but not where this region's plan can vouch for it
            notices.append(notice("STOP_OUTSIDE_REGION", n=i + 1, point=point_id("stop", i), region=region.name))

    live: LiveOrigin | None = None
    if request.origin_mode == "current_location":
        if request.origin_lon is not None and request.origin_lat is not None:
            live = LiveOrigin(
                lon=request.origin_lon,
                lat=request.origin_lat,
                location=format_location(request.origin_lon, request.origin_lat),
            )
            far = _outside_region(live.lon, live.lat, region)
            if far:
                notices.append(far)
        else:  # only the stops → destination part is compared: the true best order depends on the start
            notices.append(notice("START_UNKNOWN"))

    return ResolvedTrip(origin=origin, stops=stops, destination=dest, live=live, notices=notices)


def matrix_stage(trip: ResolvedTrip, *, provider: MapServices, mode: TransportMode) -> TripMatrix:
    """One matrix for all points; every pair must be answered (nothing is filled in silently)."""
    origin, stops, dest, live = trip.origin, trip.stops, trip.destination, trip.live
    notices: list[Notice] = []
    points: list[LonLat] = []
    labels: list[str] = []
    ids: list[str] = []
    start: int | None = None
    if origin is not None:
        start = 0
        points.append(LonLat(origin.lon, origin.lat))
        labels.append(origin.label)
        ids.append(origin.id)
    elif live is not None:
        start = 0
        points.append(LonLat(live.lon, live.lat))
        labels.append(LIVE_ORIGIN_LABEL)
        ids.append(LIVE_ORIGIN)
    offset = len(points)
    points += [LonLat(s.lon, s.lat) for s in stops]
    labels += [s.label for s in stops]
    ids += [point_id("stop", i) for i in range(len(stops))]
    end = len(points)
    points.append(LonLat(dest.lon, dest.lat))
    labels.append(dest.label)
    ids.append(dest.id)
    # a leg ends at a stop or at the destination, never at the start (a round trip's return ends at the end node,
    # at the start's point): a router that pays per destination (AMap) is asked only for those columns
    matrix = provider.matrix(points, mode=mode, destinations=range(offset, end + 1))
    # whole metres and seconds, as every leg is shown: the orders are ranked on the figures a user sees (their
    # totals are the sums of the legs shown), never on fractions that can reorder two orders the page calls equal
    dist = np.rint(np.asarray(matrix.distances_m, dtype=float))
    dur = np.rint(np.asarray(matrix.durations_s, dtype=float))
    legs = leg_cells(start=start, offset=offset, end=end)
    if not (np.isfinite(dist[legs]).all() and np.isfinite(dur[legs]).all()):
        raise ProviderError("the travel matrix has missing entries: some points are not connected", field="stops")
    for i in matrix.off_network:  # named here, where the points have their labels
        notices.append(notice("OFF_NETWORK", point=ids[i], region=provider.region.name))
    doors = {(d.origin, d.destination): d for d in matrix.entrances}
    at_door = {d.origin for d in doors.values() if d.origin_entrance} | {
        d.destination for d in doors.values() if d.destination_entrance
    }
    notices += [notice("ENTRANCE_USED", point=ids[i]) for i in sorted(at_door)]
    if matrix.source == "offline_estimate":
        notices.append(_offline_notice(provider.region, mode, matrix.notes))
    notices.extend(from_log(entry) for entry in provider.warnings.drain_entries())
    return TripMatrix(
        points=points,
        labels=labels,
        ids=ids,
        start=start,
        offset=offset,
        end=end,
        dist=dist,
        dur=dur,
        source=matrix.source,
        remote_source=provider.router.name,
        estimated=frozenset((int(i), int(j)) for i, j in matrix.estimated_pairs),
        notices=notices,
        doors=doors,
    )


def _offline_notice(region: RegionPack, mode: TransportMode, notes: list[str]) -> Notice:
    """All figures are the offline estimate: with the pack's circuity and speed for ``mode`` when it has them."""
    detail = notes[0] if notes else None
    params = region.estimate.get(mode)
    if params is None:
        return notice("OFFLINE_ESTIMATES", detail=detail)
    return notice(
        "OFFLINE_ESTIMATES_AT",
        detail=detail,
        mode=mode,
        circuity=f"{params.circuity:g}",
        speed_kmh=f"{params.speed_kmh:g}",
    )


def candidates_stage(trip: ResolvedTrip, net: TripMatrix, *, max_permutations: int, settings: Settings) -> OrderPool:
    """Candidate stop orders from the order search (core/optimizer/order_search.py; at most ``max_permutations``)
    with their totals; swapping two stops at the same place is not another route."""
    search_dist, search_dur = net.search_matrices()
    orders, info = candidate_orders(
        search_dist,
        search_dur,
        net.stop_nodes,
        start=net.start,
        end=net.end,
        max_permutations=max_permutations,
        exact_limit=settings.exact_limit,
        time_limit_s=settings.solver_time_limit_s,
        seed=settings.solver_seed,
    )
    arr = np.asarray(orders, dtype=int)
    tot_d = order_totals(arr, net.dist, net.start, net.end)
    tot_t = order_totals(arr, net.dur, net.start, net.end)
    kept = distinct_place_orders(orders, tot_d, tot_t, _place_groups(trip.stops, net.offset))
    scored = [Scored(order=orders[i], distance_m=float(tot_d[i]), duration_s=float(tot_t[i])) for i in kept]
    return OrderPool(scored=scored, optimizer=info.model_copy(update={"orders_ranked": len(kept)}))


def rank_stage(pool: OrderPool, net: TripMatrix, *, strategy: RouteStrategy, settings: Settings) -> RankedCandidates:
    """Rank the orders by every strategy; show the top ones of the chosen strategy and the best of each other."""
    scored = pool.scored
    tol = settings.tie_tolerance
    slack = settings.balanced_time_slack
    rankings = {s: rank(scored, s, tolerance=tol, time_slack=slack) for s in STRATEGIES}
    main = rankings[strategy]
    chosen = list(dict.fromkeys([*main[: settings.top_k + 1], *(rankings[s][0] for s in STRATEGIES)]))
    chosen.sort(key=main.index)
    front = pareto_front(scored)
    candidates: list[CandidateRoute] = []
    for idx in chosen:
        pos = main.index(idx)
        reason = (
            best_reason(scored, main, strategy, tolerance=tol, exact=pool.optimizer.exact, time_slack=slack)
            if pos == 0
            else other_reason(scored, main, pos)
        )
        cand = candidate_route(net, scored[idx])
        cand.ranking_reason = reason
        cand.rank = pos + 1
        cand.best_for = [s for s in STRATEGIES if rankings[s][0] == idx]
        cand.pareto_optimal = idx in front
        candidates.append(cand)
    best = candidates[0]
    for cand in candidates:  # deltas agree with the totals shown (sums of the rounded legs)
        cand.delta_distance_m = cand.total_distance_m - best.total_distance_m
        cand.delta_duration_s = cand.total_duration_s - best.total_duration_s
    return RankedCandidates(candidates=candidates, best_order=scored[main[0]].order, optimizer=pool.optimizer)


def geometry_stage(
    net: TripMatrix,
    best_order: tuple[int, ...],
    *,
    provider: MapServices,
    mode: TransportMode,
    known: DirectionLegs | None = None,
) -> RouteGeometry:
    """The drawn path of each leg of the best route (one cached route call per leg, none for a leg the directions
    stage has already asked: ``known``); a failed leg is a straight line with a warning, never a silent gap."""
    known = known or DirectionLegs()
    points, labels, ids, start, end = net.points, net.labels, net.ids, net.start, net.end
    notices: list[Notice] = []
    best_nodes = [*([start] if start is not None else []), *best_order, end]
    geometry: list[list[list[float]]] = []
    figures: list[tuple[float, float, str] | None] = []
    geo_sources: set[str] = set()
    for a, b in zip(best_nodes, best_nodes[1:]):
        try:
            if (a, b) in known.failed:
                raise known.failed[(a, b)]
            leg = (
                known.legs.get((a, b)) or known.estimates.get((a, b)) or provider.route(points[a], points[b], mode=mode)
            )
            geometry.append([[float(x), float(y)] for x, y in leg.geometry] or [list(points[a]), list(points[b])])
            geo_sources.add(leg.source)
            figures.append((leg.distance_m, leg.duration_s, leg.source))
        except ProviderError as exc:
            figures.append(None)
            geometry.append([list(points[a]), list(points[b])])
            geo_sources.add("straight_line")
            notices.append(
                notice(
                    "GEOMETRY_MISSING",
                    detail=f"route geometry {labels[a]} → {labels[b]} unavailable ({exc.message})",
                    a=ids[a],
                    b=ids[b],
                )
            )
    geometry_source = ", ".join(sorted(geo_sources))
    if geo_sources == {"offline_estimate"}:
        geometry_source = "offline_estimate (straight lines between points, not the road path)"
    return RouteGeometry(legs=geometry, source=geometry_source, notices=notices, figures=figures)


def directions_stage(
    pool: OrderPool, net: TripMatrix, *, request: RoutePlanRequest, provider: MapServices, settings: Settings
) -> tuple[TripMatrix, OrderPool, DirectionLegs]:
    """The top orders re-measured on the direction service (core/route/directions.py): the matrix with their
    legs' figures, the orders scored on it, and what the service answered per leg."""
    done = remeasure(
        pool.scored,
        dist=net.dist,
        dur=net.dur,
        start=net.start,
        end=net.end,
        points=net.points,
        strategy=request.route_strategy,
        tolerance=settings.tie_tolerance,
        time_slack=settings.balanced_time_slack,
        provider=provider,
        mode=request.transport_mode,
        top=settings.direction_recheck_top,
    )
    net.notices.extend(from_log(entry) for entry in provider.warnings.drain_entries())
    measured = replace(net, dist=done.dist, dur=done.dur, direction_sources=done.sources)
    return measured, replace(pool, scored=done.scored), done.known


def poi_ids_stage(trip: ResolvedTrip, *, request: RoutePlanRequest, provider: MapServices) -> ResolvedTrip:
    """When the links may be a personal map and the geocoder makes them, each geocoded point without an AMap POI id
    gets the one a text search finds for it (``resolver.with_poi_id``). After the figures: the searches spend
    what is left of the plan's time, never the matrix's."""
    if not poi_ids_wanted(request, provider=provider):
        return trip
    city = provider.region.city

    def found(p: ResolvedPoint) -> ResolvedPoint:
        return with_poi_id(p, provider=provider, city=city)

    origin = found(trip.origin) if trip.origin is not None else None
    return replace(trip, origin=origin, stops=[found(p) for p in trip.stops], destination=found(trip.destination))


def _mcp_link_makers(provider: MapServices | None, title: str) -> dict[str, Any]:
    """The personal-map and navigation link makers of a geocoder that has them (AMap through MCP). Each call is
    bound to the request's scope when it is made: its budget, its tally and what already failed in it."""
    if provider is None or not makes_personal_maps(provider):
        return {}
    view = provider

    def service() -> Any:
        bound = bind(view.geocoder, view.scope.for_call())
        return getattr(bound, "inner", bound)

    def place(p: ResolvedPoint) -> Place:
        return Place(name=p.resolved_name or p.input_name or "", lon=p.lon, lat=p.lat, poi_id=p.poi_id, source="amap")

    return {
        "personal_map_maker": lambda points: service().personal_map_link(title, [place(p) for p in points]),
        "navi_maker": lambda p: service().navi_link(LonLat(p.lon, p.lat)),
    }


def links_stage(
    trip: ResolvedTrip,
    best: CandidateRoute,
    *,
    request: RoutePlanRequest,
    provider_name: str,
    provider: MapServices | None = None,
) -> RouteLinks:
    """AMap deep links for the best order, when asked for (AMap's app and web navigation cover mainland China:
    a region elsewhere gets none rather than links that cannot navigate)."""
    if not request.need_deep_link:
        return RouteLinks(deep_links=None)
    if provider is not None and not amap_navigates_in(provider.region.country):
        return RouteLinks(deep_links=None, notices=[notice("LINKS_OUTSIDE_AMAP", region=provider.region.name)])
    deep_links, notices = build_deep_links(
        origin=trip.origin,
        ordered_stops=[trip.stops[p.index] for p in best.points if p.index is not None],
        destination=trip.destination,
        transport_mode=request.transport_mode,
        deep_link_mode=request.deep_link_mode,
        provider=provider_name,
        **_mcp_link_makers(provider, request.task_name),
    )
    return RouteLinks(deep_links=deep_links, notices=notices)


class _StageReport:
    """The progress stages of one plan: the stage, and where a paced service is used its calls so far (counted from
    when the report was made) and about how many are left of the ``needed``."""

    def __init__(self, provider: MapServices, needed: int) -> None:
        self.provider = provider
        self.needed = needed
        self.requests_before = provider.remote_requests()

    def __call__(self, code: PlanStageCode) -> PlanStage:
        if self.provider.pacing_qps() is None:
            return PlanStage(code)
        made = self.provider.remote_requests() - self.requests_before
        return PlanStage(code, service=self.provider.name, made=made, left=max(0, self.needed - made))


def plan_route(
    request: RoutePlanRequest,
    *,
    provider: MapServices,
    settings: Settings,
    progress: StageProgress | None = None,
) -> RoutePlanResult:
    """Plan a multi-stop route: the stages above in order, reporting progress between them."""
    progress = progress or _noop
    if len(request.stops) > settings.max_stops:
        raise InputError(
            f"too many stops: {len(request.stops)} given, this deployment allows {settings.max_stops}", field="stops"
        )
    # a hanging provider degrades, never stalls; a paced one gets the time its calls need at its rate
    # (and no one call waits longer than the answers' own time: a service that never answers costs one wait)
    with provider.budget(
        plan_budget_s(request, provider=provider, settings=settings), call_wait_s=settings.provider_budget_s
    ):
        before = provider.snapshot()
        t0 = time.perf_counter()
        provider.drain_warnings()  # stale warnings from an earlier plan are not ours
        needed = needed_calls(request, directions_top=directions_top(request, provider=provider, settings=settings))
        stage = _StageReport(provider, needed)
        progress(stage("resolve"), 0.05)
        trip = resolve_stage(request, provider=provider, settings=settings)
        progress(stage("matrix"), 0.3)
        net = matrix_stage(trip, provider=provider, mode=request.transport_mode)
        progress(stage("orders"), 0.5)
        pool = candidates_stage(trip, net, max_permutations=request.max_permutations, settings=settings)
        known: DirectionLegs | None = None
        exact_notices: list[Notice] = []
        if directions_wanted(request, provider=provider):
            progress(stage("directions"), 0.6)
            net, pool, known = directions_stage(pool, net, request=request, provider=provider, settings=settings)
        ranked = rank_stage(pool, net, strategy=request.route_strategy, settings=settings)
        if known is not None:
            exact_notices = kept_matrix_notice(
                ranked.best_order, known, start=net.start, end=net.end, labels=net.labels
            )
        progress(stage("draw"), 0.85)
        geometry = geometry_stage(net, ranked.best_order, provider=provider, mode=request.transport_mode, known=known)
        trip = poi_ids_stage(trip, request=request, provider=provider)
        links = links_stage(trip, ranked.best, request=request, provider_name=provider.name, provider=provider)
        result = route_result(
            request,
            trip,
            net,
            ranked,
            geometry,
            links,
            exact_notices,
            provider=provider,
            settings=settings,
            before=before,
            t0=t0,
        )
        attach_own_order(result, request, net)  # the person's order on the same figures as the best
        progress(PlanStage("done"), 1.0)
        return result
