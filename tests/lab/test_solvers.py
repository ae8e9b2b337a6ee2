"""The lab's optimisers on small matrices whose optimum is known by brute force, and Valhalla's optimized_route
(params builder and parser on a recorded body, and the embedded engine on the helsinki pack's roads)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from core.errors import ProviderError
from core.geo.base import LonLat
from core.geo.valhalla import EmbeddedValhalla, ValhallaRouter, optimized_route_params, parse_optimized_route
from core.lab.solvers import (
    nearest_neighbour_path,
    order_cost,
    ortools_path,
    run_nearest_neighbour,
    run_ortools,
    run_valhalla,
)
from core.optimizer.order_search import candidate_orders
from core.packs.loader import load_region
from tests.support.paths import ROOT

FIXTURE = ROOT / "tests" / "lab" / "fixtures" / "valhalla_optimized_route_pedestrian.json"
CATHEDRAL = LonLat(24.952159, 60.170378)
STATION = LonLat(24.941197, 60.171204)
ATENEUM = LonLat(24.944219, 60.170018)
KIASMA = LonLat(24.93667, 60.172032)
OLD_MARKET_HALL = LonLat(24.9531, 60.1671)


def brute_force(cost: np.ndarray, stops: list[int], *, start: int | None, end: int) -> float:
    return min(order_cost(cost, p, start=start, end=end) for p in itertools.permutations(stops))


def random_matrix(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    m = rng.integers(50, 5000, size=(n, n)).astype(float)  # asymmetric, like one-way streets
    np.fill_diagonal(m, 0.0)
    return m


def test_order_cost_adds_the_legs_from_start_through_the_order_to_end():
    m = np.array([[0, 1, 10, 100], [2, 0, 20, 200], [3, 30, 0, 300], [4, 40, 400, 0]], dtype=float)
    assert order_cost(m, (1, 2), start=0, end=3) == 1 + 20 + 300
    assert order_cost(m, (2, 1), start=None, end=3) == 30 + 200


def test_nearest_neighbour_takes_the_cheapest_next_stop_even_when_it_costs_more_overall():
    # from 0: stop 1 is nearest (1), then 2 (10), then the end (100) = 111; the optimum 0-2-1-3 costs 5+10+1 = 16
    m = np.full((4, 4), 1000.0)
    np.fill_diagonal(m, 0.0)
    m[0, 1], m[1, 2], m[2, 3] = 1, 10, 100
    m[0, 2], m[2, 1], m[1, 3] = 5, 10, 1
    assert nearest_neighbour_path(m, [1, 2], start=0, end=3) == (1, 2)
    run = run_nearest_neighbour(m, m, [1, 2], start=0, end=3)
    assert order_cost(m, run.solves["distance_m"].order, start=0, end=3) == 111
    assert brute_force(m, [1, 2], start=0, end=3) == 16
    assert run.solves["distance_m"].status == "heuristic"


def test_nearest_neighbour_without_a_start_tries_every_first_stop():
    m = np.full((4, 4), 1000.0)
    np.fill_diagonal(m, 0.0)
    m[2, 1], m[1, 0], m[0, 3] = 1, 1, 1  # 2 -> 1 -> 0 -> end costs 3; starting at 0 or 1 costs far more
    assert nearest_neighbour_path(m, [0, 1, 2], start=None, end=3) == (2, 1, 0)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("start", [0, None])
def test_ortools_reaches_the_brute_force_optimum_on_seven_stops(seed: int, start: int | None):
    m = random_matrix(9, seed)
    stops = list(range(1, 8))
    order, status = ortools_path(m, stops, start=start, end=8, time_limit_s=0.3)
    assert sorted(order) == stops
    assert order_cost(m, order, start=start, end=8) == pytest.approx(brute_force(m, stops, start=start, end=8))
    assert status.startswith("ROUTING_")


def test_ortools_run_answers_both_objectives_with_its_time_limit():
    dist, dur = random_matrix(7, 5), random_matrix(7, 6)
    run = run_ortools(dist, dur, [1, 2, 3, 4, 5], start=0, end=6, time_limit_s=0.1)
    assert run.time_limit_s == 0.1 and run.time_s is not None
    for objective, mat in (("distance_m", dist), ("duration_s", dur)):
        solve = run.solves[objective]
        assert solve.status in ("optimal", "feasible")
        assert order_cost(mat, solve.order, start=0, end=6) == pytest.approx(
            brute_force(mat, [1, 2, 3, 4, 5], start=0, end=6)
        )


@pytest.mark.parametrize("seed", [4, 5])
def test_the_projects_order_search_holds_the_brute_force_optimum(seed: int):
    dist, dur = random_matrix(9, seed), random_matrix(9, seed + 10)
    stops = list(range(1, 8))
    pool, info = candidate_orders(
        dist, dur, stops, start=0, end=8, max_permutations=24, exact_limit=15, time_limit_s=1.0, seed=0
    )
    assert info.exact and info.method == "held_karp"
    for mat in (dist, dur):
        best = min(order_cost(mat, o, start=0, end=8) for o in pool)
        assert best == pytest.approx(brute_force(mat, stops, start=0, end=8))


# ---- Valhalla's optimized_route ------------------------------------------------------------------------
def test_the_optimized_route_body_and_its_recorded_answer():
    recorded = json.loads(FIXTURE.read_text(encoding="utf-8"))
    pts = [STATION, CATHEDRAL, KIASMA, OLD_MARKET_HALL, ATENEUM, STATION]
    body = optimized_route_params(pts, costing="pedestrian")
    assert body == recorded["request"]
    assert body["directions_type"] == "none" and len(body["locations"]) == 6
    assert parse_optimized_route(recorded["response"], locations=6) == [0, 4, 1, 3, 2, 5]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"trip": {"locations": [{"original_index": 0}, {"original_index": 0}]}},
        {"trip": {"locations": [{"original_index": 1}, {"original_index": 0}]}},
    ],
)
def test_an_optimized_route_answer_that_is_not_an_order_is_a_provider_error(body: dict):
    with pytest.raises(ProviderError):
        parse_optimized_route(body, locations=2)


@pytest.fixture(scope="module")
def embedded() -> ValhallaRouter:
    tile_dir = load_region("helsinki").tile_dir
    assert tile_dir is not None, "the helsinki pack is built by `make install`"
    return ValhallaRouter(EmbeddedValhalla(tile_dir))


def test_valhalla_orders_the_stops_between_a_fixed_start_and_end_and_is_judged_on_our_matrix(
    embedded: ValhallaRouter,
):
    points = [STATION, CATHEDRAL, KIASMA, OLD_MARKET_HALL, ATENEUM, STATION]
    matrix = embedded.matrix(points, mode="walking")
    dist = np.asarray(matrix.distances_m)
    run = run_valhalla(embedded, points, [1, 2, 3, 4], start=0, end=5, mode="walking")
    order = run.solves["distance_m"].order
    assert order is not None and sorted(order) == [1, 2, 3, 4]
    assert run.solves["duration_s"].order == order  # one order answers both objectives
    assert order_cost(dist, order, start=0, end=5) >= brute_force(dist, [1, 2, 3, 4], start=0, end=5) - 1e-6


def test_valhalla_does_not_apply_without_a_road_network_or_a_fixed_start(embedded: ValhallaRouter):
    none = run_valhalla(None, [STATION, CATHEDRAL, KIASMA], [1], start=0, end=2, mode="driving")
    assert none.solves["distance_m"].status == "not_applicable"
    assert none.solves["distance_m"].error_code == "NO_ROAD_NETWORK"
    free = run_valhalla(embedded, [STATION, CATHEDRAL, KIASMA], [0, 1], start=None, end=2, mode="driving")
    assert free.solves["duration_s"].error_code == "NO_FIXED_START"


def test_a_point_off_the_network_is_an_outside_coverage_error_row(embedded: ValhallaRouter):
    far = LonLat(25.2, 60.3)  # 19 km north-east: outside the extract
    run = run_valhalla(embedded, [STATION, far, KIASMA], [1], start=0, end=2, mode="driving")
    assert run.solves["distance_m"].status == "error"
    assert run.solves["distance_m"].error_code == "OUTSIDE_COVERAGE"
