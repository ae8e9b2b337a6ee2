"""The order search the products use: candidate stop orders for a route, exact where it is affordable
(enumeration, Held-Karp) and heuristic beyond, with their neighbours, vectorised totals of many orders, and one
order per sequence of places when stops share a place (docs/ARCHITECTURE.md, "Route planner")."""

from __future__ import annotations

import itertools
import math

import numpy as np

from core.models.route import OptimizerInfo
from core.optimizer.arrays import Floats, Nodes
from core.optimizer.ils import STOP_RANK, SearchStop
from core.optimizer.nearest import nearest_neighbour_path
from core.optimizer.tsp import held_karp_path, solve_path

_NEIGHBOURHOOD_MAX_STOPS = 40


def order_totals(orders: Nodes, mat: Floats, start: int | None, end: int) -> Floats:
    """Total cost of each row of ``orders`` (node indices) from start through the row to end."""
    total: Floats = mat[orders[:, :-1], orders[:, 1:]].sum(axis=1) + mat[orders[:, -1], end]
    if start is not None:
        total = total + mat[start, orders[:, 0]]
    return total


def distinct_place_orders(
    orders: list[tuple[int, ...]],
    distance_m: Floats,
    duration_s: Floats,
    place_of: dict[int, int],
) -> list[int]:
    """Indices of the orders to keep: one per sequence of places, the one with the lowest (distance, duration).

    ``place_of`` maps each stop node to a representative node of its place; two stops at the same place
    make orders that differ only by swapping them, which are not different routes."""
    if len(set(place_of.values())) == len(place_of):
        return list(range(len(orders)))
    kept: dict[tuple[int, ...], int] = {}
    for i, order in enumerate(orders):
        key = tuple(place_of[n] for n in order)
        old = kept.get(key)
        if old is None or (distance_m[i], duration_s[i]) < (distance_m[old], duration_s[old]):
            kept[key] = i
    return list(kept.values())


def neighbour_orders(order: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Orders one move away: adjacent swaps and single-stop relocations (for alternatives)."""
    out: set[tuple[int, ...]] = set()
    n = len(order)
    for i in range(n - 1):
        o = list(order)
        o[i], o[i + 1] = o[i + 1], o[i]
        out.add(tuple(o))
    if n <= _NEIGHBOURHOOD_MAX_STOPS:
        for i in range(n):
            rest = order[:i] + order[i + 1 :]
            for j in range(n):
                if j != i:
                    out.add(rest[:j] + (order[i],) + rest[j:])
    out.discard(order)
    return out


def _held_karp_pool(
    dist: Floats,
    dur: Floats,
    stop_nodes: list[int],
    *,
    start: int | None,
    end: int,
    max_permutations: int,
    exact_limit: int,
) -> tuple[set[tuple[int, ...]], OptimizerInfo]:
    """The exact shortest and fastest orders (Held-Karp) and their alternatives."""
    n = len(stop_nodes)
    n_orders = math.factorial(n)
    pool: set[tuple[int, ...]] = set()
    for mat in (dist, dur):
        sol = held_karp_path(mat, stop_nodes, start=start, end=end)
        pool.add(tuple(sol.order))
        pool.update(tuple(o) for o, _ in sol.alternatives)
    return pool, OptimizerInfo(
        method="held_karp",
        exact=True,
        orders_evaluated=None,
        stops=n,
        orders_possible=n_orders,
        max_permutations=max_permutations,
        exact_limit=exact_limit,
    )


def _heuristic_pool(
    dist: Floats,
    dur: Floats,
    stop_nodes: list[int],
    *,
    start: int | None,
    end: int,
    max_permutations: int,
    exact_limit: int,
    time_limit_s: float,
    seed: int,
) -> tuple[set[tuple[int, ...]], OptimizerInfo]:
    """The heuristic shortest and fastest orders (half the time limit each) and their alternatives, with the
    engines, kicks and stopping reason the searches reported."""
    n = len(stop_nodes)
    pool: set[tuple[int, ...]] = set()
    limit = time_limit_s / 2
    methods = set()
    kicks: int | None = None
    stops: list[SearchStop] = []
    for mat in (dist, dur):
        sol = solve_path(mat, stop_nodes, start=start, end=end, time_limit_s=limit, exact_limit=exact_limit, seed=seed)
        methods.add(sol.method)
        if sol.search is not None:
            kicks = (kicks or 0) + sum(sol.search.kicks)
            stops.append(sol.search.stop)
        pool.add(tuple(sol.order))
        pool.update(tuple(o) for o, _ in sol.alternatives)
    return pool, OptimizerInfo(
        method="heuristic",
        exact=False,
        orders_evaluated=None,
        stops=n,
        time_limit_s=time_limit_s,
        kicks=kicks,
        search_stop=max(stops, key=STOP_RANK.__getitem__) if stops else None,
        engines=sorted(methods),
        max_permutations=max_permutations,
        exact_limit=exact_limit,
    )


def _seeds(dist: Floats, dur: Floats, stop_nodes: list[int], *, start: int | None, end: int) -> set[tuple[int, ...]]:
    """The nearest-neighbour orders on either matrix: a heuristic pool holds them, so its best never loses to
    nearest neighbour on the same figures."""
    return {nearest_neighbour_path(mat, stop_nodes, start=start, end=end) for mat in (dist, dur)}


def bounded_pool(
    pool: set[tuple[int, ...]], dist: Floats, dur: Floats, *, start: int | None, end: int, limit: int
) -> list[tuple[int, ...]]:
    """At most ``limit`` orders of ``pool``: the best on either total first (the shortest and the fastest lead),
    then by their rank on both totals; ties by the order itself, so the same pool keeps the same orders."""
    orders = sorted(pool)
    if len(orders) <= limit:
        return orders
    arr = np.asarray(orders, dtype=int)
    rank_d = np.argsort(np.argsort(order_totals(arr, dist, start, end), kind="stable"), kind="stable")
    rank_t = np.argsort(np.argsort(order_totals(arr, dur, start, end), kind="stable"), kind="stable")
    keep = sorted(range(len(orders)), key=lambda i: (min(rank_d[i], rank_t[i]), rank_d[i] + rank_t[i], orders[i]))
    return [orders[i] for i in keep[:limit]]


def candidate_orders(
    dist: Floats,
    dur: Floats,
    stop_nodes: list[int],
    *,
    start: int | None,
    end: int,
    max_permutations: int,
    exact_limit: int,
    time_limit_s: float,
    seed: int = 0,
) -> tuple[list[tuple[int, ...]], OptimizerInfo]:
    """Candidate stop orders for the products' ranking, never more than ``max_permutations`` of them: every order
    while there are no more; beyond that the exact shortest and fastest orders (Held-Karp up to ``exact_limit``
    stops) or heuristic ones with the nearest-neighbour orders, plus their one-move neighbours, cut to the bound
    (the best on either total first). ``OptimizerInfo`` says which, how many orders were found and how many kept."""
    n = len(stop_nodes)
    if n == 1:
        return [tuple(stop_nodes)], OptimizerInfo(
            method="trivial",
            exact=True,
            orders_evaluated=1,
            stops=1,
            orders_possible=1,
            orders_found=1,
            max_permutations=max_permutations,
            exact_limit=exact_limit,
        )
    n_orders = math.factorial(n)
    if n_orders <= max_permutations:
        orders = sorted(itertools.permutations(stop_nodes))
        return orders, OptimizerInfo(
            method="enumeration",
            exact=True,
            orders_evaluated=n_orders,
            stops=n,
            orders_possible=n_orders,
            orders_found=n_orders,
            max_permutations=max_permutations,
            exact_limit=exact_limit,
        )
    if n <= exact_limit:
        pool, info = _held_karp_pool(
            dist, dur, stop_nodes, start=start, end=end, max_permutations=max_permutations, exact_limit=exact_limit
        )
    else:
        pool, info = _heuristic_pool(
            dist,
            dur,
            stop_nodes,
            start=start,
            end=end,
            max_permutations=max_permutations,
            exact_limit=exact_limit,
            time_limit_s=time_limit_s,
            seed=seed,
        )
    for base in list(pool)[:4]:
        pool |= neighbour_orders(base)
    if not info.exact:
        pool |= _seeds(dist, dur, stop_nodes, start=start, end=end)
    kept = bounded_pool(pool, dist, dur, start=start, end=end, limit=max_permutations)
    return kept, info.model_copy(update={"orders_found": len(pool)})
