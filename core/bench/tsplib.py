"""TSPLIB benchmark table for docs/BENCHMARKS.md.

    python -m core bench tsplib --limits 1 5 [--dir BENCH]
    python -m core bench tsplib --held-karp   # Held-Karp timings by k

Each run is a fresh Python process calling ``core.bench.tsp.bench_tsp`` (what
``python -m core bench tsp FILE --time-limit S`` does), so the reported seconds
include loading the solver kernels (numba import + on-disk cache) but not the
interpreter start.  Reads ../shared/bench (or --dir) and known_optima.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from core.bench.paths import DEFAULT_BENCH_DIR, PROJECT_ROOT, bench_dir

ROOT = PROJECT_ROOT
CHILD = (
    "import json, sys; from core.bench.tsp import bench_tsp; "
    "print(json.dumps(bench_tsp(sys.argv[1], time_limit_s=float(sys.argv[2]))))"
)


def _run_instance(path: str, limit: float) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", CHILD, path, str(limit)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=str(ROOT),
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def held_karp_table(ks=(10, 12, 13, 14, 15, 16, 17, 18), repeats=5) -> None:
    """Median wall time and peak traced memory of held_karp_path on random asymmetric matrices."""
    import time
    import tracemalloc

    import numpy as np

    from core.optimizer.tsp import held_karp_path

    rng = np.random.default_rng(0)
    print("| k stops | median s | min s | peak MB |")
    print("|---:|---:|---:|---:|")
    for k in ks:
        C = rng.random((k + 2, k + 2)) * 1000
        np.fill_diagonal(C, 0)
        stops = list(range(k))
        held_karp_path(C, stops, start=k, end=k + 1)
        ts = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            held_karp_path(C, stops, start=k, end=k + 1)
            ts.append(time.perf_counter() - t0)
        tracemalloc.start()
        held_karp_path(C, stops, start=k, end=k + 1)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"| {k} | {np.median(ts):.3f} | {min(ts):.3f} | {peak / 1e6:.1f} |", flush=True)


def configure(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--dir", default=str(DEFAULT_BENCH_DIR), help="folder with tsplib/ and known_optima.json")
    ap.add_argument("--limits", type=float, nargs="+", default=[1.0, 5.0])
    ap.add_argument("--held-karp", action="store_true", help="print Held-Karp timings instead")


def run(args: argparse.Namespace) -> int:
    if args.held_karp:
        held_karp_table()
        return 0
    bench = bench_dir(args.dir, "tsplib")
    optima = json.loads((bench / "known_optima.json").read_text())["tsplib"]
    from core.bench.instances import read_tsplib

    files = sorted((bench / "tsplib").glob("*.tsp"), key=lambda p: (len(read_tsplib(str(p))[2]), p.stem))
    head = "| instance | n | optimum |"
    sep = "|---|---:|---:|"
    for lim in args.limits:
        head += f" length @{lim:g}s | gap @{lim:g}s | seconds @{lim:g}s |"
        sep += "---:|---:|---:|"
    print(head + " method |")
    print(sep + "---|")
    for f in files:
        cells = []
        method = ""
        n = 0
        for lim in args.limits:
            r = _run_instance(str(f), lim)
            n = r["n"]
            method = r["method"]
            assert sorted(r["tour"]) == list(range(1, n + 1))
            gap = 100.0 * (r["length"] / optima[r["instance"]] - 1.0)
            cells.append(f" {r['length']} | {gap:.2f} % | {r['seconds']:.3f} |")
        print(f"| {f.stem} | {n} | {optima[f.stem]} |" + "".join(cells) + f" {method} |", flush=True)
    return 0
