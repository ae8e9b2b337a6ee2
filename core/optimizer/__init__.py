"""Stop-order optimisation (TSP paths and tours)."""

from .tsp import (
    DEFAULT_EXACT_LIMIT,
    OrderSolution,
    enumerate_paths,
    held_karp_path,
    heuristic_path,
    path_cost,
    solve_path,
    solve_tour,
)

__all__ = [
    "DEFAULT_EXACT_LIMIT",
    "OrderSolution",
    "enumerate_paths",
    "held_karp_path",
    "heuristic_path",
    "path_cost",
    "solve_path",
    "solve_tour",
]
