"""Nearest neighbour: always the cheapest unvisited stop next. The baseline every order search must not lose to
(the strategy lab compares with it) and a seed of the order search beyond its exact methods."""

from __future__ import annotations

from collections.abc import Sequence

from core.optimizer.arrays import Floats


def path_cost(cost: Floats, order: Sequence[int], *, start: int | None, end: int) -> float:
    """``start -> order... -> end`` on ``cost`` (``start`` None: from the first stop)."""
    nodes = [*([start] if start is not None else []), *order, end]
    return float(sum(cost[a, b] for a, b in zip(nodes, nodes[1:])))


def nearest_neighbour_path(cost: Floats, stops: Sequence[int], *, start: int | None, end: int) -> tuple[int, ...]:
    """Always the cheapest unvisited stop next (ties: the lower node). Without a start every stop is tried first
    and the cheapest of those paths kept."""
    stops = [int(s) for s in stops]
    if not stops:
        return ()

    def from_first(first: int | None) -> tuple[int, ...]:
        left = list(stops)
        order: list[int] = []
        at = start if first is None else first
        if first is not None:
            left.remove(first)
            order.append(first)
        while left:
            assert at is not None
            here = at
            nxt = min(left, key=lambda s: (cost[here, s], s))
            left.remove(nxt)
            order.append(nxt)
            at = nxt
        return tuple(order)

    if start is not None:
        return from_first(None)
    paths = [from_first(s) for s in stops]
    return min(paths, key=lambda o: (path_cost(cost, o, start=None, end=end), o))
