"""VRPTW benchmark: solve one Solomon instance and report vehicles / distance / routes / wall time.

``python -m core bench vrptw FILE.txt --time-limit S`` prints :func:`bench_vrptw`'s dict as JSON.
"""

from __future__ import annotations

import time

from bench.instances import check_solution, read_solomon
from bench.vrptw_solver import solve_vrptw

__all__ = ["bench_vrptw"]


def bench_vrptw(path: str, *, time_limit_s: float, seed: int = 0) -> dict:
    """Solve the Solomon file ``path`` within ``time_limit_s`` seconds.

    Returns ``{"instance", "vehicles", "distance", "routes", "seconds"}`` (plus ``"feasible"`` and
    ``"method"``): distance is Euclidean, unrounded; routes list customer ids from the file; seconds is
    the measured wall time of reading + solving.
    """
    t0 = time.perf_counter()
    inst = read_solomon(path)
    sol = solve_vrptw(inst, time_limit_s=time_limit_s, seed=seed)
    seconds = time.perf_counter() - t0
    ok, dist, _ = check_solution(inst, sol.routes)
    return {
        "instance": inst.name,
        "vehicles": sol.vehicles,
        "distance": dist,
        "routes": sol.routes,
        "seconds": round(seconds, 3),
        "feasible": ok,
        "method": sol.method,
    }
