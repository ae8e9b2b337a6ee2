"""Benchmark: our closed-tour heuristic vs LKH-3 (via elkai) on random uniform instances.

Benchmark-only: needs ``pip install elkai`` (NOT a project requirement, never imported by core/).

    python -m core bench lkh --sizes 100 200 --seeds 1 2 3 4 5 --time-limit 1

Points are uniform in [0, 1e6)^2; costs are double-precision Euclidean distances.  LKH gets
the same matrix rounded to integers (LKH works on integer weights; at this scale rounding is
< 1e-6 relative) and both tours are evaluated with the double-precision matrix.  LKH runs with
``runs=10`` (its default here) and no time limit: on 100-200 nodes it is essentially optimal.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from core.errors import InputError
from core.optimizer import tsp


def instance(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    P = rng.random((n, 2)) * 1e6
    return np.sqrt(((P[:, None, :] - P[None, :, :]) ** 2).sum(-1))


def tour_len(D: np.ndarray, tour) -> float:
    t = np.asarray(tour)
    return float(D[t, np.roll(t, -1)].sum())


def configure(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 200])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--time-limit", type=float, default=1.0)
    ap.add_argument("--engine", default="auto")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--lkh-runs", type=int, default=10)


def run(args: argparse.Namespace) -> int:
    try:
        import elkai
    except ImportError:
        raise InputError(
            "bench lkh needs the benchmark-only package elkai: .venv/bin/pip install elkai", field="engine"
        ) from None

    tsp.warm_up()  # load numba kernels from cache (one-off per process, reported separately)
    rows = []
    for n in args.sizes:
        for seed in args.seeds:
            D = instance(n, seed)
            t0 = time.perf_counter()
            lkh = elkai.DistanceMatrix(np.rint(D).astype(np.int64).tolist()).solve_tsp(runs=args.lkh_runs)
            t_lkh = time.perf_counter() - t0
            lkh_len = tour_len(D, lkh[:-1])
            t0 = time.perf_counter()
            sol = tsp.solve_tour(D, time_limit_s=args.time_limit, seed=0, engine=args.engine, workers=args.workers)
            t_our = time.perf_counter() - t0
            assert sorted(sol.order) == list(range(n))
            rows.append(
                {
                    "n": n,
                    "seed": seed,
                    "ours": round(sol.cost, 1),
                    "lkh": round(lkh_len, 1),
                    "ratio": round(sol.cost / lkh_len, 5),
                    "seconds": round(t_our, 3),
                    "lkh_seconds": round(t_lkh, 3),
                    "method": sol.method,
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    for n in args.sizes:
        r = [x["ratio"] for x in rows if x["n"] == n]
        print(f"n={n}: mean ratio {np.mean(r):.4f}, max ratio {np.max(r):.4f}")
    return 0
