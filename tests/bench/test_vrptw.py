"""VRPTW solver: Solomon reader, independent checker, solver on small instances, benchmark keys.

Self-contained (never reads /work/shared): instances are written into tmp_path or built in memory.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from bench.instances import VrptwInstance, check_solution, read_solomon
from bench.vrptw import bench_vrptw
from bench.vrptw_solver import VrptwSolution, solve_vrptw

HEADER = (
    "{name}\r\n\r\nVEHICLE\r\nNUMBER     CAPACITY\r\n  {fleet}         {cap}\r\n\r\nCUSTOMER\r\n"
    "CUST NO.  XCOORD.   YCOORD.    DEMAND   READY TIME  DUE DATE   SERVICE   TIME\r\n\r\n"
)


def write_solomon(path, name, fleet, cap, rows):
    text = HEADER.format(name=name, fleet=fleet, cap=cap)
    for r in rows:
        text += "  ".join(f"{x:>8}" for x in r) + "  \r\n"
    path.write_bytes(text.encode("ascii"))
    return path


def make_instance(coords, demand, ready, due, service, capacity, fleet=25, ids=None, name="T"):
    n1 = len(coords)
    return VrptwInstance(
        name=name,
        coords=np.asarray(coords, dtype=float),
        demand=np.asarray(demand, dtype=float),
        ready=np.asarray(ready, dtype=float),
        due=np.asarray(due, dtype=float),
        service=np.asarray(service, dtype=float),
        capacity=float(capacity),
        fleet=fleet,
        ids=list(range(n1)) if ids is None else list(ids),
    )


def random_instance(n, seed, capacity=60, horizon=400, width=(40, 120)):
    """Random instance that is feasible with one vehicle per customer (windows around the direct arrival)."""
    rng = np.random.default_rng(seed)
    coords = np.vstack([[50.0, 50.0], rng.integers(0, 101, size=(n, 2)).astype(float)])
    d0 = np.hypot(*(coords - coords[0]).T)
    demand = np.concatenate([[0], rng.integers(5, 25, size=n)])
    service = np.concatenate([[0], np.full(n, 10.0)])
    ready = np.zeros(n + 1)
    due = np.zeros(n + 1)
    due[0] = horizon
    for i in range(1, n + 1):
        w = rng.uniform(*width)
        latest = horizon - service[i] - d0[i]  # latest start that still returns by the horizon
        start = rng.uniform(d0[i], max(d0[i] + 1, latest - w))
        ready[i] = math.floor(start)
        due[i] = math.floor(min(latest, start + w))
        assert due[i] >= math.ceil(d0[i])
    return make_instance(coords, demand, ready, due, service, capacity)


# ------------------------------------------------------------------------------------------------
# reader
# ------------------------------------------------------------------------------------------------


def test_read_solomon_crlf_and_header(tmp_path):
    rows = [
        (0, 40, 50, 0, 0, 1236, 0),
        (1, 45, 68, 10, 912, 967, 90),
        (2, 45, 70, 30, 825, 870, 90),
        (7, 42, 66, 10, 65, 146, 90),
    ]
    p = write_solomon(tmp_path / "X101.txt", "X101", 25, 200, rows)
    assert b"\r\n" in p.read_bytes()
    inst = read_solomon(p)
    assert inst.name == "X101"
    assert inst.fleet == 25 and inst.capacity == 200.0
    assert inst.ids == [0, 1, 2, 7]
    assert inst.coords.shape == (4, 2)
    np.testing.assert_array_equal(inst.coords[3], [42, 66])
    np.testing.assert_array_equal(inst.demand, [0, 10, 30, 10])
    np.testing.assert_array_equal(inst.ready, [0, 912, 825, 65])
    np.testing.assert_array_equal(inst.due, [1236, 967, 870, 146])
    np.testing.assert_array_equal(inst.service, [0, 90, 90, 90])


def test_read_solomon_other_header_values(tmp_path):
    rows = [(0, 35, 35, 0, 0, 230, 0), (1, 41, 49, 10, 161, 171, 10)]
    inst = read_solomon(write_solomon(tmp_path / "r.txt", "R201", 7, 1000, rows))
    assert (inst.fleet, inst.capacity, inst.n) == (7, 1000.0, 1)


# ------------------------------------------------------------------------------------------------
# checker
# ------------------------------------------------------------------------------------------------


@pytest.fixture
def small():
    # depot (0,0); customers (ids 11, 12, 13) at distances 5 (3-4-5 triangle), 3 and 4 from the depot
    return make_instance(
        coords=[(0, 0), (3, 4), (3, 0), (0, 4)],
        demand=[0, 4, 3, 5],
        ready=[0, 0, 0, 20],
        due=[100, 50, 50, 30],
        service=[0, 1, 2, 0],
        capacity=10,
        fleet=3,
        ids=[0, 11, 12, 13],
    )


def test_check_solution_exact_distance(small):
    ok, dist, bad = check_solution(small, [[12, 11], [13]])
    assert ok and bad == []
    # 0->12: 3, 12->11: 4, 11->0: 5  |  0->13: 4, 13->0: 4
    assert dist == pytest.approx(3 + 4 + 5 + 4 + 4, abs=1e-12)


def test_check_solution_capacity(small):
    ok, _, bad = check_solution(small, [[11, 12, 13]])  # load 12 > 10
    assert not ok and any("capacity" in b for b in bad)


def test_check_solution_late(small):
    # customer 13 must start by 7
    late = make_instance(
        coords=small.coords,
        demand=[0, 1, 1, 1],
        ready=[0, 0, 0, 0],
        due=[100, 50, 50, 7],
        service=[0, 1, 2, 0],
        capacity=10,
        fleet=3,
        ids=small.ids,
    )
    ok, _, bad = check_solution(late, [[11, 13], [12]])  # 13 reached at 5 + 1 + 3 = 9 > 7
    assert not ok and any("customer 13" in b and "due" in b for b in bad)
    ok, _, bad = check_solution(late, [[13, 11], [12]])  # 13 first at 4: fine
    assert ok, bad


def test_check_solution_missing_and_duplicate(small):
    ok, _, bad = check_solution(small, [[12, 11]])
    assert not ok and any("13 is not served" in b for b in bad)
    ok, _, bad = check_solution(small, [[12, 11], [13, 12]])
    assert not ok and any("12 is served 2 times" in b for b in bad)


def test_check_solution_horizon(small):
    tight = make_instance(
        coords=small.coords,
        demand=[0, 1, 1, 1],
        ready=[0, 0, 0, 0],
        due=[9.5, 50, 50, 50],
        service=[0, 1, 2, 0],
        capacity=10,
        fleet=3,
        ids=small.ids,
    )
    ok, _, bad = check_solution(tight, [[11], [12], [13]])  # 11: 5 + 1 + 5 = 11 > 9.5
    assert not ok and any("horizon" in b for b in bad)
    assert sum("horizon" in b for b in bad) == 1


def test_check_solution_fleet_and_unknown(small):
    ok, _, bad = check_solution(small, [[11], [12], [13], [99]])
    assert not ok and any("unknown" in b for b in bad) and any("fleet" in b for b in bad)


# ------------------------------------------------------------------------------------------------
# solver
# ------------------------------------------------------------------------------------------------


def assert_valid(inst: VrptwInstance, sol: VrptwSolution):
    ok, dist, bad = check_solution(inst, sol.routes)
    assert ok, bad
    assert sol.feasible
    assert sol.vehicles == len(sol.routes) == sum(1 for r in sol.routes if r)
    assert sol.distance == pytest.approx(dist, abs=1e-9)
    served = sorted(c for r in sol.routes for c in r)
    assert served == sorted(inst.ids[1:])


@pytest.mark.slow
@pytest.mark.parametrize("n,seed", [(12, 1), (25, 2)])
def test_solve_random_instances_feasible(n, seed):
    inst = random_instance(n, seed)
    sol = solve_vrptw(inst, time_limit_s=1.5, seed=seed)
    assert_valid(inst, sol)
    # never worse than serving each customer alone
    assert sol.vehicles <= n


def brute_force(inst: VrptwInstance) -> tuple[int, float]:
    """Best (vehicles, distance) over all ordered set partitions of the customers."""
    cust = inst.ids[1:]
    best = (math.inf, math.inf)
    memo: dict[tuple[int, ...], bool] = {}

    def route_ok(route):
        key = tuple(route)
        if key not in memo:
            memo[key] = check_solution(_single(inst, route), [list(route)])[0]
        return memo[key]

    for perm in itertools.permutations(cust):
        for mask in range(1 << (len(cust) - 1)):
            routes, cur = [], [perm[0]]
            for i in range(1, len(perm)):
                if mask >> (i - 1) & 1:
                    routes.append(cur)
                    cur = []
                cur.append(perm[i])
            routes.append(cur)
            if len(routes) > best[0]:
                continue
            if all(route_ok(r) for r in routes):
                ok, dist, _ = check_solution(inst, routes)
                if ok and (len(routes), dist) < best:
                    best = (len(routes), dist)
    return best


def _single(inst, route):
    """The instance restricted to the customers of ``route`` (to check one route on its own)."""
    rows = [0] + [inst.ids.index(c) for c in route]
    return make_instance(
        inst.coords[rows],
        inst.demand[rows],
        inst.ready[rows],
        inst.due[rows],
        inst.service[rows],
        inst.capacity,
        inst.fleet,
        [inst.ids[r] for r in rows],
    )


def test_solve_tiny_instance_is_optimal():
    # 6 customers, capacity 30 with demands summing to 70 -> at least 3 vehicles; loose-ish windows
    inst = make_instance(
        coords=[(50, 50), (20, 70), (25, 80), (80, 75), (85, 60), (60, 15), (40, 20)],
        demand=[0, 10, 15, 12, 13, 9, 11],
        ready=[0, 0, 30, 0, 50, 0, 100],
        due=[300, 150, 120, 100, 160, 200, 220],
        service=[0, 5, 5, 5, 5, 5, 5],
        capacity=30,
        fleet=10,
        ids=[0, 3, 5, 8, 13, 21, 34],
    )
    veh, dist = brute_force(inst)
    sol = solve_vrptw(inst, time_limit_s=1.0, seed=0)
    assert_valid(inst, sol)
    assert sol.vehicles == veh
    assert sol.distance == pytest.approx(dist, abs=1e-6)


@pytest.mark.slow
def test_solve_single_process_path():
    inst = random_instance(10, 5)
    sol = solve_vrptw(inst, time_limit_s=0.8, seed=1, workers=1)
    assert_valid(inst, sol)


def test_solve_empty_instance():
    inst = make_instance([(0, 0)], [0], [0], [100], [0], 10)
    sol = solve_vrptw(inst, time_limit_s=0.5)
    assert sol.routes == [] and sol.vehicles == 0 and sol.feasible


# ------------------------------------------------------------------------------------------------
# benchmark
# ------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_bench_vrptw_keys(tmp_path):
    inst = random_instance(8, 3)
    rows = [
        (
            inst.ids[i],
            int(inst.coords[i, 0]),
            int(inst.coords[i, 1]),
            int(inst.demand[i]),
            int(inst.ready[i]),
            int(inst.due[i]),
            int(inst.service[i]),
        )
        for i in range(len(inst.ids))
    ]
    p = write_solomon(tmp_path / "B1.txt", "B1", 25, 60, rows)
    out = bench_vrptw(str(p), time_limit_s=1.0)
    assert {"instance", "vehicles", "distance", "routes", "seconds"} <= set(out)
    assert out["instance"] == "B1"
    assert out["vehicles"] == len(out["routes"])
    assert sorted(c for r in out["routes"] for c in r) == list(range(1, 9))
    assert isinstance(out["distance"], float) and out["distance"] > 0
    assert out["seconds"] > 0
    ok, dist, bad = check_solution(read_solomon(p), out["routes"])
    assert ok, bad
    assert dist == pytest.approx(out["distance"])


# ------------------------------------------------------------------------------------------------
# numba kernels (bench.vrptw_sisr)
# ------------------------------------------------------------------------------------------------


def _int_data(inst):
    from bench.vrptw_sisr import SisrData
    from bench.vrptw_solver import _Model

    m = _Model(inst)
    return m, SisrData(m.transit, m.cost, m.ready, m.due, m.demand, m.capacity)


def _ref_schedule(d, route):
    """Plain-Python forward pass in the integer model: (feasible, service starts)."""
    t, prev, starts, ok = int(d.e[0]), 0, [], True
    for c in route:
        t = max(t + int(d.T[prev, c]), int(d.e[c]))
        ok &= t <= d.l[c]
        starts.append(t)
        prev = c
    if route:
        ok &= t + int(d.T[prev, 0]) <= d.H
    return ok, starts


def test_route_eval_slack_arrays_match_reference_and_checker():
    from bench.vrptw_kernels import route_eval

    inst = random_instance(14, 7, width=(60, 200))
    _, d = _int_data(inst)
    rng = np.random.default_rng(0)
    n_ok = 0
    for _trial in range(300):
        m = int(rng.integers(1, 7))
        route = [int(x) for x in rng.choice(np.arange(1, d.n), size=m, replace=False)]
        rt, rlen = d.to_arrays([route], 1)
        A = np.zeros_like(rt)
        Z = np.zeros_like(rt)
        load = np.zeros(1, np.int64)
        cost = np.zeros(1, np.int64)
        ok = route_eval(d.T, d.C, d.e, d.l, d.q, d.H, rt, rlen, 0, A, Z, load, cost)
        ref_ok, starts = _ref_schedule(d, route)
        assert ok == ref_ok
        assert list(A[0, :m]) == starts
        assert cost[0] == d.cost([route]) and load[0] == sum(int(d.q[c]) for c in route)
        if ok:
            n_ok += 1
            # integer-feasible => feasible in double precision (capacity aside)
            big = make_instance(inst.coords, np.zeros(len(inst.ids)), inst.ready, inst.due, inst.service, 1e9)
            okd, _, bad = check_solution(
                big, [[big.ids[c] for c in route]] + [[c] for c in range(1, d.n) if c not in route]
            )
            assert okd, bad
            # Z[i] is the latest start of service at position i that keeps the rest of the route feasible
            for i in range(m):

                def tail_ok(start, route=route, i=i):
                    t, prev = start, route[i]
                    for c in route[i + 1 :]:
                        t = max(t + int(d.T[prev, c]), int(d.e[c]))
                        if t > d.l[c]:
                            return False
                        prev = c
                    return t + int(d.T[prev, 0]) <= d.H and start <= d.l[route[i]]

                assert A[0, i] <= Z[0, i]
                assert tail_ok(int(Z[0, i])) and not tail_ok(int(Z[0, i]) + 1)
    assert n_ok >= 20


def test_best_insert_matches_brute_force():
    from bench.vrptw_kernels import _best_insert, route_eval

    inst = random_instance(16, 11, width=(80, 250), capacity=120)
    _, d = _int_data(inst)
    rng = np.random.default_rng(1)
    for _trial in range(60):
        cust = [int(x) for x in rng.permutation(np.arange(1, d.n))]
        v, rest = cust[0], cust[1:]
        # build feasible routes greedily from a random order (no insertion of v)
        routes = []
        for c in rest:
            for r in routes:
                if _ref_schedule(d, r + [c])[0] and sum(int(d.q[x]) for x in r) + d.q[c] <= d.Q:
                    r.append(c)
                    break
            else:
                routes.append([c])
        rt, rlen = d.to_arrays(routes, len(routes))
        R = len(routes)
        A, Z = np.zeros_like(rt), np.zeros_like(rt)
        load, cost = np.zeros(R, np.int64), np.zeros(R, np.int64)
        for k in range(R):
            assert route_eval(d.T, d.C, d.e, d.l, d.q, d.H, rt, rlen, k, A, Z, load, cost)
        k, p, delta = _best_insert(d.T, d.C, d.e, d.l, d.q, d.Q, d.H, rt, rlen, A, Z, load, v, 0.0)
        best = None
        for _kk, r in enumerate(routes):
            if sum(int(d.q[x]) for x in r) + d.q[v] > d.Q:
                continue
            for pp in range(len(r) + 1):
                nr = r[:pp] + [v] + r[pp:]
                if _ref_schedule(d, nr)[0]:
                    dc = d.cost([nr]) - d.cost([r])
                    if best is None or dc < best:
                        best = dc
        if best is None:
            assert k == -1
        else:
            assert k >= 0 and delta == best
            r = routes[k]
            assert _ref_schedule(d, r[:p] + [v] + r[p:])[0]


def test_run_sisr_reproducible_and_not_worse():
    from bench.vrptw_sisr import run_sisr

    inst = random_instance(30, 4, width=(60, 200), capacity=80)
    _, d = _int_data(inst)
    start = [[c] for c in range(1, d.n)]
    a = run_sisr(d, start, max_iterations=3000, seed=5)
    b = run_sisr(d, start, max_iterations=3000, seed=5)
    assert a == b
    assert len(a) <= len(start) and d.cost(a) <= d.cost(start)
    assert d.feasible(a)
    ok, _, bad = check_solution(inst, [[inst.ids[c] for c in r] for r in a])
    assert ok, bad
    assert sorted(c for r in a for c in r) == list(range(1, d.n))


def test_solve_with_iteration_budget():
    inst = random_instance(20, 9)
    sol = solve_vrptw(inst, time_limit_s=5.0, seed=2, max_iterations=2000)
    assert_valid(inst, sol)


def test_reduce_fleet_from_singletons_is_complete_and_feasible():
    import time as _time

    from bench.vrptw_sisr import reduce_fleet

    inst = random_instance(30, 6, width=(80, 250), capacity=100)
    _, d = _int_data(inst)
    start = [[c] for c in range(1, d.n)]
    out = reduce_fleet(d, start, deadline=_time.monotonic() + 1.0, seed=3, stall_s=0.3)
    assert len(out) < len(start)
    assert d.feasible(out)
    assert sorted(c for r in out for c in r) == list(range(1, d.n))
    ok, _, bad = check_solution(inst, [[inst.ids[c] for c in r] for r in out])
    assert ok, bad


def test_run_sisr_with_soft_penalty_returns_complete_solution():
    from bench.vrptw_sisr import run_sisr

    inst = random_instance(25, 8, width=(60, 200), capacity=80)
    _, d = _int_data(inst)
    start = [[c] for c in range(1, d.n)]
    out = run_sisr(d, start, max_iterations=2000, seed=1, penalty=1.0)
    assert d.feasible(out) and sorted(c for r in out for c in r) == list(range(1, d.n))
    assert d.cost(out) <= d.cost(start)


def test_long_routes_use_soft_penalty_and_stay_complete():
    from bench.vrptw_solver import _sisr_params

    assert all(_sisr_params(100, 3, v).get("penalty") for v in (0, 1))  # R2/RC2/C2-like: long routes
    # R1/RC1/C1-like short routes: worker 0 keeps to complete solutions, worker 1 may pass through partial ones
    assert _sisr_params(100, 10, 0).get("penalty") is None and _sisr_params(100, 10, 1).get("penalty")
    # few long routes: wide windows, large capacity and horizon -> the penalty path of the distance phase
    inst = random_instance(40, 12, capacity=1000, horizon=1500, width=(300, 900))
    sol = solve_vrptw(inst, time_limit_s=3.0, seed=1, max_iterations=3000)
    assert_valid(inst, sol)


def test_kick_and_repair_moves_to_another_complete_solution_with_no_more_routes():
    import time as _time

    from bench.vrptw_sisr import kick_and_repair, reduce_fleet

    inst = random_instance(40, 21, width=(80, 250), capacity=100)
    _, d = _int_data(inst)
    start = reduce_fleet(d, [[c] for c in range(1, d.n)], deadline=_time.monotonic() + 1.0, seed=2, stall_s=0.3)
    changed = 0
    for seed in range(5):
        out = kick_and_repair(d, start, n_remove=8, deadline=_time.monotonic() + 1.0, seed=seed)
        assert out is not None
        assert len(out) <= len(start)
        assert d.feasible(out) and sorted(c for r in out for c in r) == list(range(1, d.n))
        changed += sorted(map(tuple, out)) != sorted(map(tuple, start))
    assert changed >= 1  # the kick really leaves the start solution
    # no time left: no repair, and the caller keeps its solution
    assert kick_and_repair(d, start, n_remove=8, deadline=_time.monotonic() - 1.0, seed=0) is None
    # an iteration cap instead of a deadline: reproducible
    a = kick_and_repair(d, start, n_remove=8, max_chunks=10, seed=4)
    assert a is not None and a == kick_and_repair(d, start, n_remove=8, max_chunks=10, seed=4)


def test_kick_removes_exactly_the_asked_number_of_customers(monkeypatch):
    import time as _time

    import bench.vrptw_sisr as vs

    inst = random_instance(30, 5, width=(80, 250), capacity=100)
    _, d = _int_data(inst)
    start = vs.reduce_fleet(d, [[c] for c in range(1, d.n)], deadline=_time.monotonic() + 1.0, seed=1, stall_s=0.3)
    pools = []
    real = vs.sisr_fleet_chunk

    def spy(T, C, e, l, q, Q, H, neigh, rt, rlen, pool, npool, *rest):
        if not pools:
            pools.append(sorted(int(c) for c in pool[: npool[0]]))
            assert sum(int(x) for x in rlen) == d.n - 1 - npool[0]  # removed from the routes, not duplicated
        return real(T, C, e, l, q, Q, H, neigh, rt, rlen, pool, npool, *rest)

    monkeypatch.setattr(vs, "sisr_fleet_chunk", spy)
    vs.kick_and_repair(d, start, n_remove=7, max_chunks=3, seed=2)
    assert len(pools[0]) == 7


def test_exchange_board_keeps_the_hierarchically_best_solution():
    import multiprocessing as _mp

    from bench.vrptw_solver import _Exchange

    board = _Exchange(_mp.get_context(), 12, 1)  # one party: the barrier never waits
    assert board.swap([[1, 2], [3]], 500, timeout=0.1) == [[1, 2], [3]]
    # a costlier solution with as many routes does not replace the board
    assert board.swap([[3, 1], [2]], 700, timeout=0.1) == [[1, 2], [3]]
    # fewer routes win even at a higher cost
    assert board.swap([[1, 2, 3]], 900, timeout=0.1) == [[1, 2, 3]]
    assert board.swap([[2, 1], [3]], 100, timeout=0.1) == [[1, 2, 3]]


@pytest.mark.slow
def test_workers_exchange_solutions_during_the_distance_phase(monkeypatch):
    """Two workers with an iteration budget reach the sync points and both end at a valid solution."""
    import bench.vrptw_solver as vr

    calls = []
    real = vr._Exchange.swap

    def spy(self, routes, cost, *, timeout):
        out = real(self, routes, cost, timeout=timeout)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(vr._Exchange, "swap", spy)
    inst = random_instance(30, 17, width=(60, 200), capacity=80)
    board = vr._Exchange(__import__("multiprocessing").get_context(), len(inst.ids), 1)
    monkeypatch.setattr(vr, "_EXCHANGE", board)
    routes, method = vr._worker(inst, 3.0, 1, 0, 3000)
    assert len(calls) == len(vr.SYNC_SHARES) and all(calls)
    sol_routes = [[inst.ids[r] for r in route] for route in routes]
    ok, _, bad = check_solution(inst, sol_routes)
    assert ok, bad


@pytest.mark.slow
def test_a_missing_worker_breaks_the_barrier_once_and_swaps_go_on():
    import multiprocessing as _mp

    from bench.vrptw_solver import _Exchange

    board = _Exchange(_mp.get_context(), 12, 2)  # two parties, only one ever arrives
    assert board.swap([[1, 2], [3]], 500, timeout=0.05) == [[1, 2], [3]]
    assert board.barrier.broken  # later swaps do not wait for the missing worker
    assert board.swap([[1, 2, 3]], 900, timeout=0.05) == [[1, 2, 3]]
