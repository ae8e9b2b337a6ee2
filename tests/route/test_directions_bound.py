"""The re-measure on directions spends calls only on legs that can change the ranking (core/route/directions.py),
and picks the same best order as re-measuring every leg would.

A small trip (start, 5 stops, end: 120 orders) with a matrix and a direction service whose figures are set per leg;
the reference ranks every order on the direction figures of every leg."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from core.geo.base import Leg, LonLat
from core.optimizer.order_search import order_totals
from core.route.directions import lower_bound, remeasure
from core.route.strategies import Scored, rank

START, STOPS, END = 0, (1, 2, 3, 4, 5), 6
TOL, SLACK = 0.02, 0.15


class Directions:
    """A direction service answering each leg from a figure table, counting the legs asked."""

    def __init__(self, dist: np.ndarray, dur: np.ndarray, points: list[LonLat]) -> None:
        self.dist, self.dur = dist, dur
        self.index = {p: i for i, p in enumerate(points)}
        self.asked: list[tuple[int, int]] = []

    def route(self, origin: LonLat, destination: LonLat, *, mode: str) -> Leg:
        a, b = self.index[origin], self.index[destination]
        self.asked.append((a, b))
        return Leg(distance_m=self.dist[a, b], duration_s=self.dur[a, b], source="amap", mode="driving")


def trip(seed: int) -> tuple[np.ndarray, np.ndarray, list[LonLat], list[Scored]]:
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0, 10_000, size=(7, 2))
    dist = np.linalg.norm(xy[:, None, :] - xy[None, :, :], axis=2) * 1.3
    dur = dist / rng.uniform(8, 12, size=dist.shape)  # a speed per leg: time and distance do not rank alike
    points = [LonLat(121.0 + x / 1e5, 31.0 + y / 1e5) for x, y in xy]
    orders = list(itertools.permutations(STOPS))
    arr = np.asarray(orders)
    d, t = order_totals(arr, dist, START, END), order_totals(arr, dur, START, END)
    return dist, dur, points, [Scored(o, float(a), float(b)) for o, a, b in zip(orders, d, t, strict=True)]


def legs(order: tuple[int, ...]) -> list[tuple[int, int]]:
    nodes = [START, *order, END]
    return list(zip(nodes, nodes[1:]))


def reference_best(scored: list[Scored], dist: np.ndarray, dur: np.ndarray, strategy: str) -> tuple[int, ...]:
    """Every order on the direction figures of every leg."""
    arr = np.asarray([s.order for s in scored])
    d, t = order_totals(arr, dist, START, END), order_totals(arr, dur, START, END)
    on_directions = [Scored(s.order, float(a), float(b)) for s, a, b in zip(scored, d, t, strict=True)]
    return on_directions[rank(on_directions, strategy, tolerance=TOL, time_slack=SLACK)[0]].order  # type: ignore[arg-type]


def run(scored, dist, dur, points, service, strategy):
    done = remeasure(
        scored, dist=dist, dur=dur, start=START, end=END, points=points, strategy=strategy, tolerance=TOL,
        time_slack=SLACK, provider=service, mode="driving", top=3,
    )  # fmt: skip
    return done, done.scored[rank(done.scored, strategy, tolerance=TOL, time_slack=SLACK)[0]].order


@pytest.mark.parametrize("strategy", ["fastest_time", "shortest_distance", "balanced"])
def test_where_directions_overturn_the_matrix_best_the_bound_finds_the_same_best_as_measuring_everything(strategy):
    dist, dur, points, scored = trip(seed=7)
    top = [scored[i].order for i in rank(scored, strategy, tolerance=TOL, time_slack=SLACK)[:3]]
    # the directions say one leg of the matrix's best, not on order 2, is 40 % longer and slower
    only_best = [p for p in legs(top[0]) if p not in legs(top[1])][0]
    d_dist, d_dur = dist.copy(), dur.copy()
    d_dist[only_best] *= 1.4
    d_dur[only_best] *= 1.4
    expected = reference_best(scored, d_dist, d_dur, strategy)
    assert expected != top[0]  # the case matters: measuring changes the best
    service = Directions(d_dist, d_dur, points)
    done, best = run(scored, dist, dur, points, service, strategy)
    assert best == expected
    assert len(service.asked) == len(set(service.asked))  # no leg asked twice
    everything = {p for o in top for p in legs(o)}  # the old way: every leg of the top three
    assert set(service.asked) <= everything | set(legs(best))


@pytest.mark.parametrize("strategy", ["fastest_time", "shortest_distance", "balanced"])
def test_where_directions_equal_the_matrix_only_the_best_legs_are_asked(strategy):
    dist, dur, points, scored = trip(seed=7)
    matrix_best = scored[rank(scored, strategy, tolerance=TOL, time_slack=SLACK)[0]].order
    service = Directions(dist, dur, points)
    done, best = run(scored, dist, dur, points, service, strategy)
    assert best == matrix_best == reference_best(scored, dist, dur, strategy)
    # nothing can outrank the best on figures that are its own: the best's 6 legs, nothing more
    assert sorted(service.asked) == sorted(legs(matrix_best))
    assert len(done.bounded) == 2  # orders 2 and 3 left partly on the matrix, and said so per leg


def test_the_lower_bound_scales_unmeasured_legs_by_the_smallest_ratio_measured():
    dist, dur, points, scored = trip(seed=3)
    d_dist, d_dur = dist * 0.9, dur * 0.8  # the direction service answers every leg shorter than the matrix
    service = Directions(d_dist, d_dur, points)
    done, best = run(scored, dist, dur, points, service, "fastest_time")
    assert best == reference_best(scored, d_dist, d_dur, "fastest_time")
    other = next(s.order for s in scored if not set(legs(s.order)) & set(service.asked))
    low = lower_bound(other, done.known, dist=dist, dur=dur, start=START, end=END)
    pairs = legs(other)
    assert low.distance_m == pytest.approx(0.9 * sum(dist[p] for p in pairs))
    assert low.duration_s == pytest.approx(0.8 * sum(dur[p] for p in pairs))
