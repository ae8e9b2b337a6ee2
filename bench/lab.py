"""``python -m core bench lab``: the strategy lab's targets (docs/BENCHMARKS.md, "Strategy lab").

- Throughput: the Helsinki delivery batch (200 requests) × 3 strategies × 2 modes (data/batches/grids/
  strategies.json) on local processes, then on a 2-worker ``distributed.LocalCluster``: wall time, requests/s
  and plans/s (a plan: one request × strategy × mode).
- Optimisers on the same matrices (data/batches/grids/optimisers.json, driving): the project's order search,
  Valhalla's optimized_route, OR-Tools guided local search and nearest neighbour: mean and worst gap to the best
  known, and time, by problem size.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from core.config import PROJECT_ROOT, get_settings

BATCH = PROJECT_ROOT / "data" / "batches" / "helsinki-delivery-200.jsonl"
GRIDS = PROJECT_ROOT / "data" / "batches" / "grids"


def _batch(n: int | None) -> Any:
    from core.lab.batch import read_batch

    batch = read_batch(BATCH)
    if n is not None:
        batch.items = batch.items[:n]
    return batch


def _throughput(report: Any, requests: int, plans: int) -> dict[str, Any]:
    return {
        "executor": report.executor,
        "workers": report.workers,
        "wall_s": report.wall_s,
        "requests_per_s": round(requests / report.wall_s, 2),
        "plans_per_s": round(plans / report.wall_s, 2),
        "error_rows": report.error_rows,
    }


def bench_lab(*, n: int | None = None, workers: int = 2, progress: bool = True) -> dict[str, Any]:
    from distributed import LocalCluster

    from core.lab.batch import read_grid
    from core.lab.results import load_results
    from core.lab.runner import run_batch
    from core.lab.summary import summarize
    from core.lab.task import versions

    settings = get_settings()
    batch = _batch(n)
    requests = len(batch.items)
    strategies = read_grid(GRIDS / "strategies.json")
    plans = requests * len(strategies.strategies) * len(strategies.modes)
    out: dict[str, Any] = {
        "batch": str(BATCH.relative_to(PROJECT_ROOT)),
        "requests": requests,
        "plans": plans,
        "cores": os.cpu_count(),
        "load_before": [round(x, 2) for x in os.getloadavg()],
        **versions(),
    }
    with tempfile.TemporaryDirectory(prefix="omni-bench-lab-") as tmp:
        folder = Path(tmp)
        local = run_batch(batch, strategies, folder / "local.parquet", workers=workers, bar=progress, settings=settings)
        out["local_processes"] = _throughput(local, requests, plans)
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            dask = run_batch(
                batch, strategies, folder / "dask.parquet", bar=progress, settings=settings,
                scheduler=cluster.scheduler_address,
            )  # fmt: skip
        out["dask_local_cluster_2_workers"] = _throughput(dask, requests, plans)
        table = load_results(folder / "local.parquet")
        pair = summarize(table, a="fastest_time", b="shortest_distance")
        out["fastest_vs_shortest"] = [
            {
                "mode": p.mode,
                "n": p.n,
                "n_differ": p.n_differ,
                "time_saved_s": p.time_saved_s.model_dump(),
                "distance_added_m": p.distance_added_m.model_dump(),
            }
            for p in pair.pairs
        ]

        optimisers = read_grid(GRIDS / "optimisers.json")
        compared = run_batch(
            batch, optimisers, folder / "opt.parquet", workers=workers, bar=progress, settings=settings
        )
        summary = summarize(load_results(folder / "opt.parquet"))
        out["optimisers_wall_s"] = compared.wall_s
        out["ortools_time_limit_s"] = optimisers.ortools_time_limit_s
        out["optimisers"] = [
            {
                "objective": o.objective,
                "optimiser": o.optimiser,
                "size": o.size_bucket,
                "n": o.n,
                "errors": o.n_errors,
                "best_exact": o.n_best_exact,
                "at_best": o.n_at_best,
                "search_stops": o.stops,
                "reproducible": o.n_reproducible,
                "mean_gap_pct": None if o.gap.mean is None else round(o.gap.mean * 100, 2),
                "worst_gap_pct": None if o.worst_gap is None else round(o.worst_gap * 100, 2),
                "median_time_s": None if o.time_s.median is None else round(o.time_s.median, 4),
                "worst_time_s": None if o.worst_time_s is None else round(o.worst_time_s, 4),
            }
            for o in summary.optimisers
        ]
        out["errors"] = summary.errors
    out["load_after"] = [round(x, 2) for x in os.getloadavg()]
    return out
