"""The closed-tour TSP benchmark on one TSPLIB instance (read by bench/instances.py).

``python -m core bench tsp FILE.tsp --time-limit S`` prints the dict returned
by :func:`bench_tsp` as JSON.
"""

from __future__ import annotations

import time

import numpy as np

from bench.instances import read_tsplib, tsplib_matrix

__all__ = ["tour_length", "bench_tsp"]


def tour_length(D: np.ndarray, tour) -> float:
    """Length of the closed tour (list of 0-based node indices) under ``D``."""
    t = np.asarray(tour, dtype=np.int64)
    return float(D[t, np.roll(t, -1)].sum())


def bench_tsp(path: str, *, time_limit_s: float, seed: int = 0) -> dict:
    """Solve a TSPLIB EUC_2D instance as a closed tour within ``time_limit_s``.

    Returns ``{"instance", "n", "length", "tour", "seconds", "method"}``:
    ``length`` is the TSPLIB length (integer, nint-rounded edges), ``tour`` the
    node ids as in the file, ``seconds`` the wall time of this call (reading
    the file, building the matrix, loading the solver kernels and solving).
    """
    t0 = time.perf_counter()
    from core.optimizer.tsp import solve_tour

    name, coords, ids = read_tsplib(path)
    D = tsplib_matrix(coords)
    spent = time.perf_counter() - t0
    sol = solve_tour(D, time_limit_s=max(0.0, time_limit_s - spent - 0.02), seed=seed)
    tour = [ids[i] for i in sol.order]
    length = int(round(tour_length(D, sol.order)))
    seconds = time.perf_counter() - t0
    return {
        "instance": name,
        "n": len(ids),
        "length": length,
        "tour": tour,
        "seconds": round(seconds, 3),
        "method": sol.method,
    }
