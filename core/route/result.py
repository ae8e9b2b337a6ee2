"""A route plan's result: the stages' outputs (core/route/planner.py) assembled into one ``RoutePlanResult``.

``route_result`` gathers every stage's notices in order (the long-walk notice among them, and the provider's warnings
left), their English sentences, the provider calls made and the time taken. Its summary and the optimiser's note
are words, made at the edge in the reader's language (core.words.route.summary_paragraph, issue 31).
"""

from __future__ import annotations

import time
from typing import get_args

from core.config import Settings
from core.geo.composite import MapServices
from core.models.common import is_straight_line
from core.models.region import RegionPack
from core.models.route import (
    CandidateRoute,
    MetricSource,
    Notice,
    ProviderCalls,
    ResolvedPoint,
    RoutePlanRequest,
    RoutePlanResult,
    TransportMode,
)
from core.route.notices import english, from_log, notice, point_names, unique
from core.route.stage_types import RankedCandidates, ResolvedTrip, RouteGeometry, RouteLinks, TripMatrix
from core.route.strategies import km, mins

__all__ = ["WALKING_LONG_LEG_M", "route_result", "walking_notices"]

WALKING_LONG_LEG_M = 10_000  # a walking leg longer than this (about 2 h) gets a warning


def walking_notices(best: CandidateRoute, *, mode: TransportMode) -> list[Notice]:
    """A walk whose legs are too long to be a walk says so, naming the legs (in the detail)."""
    if mode != "walking":
        return []
    long_legs = [l for l in best.legs if l.distance_m > WALKING_LONG_LEG_M]
    if not long_legs:
        return []
    listed = "; ".join(
        f"{l.from_label} → {l.to_label} {km(l.distance_m)} (~{mins(l.duration_s)})" for l in long_legs[:5]
    )
    more = f" and {len(long_legs) - 5} more" if len(long_legs) > 5 else ""
    return [
        notice(
            "LONG_WALK",
            detail=f"{listed}{more}",
            n=len(long_legs),
            km=f"{WALKING_LONG_LEG_M / 1000:g}",
            total_km=f"{best.total_distance_m / 1000:.1f}",
            minutes=round(best.total_duration_s / 60),
        )
    ]


def route_result(
    request: RoutePlanRequest,
    trip: ResolvedTrip,
    net: TripMatrix,
    ranked: RankedCandidates,
    geometry: RouteGeometry,
    links: RouteLinks,
    exact_notices: list[Notice],
    *,
    provider: MapServices,
    settings: Settings,
    before: ProviderCalls,
    t0: float,
) -> RoutePlanResult:
    """The stages' outputs as the result: the notices of every stage in order (and the provider's warnings left),
    the calls made since ``before``, the time since ``t0`` and the summary."""
    notices = unique(
        [
            *trip.notices,
            *net.notices,
            *walking_notices(ranked.best, mode=request.transport_mode),
            *([notice("STRATEGIES_AGREE_ON_ESTIMATES")] if is_straight_line(net.source) else []),
            *geometry.notices,
            *exact_notices,
            *links.notices,
            *(from_log(entry) for entry in provider.warnings.drain_entries()),
        ]
    )
    calls = provider.snapshot()
    result = RoutePlanResult(
        success=True,
        origin_mode=request.origin_mode,
        resolved_origin=trip.origin,
        resolved_destination=trip.destination,
        resolved_stops=trip.stops,
        candidates=ranked.candidates,
        best_route=ranked.best,
        best_index=ranked.best_index,
        deep_links=links.deep_links,
        summary="",
        warnings=english(
            notices,
            names=point_names(
                trip.points,
                _region_names(provider.region),
                _part_names(notices, provider.region) | _found_names(trip.points, provider.region),
            ),
        ),
        notices=notices,
        task_name=request.task_name,
        route_strategy=request.route_strategy,
        transport_mode=request.transport_mode,
        round_trip=request.round_trip,
        provider=provider.name,
        region=provider.region.name,
        metric_source=net.source if net.source in get_args(MetricSource) else "offline_estimate",
        optimizer=ranked.optimizer.model_copy(update={"tie_tolerance": settings.tie_tolerance})
        if ranked.optimizer is not None
        else None,
        provider_calls=MapServices.diff(calls, before),
        best_geometry=geometry.legs,
        geometry_source=geometry.source,
        live_origin=trip.live,
        elapsed_ms=round((time.perf_counter() - t0) * 1000, 1),
    )
    return result  # its summary is worded at the edge (core.words.route.summary_paragraph)


def _region_names(region: RegionPack) -> dict[str, str]:
    """The region's code → its English name, for the notices' English sentences."""
    return {region.name: region.display_name.get("en") or region.name}


def _found_names(points: list[ResolvedPoint], region: RegionPack) -> dict[str, str]:
    """The English names of the pack places the points were found as (a reader of English reads Shanghai Hongqiao
    International Airport, not 上海虹桥国际机场, issue 31); a place without one keeps the name the data gives."""
    return {
        p.poi_id: place.name_en
        for p in points
        if p.poi_id and (place := region.place_by_id(p.poi_id)) is not None and place.name_en
    }


def _part_names(notices: list[Notice], region: RegionPack) -> dict[str, str]:
    """The English names of the parts the notices name (an airport's terminals), from the pack; a part without
    one keeps the name the data gives (the notice's own)."""
    ids = {i for n in notices for i in str(n.params.get("part_ids") or "").split(",") if i}
    named = {i: place.name_en for i in ids if (place := region.place_by_id(i)) is not None and place.name_en}
    return named if named.keys() == ids else {}
