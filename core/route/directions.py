"""Legs from the direction service (issue 20 §3; seed 000 §6: each leg's distance and duration from ``paths[0]``).

A router like AMap answers a distance matrix from one service and directions from another, and their figures
differ. The order search needs the whole matrix; the legs a person follows are the directions'. So, where the two
differ (or when the request asks for it), the top candidates of the matrix ranking are re-measured on the direction
service before the final ranking, spending calls only on legs that can change it: the best order's legs (drawn
anyway), then, of orders 2..top, only the legs not asked yet (those they do not share with a measured order), and
only for an order whose lower bound could still outrank the measured best. Their matrix cells are replaced by the
directions' figures and every order is scored again; while the best order still holds a leg that was not
re-measured, that order is re-measured too (a bounded number of times) - so the best route is never one whose
figures are partly the matrix's beside others that are all directions'. Legs not re-measured keep their matrix
figures and say so (``measured_by``). The drawn path of each re-measured leg is kept for the geometry stage, which
then asks for nothing twice.

A leg the direction service failed, or answered with the offline estimate, keeps its matrix figures and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import get_args

import numpy as np

from core.errors import ProviderError
from core.geo.base import Leg, LonLat
from core.geo.composite import MapServices
from core.models.route import MetricSource, Notice, RoutePlanRequest, RouteStrategy, TransportMode
from core.optimizer.order_search import order_totals
from core.route.notices import notice
from core.route.strategies import Scored, could_outrank, rank

Pair = tuple[int, int]


@dataclass
class DirectionLegs:
    """What the direction service answered per matrix pair (a Leg with its path), and the pairs it did not."""

    legs: dict[Pair, Leg] = field(default_factory=dict)
    #: pairs the service failed (its error), or answered with the fallback's estimate (that answer, drawable)
    failed: dict[Pair, ProviderError] = field(default_factory=dict)
    estimates: dict[Pair, Leg] = field(default_factory=dict)

    def asked(self, pair: Pair) -> bool:
        return pair in self.legs or pair in self.failed or pair in self.estimates


def directions_wanted(request: RoutePlanRequest, *, provider: MapServices) -> bool:
    """Re-measure on directions: as the request says, else where the router's matrix and directions differ."""
    if request.exact_legs is not None:
        return request.exact_legs
    return provider.directions_differ


def _order_pairs(order: tuple[int, ...], *, start: int | None, end: int) -> list[Pair]:
    nodes = [*([start] if start is not None else []), *order, end]
    return list(zip(nodes, nodes[1:]))


def measure(
    pairs: list[Pair],
    known: DirectionLegs,
    *,
    points: list[LonLat],
    provider: MapServices,
    mode: TransportMode,
) -> None:
    """Ask the direction service for each pair not asked yet (one cached route call each)."""
    for a, b in pairs:
        if known.asked((a, b)) or points[a] == points[b]:
            continue
        try:
            leg = provider.route(points[a], points[b], mode=mode)
        except ProviderError as exc:
            known.failed[(a, b)] = exc
            continue
        if leg.source == "offline_estimate" or leg.source not in get_args(MetricSource):
            known.estimates[(a, b)] = leg  # the fallback's straight line: no direction figure to show
        else:
            known.legs[(a, b)] = leg


def _patched(dist: np.ndarray, dur: np.ndarray, known: DirectionLegs) -> tuple[np.ndarray, np.ndarray, dict[Pair, str]]:
    dist, dur = dist.copy(), dur.copy()
    sources: dict[Pair, str] = {}
    for (a, b), leg in known.legs.items():
        dist[a, b], dur[a, b] = float(round(leg.distance_m)), float(round(leg.duration_s))  # as the legs show them
        sources[(a, b)] = leg.source
    return dist, dur, sources


def rescored(scored: list[Scored], dist: np.ndarray, dur: np.ndarray, *, start: int | None, end: int) -> list[Scored]:
    """The same orders with their totals on (re-measured) figures."""
    if not scored:
        return []
    arr = np.asarray([s.order for s in scored], dtype=int)
    tot_d = order_totals(arr, dist, start, end)
    tot_t = order_totals(arr, dur, start, end)
    return [
        Scored(order=s.order, distance_m=float(d), duration_s=float(t))
        for s, d, t in zip(scored, tot_d, tot_t, strict=True)
    ]


@dataclass
class Remeasured:
    """The orders scored again on the re-measured figures, the matrices they used, and what was measured."""

    scored: list[Scored]
    dist: np.ndarray
    dur: np.ndarray
    sources: dict[Pair, str]
    known: DirectionLegs
    #: how many of the matrix ranking's top orders were re-measured (the final best included)
    orders_measured: int
    #: the top orders left partly on matrix figures: their lower bound could not beat the measured best
    bounded: list[tuple[int, ...]] = field(default_factory=list)


def _ratios(known: DirectionLegs, dist: np.ndarray, dur: np.ndarray) -> tuple[float, float]:
    """The smallest directions ÷ matrix ratio among the legs measured so far, for distance and for duration, at
    most 1 (a leg is never assumed longer than the matrix says)."""
    rho_d = rho_t = 1.0
    for (a, b), leg in known.legs.items():
        if dist[a, b] > 0:
            rho_d = min(rho_d, float(leg.distance_m) / float(dist[a, b]))
        if dur[a, b] > 0:
            rho_t = min(rho_t, float(leg.duration_s) / float(dur[a, b]))
    return rho_d, rho_t


def lower_bound(
    order: tuple[int, ...], known: DirectionLegs, *, dist: np.ndarray, dur: np.ndarray, start: int | None, end: int
) -> Scored:
    """What an order's totals on directions can be at least: its measured legs at the directions' figures, every
    other leg at its matrix figure times the smallest directions ÷ matrix ratio measured in this plan (at most 1).
    A bound from this plan's own figures, not a guarantee: it holds while no unmeasured leg's directions figure
    falls further below its matrix figure than any leg measured so far did."""
    rho_d, rho_t = _ratios(known, dist, dur)
    total_d = total_t = 0.0
    for a, b in _order_pairs(order, start=start, end=end):
        leg = known.legs.get((a, b))
        if leg is not None:
            total_d += float(leg.distance_m)
            total_t += float(leg.duration_s)
        else:
            total_d += rho_d * float(dist[a, b])
            total_t += rho_t * float(dur[a, b])
    return Scored(order=order, distance_m=total_d, duration_s=total_t)


def remeasure(
    scored: list[Scored],
    *,
    dist: np.ndarray,
    dur: np.ndarray,
    start: int | None,
    end: int,
    points: list[LonLat],
    strategy: RouteStrategy,
    tolerance: float,
    time_slack: float,
    provider: MapServices,
    mode: TransportMode,
    top: int,
) -> Remeasured:
    """Re-measure on directions the legs that can change the ranking among the ``top`` orders of the matrix
    ranking: every leg of the best (drawn anyway), then each of orders 2..``top`` whose lower bound
    (:func:`lower_bound`) could still outrank the best measured order - only its legs not asked yet, which are the
    ones it does not share with an order measured before. An order whose bound cannot is left partly on matrix
    figures (``bounded``), and looked at again whenever the measured best changes. Then, while the best order on
    the new figures still has a leg not asked, that order too (at most ``top`` more)."""
    known = DirectionLegs()
    tops = rank(scored, strategy, tolerance=tolerance, time_slack=time_slack)[: max(1, top)]
    measured_orders = [tops[0]]

    def pairs_of(idx: int) -> list[Pair]:
        return _order_pairs(scored[idx].order, start=start, end=end)

    def on_new_figures() -> tuple[np.ndarray, np.ndarray, dict[Pair, str], list[Scored]]:
        new_dist, new_dur, sources = _patched(dist, dur, known)
        return new_dist, new_dur, sources, rescored(scored, new_dist, new_dur, start=start, end=end)

    measure(pairs_of(tops[0]), known, points=points, provider=provider, mode=mode)
    new_dist, new_dur, sources, now = on_new_figures()
    changed = True
    while changed:  # a new measured best may let an order skipped against the old one outrank it
        changed = False
        for idx in tops[1:]:
            if idx in measured_orders:
                continue
            done = [now[i] for i in measured_orders]
            champion = done[rank(done, strategy, tolerance=tolerance, time_slack=time_slack)[0]]
            low = lower_bound(scored[idx].order, known, dist=dist, dur=dur, start=start, end=end)
            if not could_outrank(low, champion, strategy, tolerance=tolerance, time_slack=time_slack):
                continue
            measured_orders.append(idx)
            measure(pairs_of(idx), known, points=points, provider=provider, mode=mode)
            new_dist, new_dur, sources, now = on_new_figures()
            changed = True
    for _ in range(max(1, top)):
        best = rank(now, strategy, tolerance=tolerance, time_slack=time_slack)[0]
        pairs = pairs_of(best)
        if best in measured_orders or all(known.asked(p) or points[p[0]] == points[p[1]] for p in pairs):
            break
        measured_orders.append(best)
        measure(pairs, known, points=points, provider=provider, mode=mode)
        new_dist, new_dur, sources, now = on_new_figures()
    return Remeasured(
        scored=now,
        dist=new_dist,
        dur=new_dur,
        sources=sources,
        known=known,
        orders_measured=len(measured_orders),
        bounded=[scored[i].order for i in tops[1:] if i not in measured_orders],
    )


def kept_matrix_notice(
    order: tuple[int, ...], known: DirectionLegs, *, start: int | None, end: int, labels: list[str]
) -> list[Notice]:
    """The best route's legs the direction service failed, which keep their matrix figures. (A leg never asked,
    the time for providers having run out, is the provider's own "not requested" warning, not this one.)"""
    kept = [
        f"{labels[a]} → {labels[b]}" for a, b in _order_pairs(order, start=start, end=end) if (a, b) in known.failed
    ]
    return [notice("EXACT_LEGS_KEPT", n=len(kept), legs=", ".join(kept))] if kept else []
