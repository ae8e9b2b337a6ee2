"""Ranking of candidate orders: shortest_distance, fastest_time, balanced (docs/ARCHITECTURE.md, "Route planner").

``shortest_distance`` and ``fastest_time`` take the least total of their own figure (an equal total: the least of
the other), so the fastest order is never slower than the shortest, the shortest never longer than the fastest,
and neither loses on its own figure to any order ranked (nearest neighbour's included). ``tolerance``
(settings.tie_tolerance) only words a near-tie. Ranking is by repeated selection, so the rule that picks #1 also
orders the rest.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from core.models.route import RouteStrategy


@dataclass(frozen=True)
class Scored:
    order: tuple[int, ...]
    distance_m: float
    duration_s: float


def dominates(a: Scored, b: Scored) -> bool:
    return (
        a.distance_m <= b.distance_m
        and a.duration_s <= b.duration_s
        and (a.distance_m < b.distance_m or a.duration_s < b.duration_s)
    )


def pareto_front(items: list[Scored]) -> set[int]:
    """Indices of the candidates that no other candidate dominates."""
    by_d = sorted(range(len(items)), key=lambda i: (items[i].distance_m, items[i].duration_s))
    front, best_t = set(), float("inf")
    for i in by_d:
        if items[i].duration_s < best_t:
            front.add(i)
            best_t = items[i].duration_s
    # equal (distance, duration) twins of a front member are not dominated either
    pts = {(items[i].distance_m, items[i].duration_s) for i in front}
    front |= {i for i, s in enumerate(items) if (s.distance_m, s.duration_s) in pts}
    return front


def _near(a: float, b: float, tolerance: float) -> bool:
    return a <= b * (1 + tolerance) + 1e-9


#: How much slower than the fastest Pareto order a shorter one may be for ``balanced`` to still
#: prefer it (the product's rule: prefer the shorter route when it is only "slightly" slower, 略长).
BALANCED_TIME_SLACK = 0.15


def _window(strategy: RouteStrategy, tolerance: float, time_slack: float) -> tuple[bool, float]:
    """The rule of a strategy as (window on duration?, width): every pick is, among the remaining orders whose
    windowed total is within ``width`` of the smallest, the one with the least (other total, windowed total, index).
    ``shortest_distance`` and ``fastest_time`` have no width: a window wider than an equal total would let the
    fastest order be slower than the shortest (and than a plain nearest-neighbour order); ``tolerance`` is kept
    for the callers' words.

    ``balanced`` is ``fastest_time`` with the window ``time_slack``: the orders within the slack of the fastest
    include the Pareto member balanced wants, and the least (distance, duration) among them is never dominated
    (whatever dominated it would be in the window too, and less) - so no Pareto front is needed to pick it."""
    del tolerance  # words only (best_reason)
    if strategy == "shortest_distance":
        return False, 0.0
    return True, 0.0 if strategy == "fastest_time" else time_slack


def _key(items: list[Scored], i: int, on_time: bool) -> tuple[float, float, int]:
    s = items[i]
    return (s.distance_m, s.duration_s, i) if on_time else (s.duration_s, s.distance_m, i)


def _pick(
    items: list[Scored],
    remaining: list[int],
    strategy: RouteStrategy,
    tolerance: float,
    time_slack: float = BALANCED_TIME_SLACK,
) -> int:
    on_time, width = _window(strategy, tolerance, time_slack)
    value = [s.duration_s if on_time else s.distance_m for s in items]
    vmin = min(value[i] for i in remaining)
    return min((i for i in remaining if _near(value[i], vmin, width)), key=lambda i: _key(items, i, on_time))


def rank(
    items: list[Scored], strategy: RouteStrategy, *, tolerance: float, time_slack: float = BALANCED_TIME_SLACK
) -> list[int]:
    """Indices of ``items`` from best to worst under ``strategy``: :func:`_pick` repeated on what remains, in
    O(n log n). The smallest remaining windowed total only grows, so the window only widens: orders enter a heap
    (by the pick's key) as the window reaches them, and each pick is the heap's least."""
    on_time, width = _window(strategy, tolerance, time_slack)
    value = [s.duration_s if on_time else s.distance_m for s in items]
    by_value = sorted(range(len(items)), key=value.__getitem__)
    picked = [False] * len(items)
    heap: list[tuple[float, float, int]] = []
    ranking: list[int] = []
    low = entered = 0
    while len(ranking) < len(items):
        while picked[by_value[low]]:
            low += 1
        vmin = value[by_value[low]]
        while entered < len(items) and _near(value[by_value[entered]], vmin, width):
            heapq.heappush(heap, _key(items, by_value[entered], on_time))
            entered += 1
        i = heapq.heappop(heap)[2]
        picked[i] = True
        ranking.append(i)
    return ranking


def could_outrank(
    low: Scored, best: Scored, strategy: RouteStrategy, *, tolerance: float, time_slack: float = BALANCED_TIME_SLACK
) -> bool:
    """Whether an order whose totals are no less than ``low`` (a lower bound of each) could be ranked before
    ``best`` under :func:`rank`'s rule. False only when it cannot: its windowed total is out of the window ``best``
    is in, or both stay in one window and its other total is larger (the pick takes the least other total)."""
    on_time, width = _window(strategy, tolerance, time_slack)
    value_low, other_low = (low.duration_s, low.distance_m) if on_time else (low.distance_m, low.duration_s)
    value_best, other_best = (best.duration_s, best.distance_m) if on_time else (best.distance_m, best.duration_s)
    if not _near(value_low, value_best, width):
        return False
    if not _near(value_best, value_low, width):  # it may be so much less that the best leaves the window
        return True
    return other_low <= other_best


def best_of(
    items: list[Scored], strategy: RouteStrategy, *, tolerance: float, time_slack: float = BALANCED_TIME_SLACK
) -> int:
    """Index of the item :func:`rank` puts first, without ranking the rest (the strategy lab's many plans)."""
    return _pick(items, list(range(len(items))), strategy, tolerance, time_slack)


def km(metres: float) -> str:
    return f"{abs(metres) / 1000:.1f} km"


def mins(seconds: float) -> str:
    return f"{abs(seconds) / 60:.0f} min"


def delta_phrase(a: Scored, b: Scored) -> str:
    """How ``a`` compares with ``b``: "3.2 km shorter, 6 min slower"."""
    dd, dt = b.distance_m - a.distance_m, b.duration_s - a.duration_s
    dist = "same distance" if abs(dd) < 50 else f"{km(dd)} {'shorter' if dd > 0 else 'longer'}"
    time = "same time" if abs(dt) < 30 else f"{mins(dt)} {'faster' if dt > 0 else 'slower'}"
    return f"{dist}, {time}"


def compare_phrase(a: Scored, b: Scored, ref: str) -> str:
    """``a`` against ``b`` (called ``ref``) as a sentence part: "3.2 km shorter, 6 min slower than #2",
    "0.4 km longer than #1 in about the same time", "about the same distance and time as #1"."""
    dd, dt = b.distance_m - a.distance_m, b.duration_s - a.duration_s
    same_d, same_t = abs(dd) < 50, abs(dt) < 30
    dist = f"{km(dd)} {'shorter' if dd > 0 else 'longer'}"
    time = f"{mins(dt)} {'faster' if dt > 0 else 'slower'}"
    if same_d and same_t:
        return f"about the same distance and time as {ref}"
    if same_t:
        return f"{dist} than {ref} in about the same time"
    if same_d:
        return f"{time} than {ref} over about the same distance"
    return f"{dist}, {time} than {ref}"


def best_reason(
    items: list[Scored],
    ranking: list[int],
    strategy: RouteStrategy,
    *,
    tolerance: float,
    exact: bool = True,
    time_slack: float = BALANCED_TIME_SLACK,
) -> str:
    """Why ``ranking[0]`` is first. ``exact=False`` (a heuristic search) never claims optimality: the
    comparison is then with the orders that were found, not with every possible order."""
    best = items[ranking[0]]
    if len(ranking) == 1:
        return "Only one order was possible." if exact else "Only one order was found (heuristic search)."
    runner = items[ranking[1]]
    phrase = delta_phrase(best, runner)
    vs = (
        "tied with #2 (within 50 m and 30 s)"
        if phrase == "same distance, same time"
        else compare_phrase(best, runner, "#2")
    )
    pct = f"{tolerance * 100:g}%"
    found = "" if exact else " found"
    caveat = "" if exact else " (heuristic search over the orders found; not proven optimal)"
    if strategy in ("shortest_distance", "fastest_time"):
        on_time = strategy == "fastest_time"
        mine, theirs = (best.duration_s, runner.duration_s) if on_time else (best.distance_m, runner.distance_m)
        near = f"; a near-tie with #2 (within {pct})" if theirs <= mine * (1 + tolerance) + 1e-9 else ""
        head = "Fastest total time" if on_time else "Shortest total distance"
        return f"{head}{found}: {vs}{near}.{caveat}"
    front = pareto_front(items)
    if all(dominates(best, s) or s == best for s in items):
        return f"Pareto-dominant: no other order{found} is shorter or faster; {vs}.{caveat}"
    fastest = min(front, key=lambda i: (items[i].duration_s, items[i].distance_m))
    fast = items[fastest]
    shortest = min(front, key=lambda i: (items[i].distance_m, items[i].duration_s))
    short = items[shortest]
    if short.distance_m < best.distance_m:
        pos = ranking.index(shortest) + 1
        slower = (short.duration_s / fast.duration_s - 1) * 100 if fast.duration_s else 0.0
        return (
            f"Trade-off on the Pareto front ({len(front)} orders): the shortest order (#{pos}) is {slower:.0f}% slower "
            f"than the fastest, more than the {time_slack * 100:g}% balanced accepts, so balanced takes the shortest "
            f"order within that limit - {compare_phrase(best, short, f'#{pos}')}.{caveat}"
        )
    if fast.duration_s < best.duration_s:
        pos = ranking.index(fastest) + 1
        return (
            f"Trade-off on the Pareto front ({len(front)} orders): balanced prefers the shorter distance - "
            f"{compare_phrase(best, fast, f'the fastest order (#{pos})')}: less distance to cover, at the cost of the extra time.{caveat}"
        )
    return f"On the Pareto front and shortest among its members: {vs}.{caveat}"


def other_reason(items: list[Scored], ranking: list[int], pos: int) -> str:
    me, best = items[ranking[pos]], items[ranking[0]]
    return f"#{pos + 1}: {compare_phrase(me, best, '#1')}."
