"""rank() picks in O(n log n) what the documented rule picks: repeated selection on what remains, balanced taking
the Pareto front of the remaining orders (the rule as docs/ARCHITECTURE.md states it, written out plainly here)."""

import random

import pytest

from core.route.strategies import Scored, best_of, rank

STRATEGIES = ("shortest_distance", "fastest_time", "balanced")


def front_of(items: list[Scored], among: list[int]) -> list[int]:
    """Orders in ``among`` that no other order in ``among`` dominates (pairwise, by definition)."""
    return [
        i
        for i in among
        if not any(
            items[j].distance_m <= items[i].distance_m
            and items[j].duration_s <= items[i].duration_s
            and (items[j].distance_m < items[i].distance_m or items[j].duration_s < items[i].duration_s)
            for j in among
        )
    ]


def near(a: float, b: float, tolerance: float) -> bool:
    return a <= b * (1 + tolerance) + 1e-9


def rule_pick(items: list[Scored], remaining: list[int], strategy: str, tolerance: float, slack: float) -> int:
    """The documented rule; ``tolerance`` words a near-tie only (issue 31): shortest and fastest take the least
    total of their own figure, an equal one broken by the other."""
    del tolerance
    if strategy == "shortest_distance":
        dmin = min(items[i].distance_m for i in remaining)
        ties = [i for i in remaining if near(items[i].distance_m, dmin, 0.0)]
        return min(ties, key=lambda i: (items[i].duration_s, items[i].distance_m, i))
    if strategy == "fastest_time":
        tmin = min(items[i].duration_s for i in remaining)
        ties = [i for i in remaining if near(items[i].duration_s, tmin, 0.0)]
        return min(ties, key=lambda i: (items[i].distance_m, items[i].duration_s, i))
    front = front_of(items, remaining)
    tfast = min(items[i].duration_s for i in front)
    eligible = [i for i in front if near(items[i].duration_s, tfast, slack)]
    return min(eligible, key=lambda i: (items[i].distance_m, items[i].duration_s, i))


def rule_rank(items: list[Scored], strategy: str, tolerance: float, slack: float) -> list[int]:
    remaining, ranking = list(range(len(items))), []
    while remaining:
        i = rule_pick(items, remaining, strategy, tolerance, slack)
        ranking.append(i)
        remaining.remove(i)
    return ranking


def pool(seed: int, n: int) -> list[Scored]:
    """Totals on a coarse grid, so that equal distances, equal durations, twins and near-ties are common."""
    rnd = random.Random(seed)
    return [
        Scored(order=(k,), distance_m=10_000 + 50 * rnd.randint(0, 40), duration_s=1_200 + 20 * rnd.randint(0, 40))
        for k in range(n)
    ]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_rank_is_the_rule_repeated(seed, strategy):
    items = pool(seed, 60 + 7 * seed)
    tolerance, slack = [(0.0, 0.0), (0.02, 0.15), (0.05, 0.02), (0.5, 2.0)][seed % 4]
    expected = rule_rank(items, strategy, tolerance, slack)
    assert rank(items, strategy, tolerance=tolerance, time_slack=slack) == expected
    assert best_of(items, strategy, tolerance=tolerance, time_slack=slack) == expected[0]


def test_balanced_leaves_a_dominated_order_until_its_dominator_is_taken():
    # 0 dominates 2 (shorter and faster); 1 is on the front, 20 % slower than 0 - outside the 15 % slack
    items = [
        Scored(order=(0,), distance_m=10_000, duration_s=1_000),
        Scored(order=(1,), distance_m=9_000, duration_s=1_200),
        Scored(order=(2,), distance_m=10_100, duration_s=1_010),
    ]
    # after 0, the front is {1, 2}: 2 is the fastest and 1 is 19 % slower, so 2 comes before the shorter 1
    assert rank(items, "balanced", tolerance=0.02, time_slack=0.15) == [0, 2, 1]
    assert rank(items, "balanced", tolerance=0.02, time_slack=0.25) == [1, 0, 2]
