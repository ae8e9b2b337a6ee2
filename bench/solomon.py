"""Benchmark the VRPTW solver (and, if installed, pyvroom) on the Solomon instances.

    python -m core bench solomon --time-limit 15 [--vroom] [--out results.jsonl] [--dir BENCH] [NAMES...]

Writes one JSON line per instance to ``--out`` (appending, so a long run can be polled / resumed) and prints
the Markdown table of docs/BENCHMARKS.md at the end. pyvroom is a benchmark-only dependency
(``pip install pyvroom``), never imported by ``core/``. Both solvers are checked with
``bench.vrptw_solver.check_solution``.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

from bench.instances import check_solution, read_solomon
from bench.paths import DEFAULT_BENCH_DIR, bench_dir
from bench.vrptw import bench_vrptw
from bench.vrptw_solver import SCALE


def run_vroom(path: Path, threads: int = 2, exploration: int = 5) -> dict:
    """pyvroom on the same integer model as ours (distances x SCALE, travel times rounded up)."""
    import numpy as np
    import vroom

    t0 = time.perf_counter()
    inst = read_solomon(path)
    d = inst.distance_matrix()
    dur = np.ceil(d * SCALE - 1e-7).astype(np.int64)
    cost = np.rint(d * SCALE).astype(np.int64)
    problem = vroom.Input()
    problem.set_durations_matrix(profile="car", matrix_input=dur.tolist())
    problem.set_costs_matrix(profile="car", matrix_input=cost.tolist())
    H = int(math.floor(inst.due[0] * SCALE))
    for v in range(inst.fleet):
        problem.add_vehicle(
            vroom.Vehicle(id=v + 1, start=0, end=0, capacity=[int(inst.capacity)], time_window=vroom.TimeWindow(0, H))
        )
    for r in range(1, len(inst.ids)):
        problem.add_job(
            vroom.Job(
                id=r,
                location=r,
                default_service=int(round(inst.service[r] * SCALE)),
                delivery=[int(inst.demand[r])],
                time_windows=[vroom.TimeWindow(int(math.ceil(inst.ready[r] * SCALE)), int(inst.due[r] * SCALE))],
            )
        )
    sol = problem.solve(exploration_level=exploration, nb_threads=threads)
    seconds = time.perf_counter() - t0
    df = sol.routes
    routes = []
    for _, g in df.groupby("vehicle_id", sort=True):
        jobs = [int(x) for x, t in zip(g["id"], g["type"]) if str(t) == "job"]
        if jobs:
            routes.append([inst.ids[r] for r in jobs])
    ok, dist, bad = check_solution(inst, routes)
    return {"vehicles": len(routes), "distance": dist, "seconds": round(seconds, 3), "feasible": ok}


def gap(found: float, ref: float) -> float:
    return 100.0 * (found - ref) / ref


def table(rows: list[dict], time_limit: float, bench: Path) -> str:
    known = json.loads((bench / "known_optima.json").read_text())
    bks, mind = known["solomon"], known["solomon_min_distance"]
    out = [
        "| instance | BKS veh / dist | ours veh | ours dist | gap vs BKS % | gap vs min-dist % (if veh > BKS) "
        "| ours s | target met | vroom veh | vroom dist | vroom s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    met = 0
    for r in rows:
        name = r["instance"]
        b = bks[name]
        g = gap(r["distance"], b["distance"])
        gm = f"{gap(r['distance'], mind[name]['distance']):+.2f}" if r["vehicles"] > b["vehicles"] else ""
        ok = r["feasible"] and r["vehicles"] <= b["vehicles"] + 1 and g <= 3.0 and r["seconds"] < 20
        met += ok
        v = r.get("vroom") or {}
        vv = f"{v['vehicles']}" if v else "–"
        vd = f"{v['distance']:.2f}" + ("" if v.get("feasible", True) else " (infeasible)") if v else "–"
        vs = f"{v['seconds']:.1f}" if v else "–"
        veh = f"**{r['vehicles']}**" if r["vehicles"] < b["vehicles"] else str(r["vehicles"])
        out.append(
            f"| {name} | {b['vehicles']} / {b['distance']:.2f} | {veh} | {r['distance']:.2f} | {g:+.2f} | {gm} "
            f"| {r['seconds']:.1f} | {'yes' if ok else 'NO'} | {vv} | {vd} | {vs} |"
        )
    out.append("")
    out.append(
        f"Target met (feasible, veh <= BKS+1, distance <= BKS+3 %, < 20 s): {met} / {len(rows)} at {time_limit:g} s."
    )
    return "\n".join(out)


def configure(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("names", nargs="*", help="instance names (default: all 56)")
    ap.add_argument("--time-limit", type=float, default=15.0)
    ap.add_argument("--vroom", action="store_true", help="also run pyvroom (exploration 5, 2 threads)")
    ap.add_argument("--out", default="solomon_results.jsonl")
    ap.add_argument("--table-only", action="store_true", help="print the table from --out without solving")
    ap.add_argument("--dir", default=str(DEFAULT_BENCH_DIR), help="folder with solomon/ and known_optima.json")


def run(args: argparse.Namespace) -> int:
    bench = bench_dir(args.dir, "solomon")
    files = sorted((bench / "solomon").glob("*.txt"))
    if args.names:
        files = [f for f in files if f.stem in set(args.names)]
    out = Path(args.out)
    if not args.table_only:
        # Compile / load the numba kernels once (a one-time cost, cached on disk under __pycache__),
        # so that the first timed instance does not pay for JIT compilation.
        from bench.vrptw_sisr import warmup

        warmup()
        for f in files:
            res = bench_vrptw(str(f), time_limit_s=args.time_limit)
            if args.vroom:
                try:
                    res["vroom"] = run_vroom(f)
                except ImportError:
                    res["vroom"] = None
            res.pop("routes_ids", None)
            with out.open("a") as fh:
                fh.write(json.dumps(res) + "\n")
            v = res.get("vroom") or {}
            print(
                f"{res['instance']}: {res['vehicles']} veh {res['distance']:.2f} {res['seconds']:.1f}s "
                f"feasible={res['feasible']} | vroom {v.get('vehicles')} {v.get('distance')}",
                flush=True,
            )
    rows: dict[str, dict] = {}
    for line in out.read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            rows[r["instance"]] = r  # last run wins
    order = [f.stem for f in sorted((bench / "solomon").glob("*.txt"))]
    print(table([rows[n] for n in order if n in rows], args.time_limit, bench))
    return 0
