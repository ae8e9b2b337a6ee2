"""TSPLIB benchmark table for docs/BENCHMARKS.md.

    python -m core bench tsplib --limits 1 5 [--dir BENCH]
    python -m core bench tsplib --held-karp   # Held-Karp timings by k
    python -m core bench tsplib --early-stop  # the ILS early stop vs searching the whole time limit

Each run is a fresh Python process calling ``bench.tsp.bench_tsp`` (what
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

from bench.paths import DEFAULT_BENCH_DIR, PROJECT_ROOT, bench_dir

ROOT = PROJECT_ROOT
CHILD = (
    "import json, sys; from bench.tsp import bench_tsp; "
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


def _random_path(n: int, seed: int):
    """Uniform points in [0, 1e4)^2 (float Euclidean matrix); stops 0..n-1, start n, end n+1 (a path, as planned)."""
    import numpy as np

    P = np.random.default_rng(seed).random((n + 2, 2)) * 1e4
    return np.sqrt(((P[:, None, :] - P[None, :, :]) ** 2).sum(-1)), list(range(n)), n, n + 1


def early_stop_table(limit: float, seeds: int, bench) -> None:
    """The ILS early stop (stall budget) against searching until the limit, in one warm process.

    Random paths of 13-60 stops (``seeds`` seeds each; for k <= 16 also against Held-Karp) and every
    TSPLIB instance as a closed tour: tour length gap of the early answer over the full-time one
    (positive = the early stop lost), the median wall time and kicks per trajectory of each."""
    import time

    import numpy as np

    from bench.instances import read_tsplib, tsplib_matrix
    from core.optimizer.tsp import held_karp_path, heuristic_path, solve_tour, warm_up

    warm_up()

    def timed(fn, *args, **kw):
        t0 = time.perf_counter()
        sol = fn(*args, **kw)
        return sol, time.perf_counter() - t0

    print(f"Random paths, time limit {limit:g} s, seeds 1-{seeds}:")
    head = "| stops | mean gap | worst gap | median s early | median s full | kicks early | kicks full | stall | = HK |"
    print(head)
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in (13, 20, 30, 45, 60):
        gaps, te, tf, ke, kf, stalls, exact = [], [], [], [], [], 0, 0
        for seed in range(1, seeds + 1):
            C, stops, s, e = _random_path(n, seed)
            kw = {"start": s, "end": e, "time_limit_s": limit, "seed": seed}
            a, ta = timed(heuristic_path, C, stops, **kw)
            b, tb = timed(heuristic_path, C, stops, **kw, early_stop=False)
            gaps.append(a.cost / b.cost - 1.0)
            te.append(ta)
            tf.append(tb)
            ke += list(a.search.kicks) if a.search is not None else []
            kf += list(b.search.kicks) if b.search is not None else []
            stalls += a.search is not None and a.search.stop == "stall"
            if n <= 16:
                exact += abs(a.cost - held_karp_path(C, stops, start=s, end=e).cost) <= 1e-9 * a.cost
        hk = f"{exact}/{seeds}" if n <= 16 else "-"
        print(
            f"| {n} | {100 * np.mean(gaps):.4f} % | {100 * max(gaps):.4f} % | {np.median(te):.3f} | "
            f"{np.median(tf):.3f} | {np.median(ke):.0f} | {np.median(kf):.0f} | {stalls}/{seeds} | {hk} |",
            flush=True,
        )
    optima = json.loads((bench / "known_optima.json").read_text())["tsplib"]
    print(f"\nTSPLIB closed tours, time limit {limit:g} s, seed 0 (lengths nint-rounded as in TSPLIB):")
    print("| instance | n | optimum | length early | s early | stop | length full | s full |")
    print("|---|---:|---:|---:|---:|---|---:|---:|")
    files = sorted((bench / "tsplib").glob("*.tsp"), key=lambda p: (len(read_tsplib(str(p))[2]), p.stem))
    for f in files:
        name, coords, ids = read_tsplib(str(f))
        D = tsplib_matrix(coords)
        a, ta = timed(solve_tour, D, time_limit_s=limit)
        b, tb = timed(solve_tour, D, time_limit_s=limit, early_stop=False)
        stop = a.search.stop if a.search is not None else "-"
        print(
            f"| {name} | {len(ids)} | {optima.get(name, '-')} | {round(a.cost)} | {ta:.3f} | {stop} | "
            f"{round(b.cost)} | {tb:.3f} |",
            flush=True,
        )


def configure(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--dir", default=str(DEFAULT_BENCH_DIR), help="folder with tsplib/ and known_optima.json")
    ap.add_argument("--limits", type=float, nargs="+", default=[1.0, 5.0])
    ap.add_argument("--held-karp", action="store_true", help="print Held-Karp timings instead")
    ap.add_argument(
        "--early-stop", action="store_true", help="the ILS early stop vs the whole time limit (first --limits value)"
    )
    ap.add_argument("--seeds", type=int, default=5, help="random instances per size for --early-stop")


def run(args: argparse.Namespace) -> int:
    if args.held_karp:
        held_karp_table()
        return 0
    bench = bench_dir(args.dir, "tsplib")
    if args.early_stop:
        early_stop_table(args.limits[0], args.seeds, bench)
        return 0
    optima = json.loads((bench / "known_optima.json").read_text())["tsplib"]
    from bench.instances import read_tsplib

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
