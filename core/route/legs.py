"""An order of a plan as the legs a person sees: each leg's figures from the plan's matrix (with their source and
doors), the totals the sums of the rounded legs. The planner's candidates and the person's own order
(core/route/own_order.py) are made by the same rule."""

from __future__ import annotations

from core.models.route import CandidateRoute, RouteLeg, format_location, visiting_points
from core.route.stage_types import TripMatrix
from core.route.strategies import Scored


def leg(net: TripMatrix, a: int, b: int) -> RouteLeg:
    source = net.pair_source(a, b)
    # the router's doors hold for its own figures (matrix or directions: one rule), never for an estimate's
    doors = net.doors.get((a, b)) if source != "offline_estimate" else None
    return RouteLeg(
        from_label=net.labels[a],
        to_label=net.labels[b],
        origin_location=format_location(*net.points[a]),
        destination_location=format_location(*net.points[b]),
        distance_m=int(round(net.dist[a, b])),
        duration_s=int(round(net.dur[a, b])),
        source=source,
        measured_by="directions" if (a, b) in net.direction_sources else "matrix",
        origin_entrance=doors.origin_entrance if doors else None,
        destination_entrance=doors.destination_entrance if doors else None,
    )


def candidate_route(net: TripMatrix, sc: Scored) -> CandidateRoute:
    """One order as the legs the user sees (totals are sums of the rounded legs); ranking fields come later."""
    node_order = [*([net.start] if net.start is not None else []), *sc.order, net.end]
    labels = net.labels
    legs = [leg(net, a, b) for a, b in zip(node_order, node_order[1:])]
    stop_order = [n - net.offset for n in sc.order]
    measured = {one.measured_by for one in legs if one.distance_m or one.measured_by == "directions"}
    return CandidateRoute(
        measured_by="matrix"
        if "directions" not in measured
        else "directions"
        if measured == {"directions"}
        else "partly_directions",
        stop_order_labels=[labels[n] for n in sc.order],
        full_order_labels=[labels[n] for n in node_order],
        legs=legs,
        total_distance_m=sum(l.distance_m for l in legs),
        total_duration_s=sum(l.duration_s for l in legs),
        stop_order=stop_order,
        points=visiting_points(stop_order, net.end - net.offset, start=net.start_id),
    )
