"""Itinerary timing on the bundled demo trips (``python -m core bench itinerary``).

Each trip is planned ``repeats`` times with a fresh provider (cold cache), per variant (per_day,
multi_vehicle, auto), so the figures include the matrix, both solves, drop reasons and the critic.
Then, per trip of two or more days, the edits the page offers (remove, move to a day, lock to a day) are
re-optimised from the auto plan (``edits.reoptimize``, warm provider cache as on the page: only the variant the
plan came from, warm-started from its routes), each ``repeats`` times; the rows say how long an edit takes, what the
plan keeps (visits, drops, robust travel and waits) and how even the days are after it.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from core.config import get_settings
from core.geo.registry import make_provider
from core.itinerary.edits import reoptimize
from core.itinerary.pipeline import plan_itinerary
from core.models.itinerary import TripRequest, UserEdit
from core.models.itinerary_result import ItineraryResult

VARIANTS = ("per_day", "multi_vehicle", "auto")


def bench_itinerary(*, repeats: int = 3, trips_dir: Path | None = None) -> dict:
    settings = get_settings()
    folder = trips_dir or settings.data_dir / "trips"
    rows = []
    for path in sorted(folder.glob("*.json")):
        request = TripRequest.model_validate(json.loads(path.read_text(encoding="utf-8")))
        for variant in VARIANTS:
            run_settings = settings.model_copy(update={"itinerary_variant": variant})
            times = []
            result = None
            for _ in range(repeats):
                provider = make_provider(None, region=request.region, settings=run_settings)
                t0 = time.perf_counter()
                result = plan_itinerary(request, provider=provider, settings=run_settings)
                times.append(time.perf_counter() - t0)
            assert result is not None
            rows.append(
                {
                    "trip": path.stem,
                    "variant": variant,
                    "places": len(request.places),
                    "days": len(request.days),
                    "median_s": round(statistics.median(times), 4),
                    "max_s": round(max(times), 4),
                    "status": result.status,
                    "critic_passed": bool(result.critic and result.critic.passed),
                    "visits": result.totals.visits,
                    "dropped": result.totals.dropped,
                    "robustness": result.robustness.score,
                    "chosen": result.variant,
                }
            )
    edits = []
    for path in sorted(folder.glob("*.json")):
        request = TripRequest.model_validate(json.loads(path.read_text(encoding="utf-8")))
        if len(request.days) > 1:
            edits.extend(bench_edits(path.stem, request, repeats=repeats))
    return {
        "benchmark": "itinerary",
        "repeats": repeats,
        "many_drops": bench_many_drops(repeats=max(repeats, 5), trips_dir=folder),
        "rows": rows,
        "edits": edits,
    }


MANY_DROPS_TRIP = "shanghai_many_drops_2day.json"


def bench_many_drops(*, repeats: int = 5, trips_dir: Path | None = None) -> dict:
    """Issue 23 §5: the 2-day trip with 20 places of which 11 drop, planned ``repeats`` times, each a new request
    (new provider, cold cache), the first run after start reported apart (imports, OR-Tools load). Wall and CPU
    seconds, the machine's load average before and after, and what each plan explains (drops with a reason,
    drops with a smallest fix, layouts spent on the fix search)."""
    import os

    settings = get_settings()
    path = (trips_dir or settings.data_dir / "trips") / MANY_DROPS_TRIP
    payload = json.loads(path.read_text(encoding="utf-8"))
    load_before = os.getloadavg()
    wall, cpu, result = [], [], None
    for _ in range(repeats + 1):
        request = TripRequest.model_validate(payload)
        provider = make_provider(None, region=request.region, settings=settings)
        t0, c0 = time.perf_counter(), time.process_time()
        result = plan_itinerary(request, provider=provider, settings=settings)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    assert result is not None
    runs = wall[1:]
    return {
        "trip": path.stem,
        "places": len(payload["places"]),
        "days": len(payload["days"]),
        "first_run_s": round(wall[0], 4),
        "first_run_cpu_s": round(cpu[0], 4),
        "repeats": repeats,
        "median_s": round(statistics.median(runs), 4),
        "min_s": round(min(runs), 4),
        "max_s": round(max(runs), 4),
        "median_cpu_s": round(statistics.median(cpu[1:]), 4),
        "load_avg_before": [round(x, 2) for x in load_before],
        "load_avg_after": [round(x, 2) for x in os.getloadavg()],
        "cores": os.cpu_count(),
        "dropped": len(result.dropped_items),
        "dropped_with_reason": sum(1 for d in result.dropped_items if d.reason_code),
        "dropped_with_fix": sum(1 for d in result.dropped_items if d.smallest_fix is not None),
        "fix_budget_exhausted": sum(1 for d in result.dropped_items if d.facts.get("fix_search")),
        "visits": result.totals.visits,
        "status": result.status,
    }


def page_edits(result: ItineraryResult) -> list[UserEdit]:
    """Three edits a person makes on the page: remove the first day's second visit, move the last day's first
    visit to the first day, lock the first day's first visit to the second day."""
    from pydantic import TypeAdapter

    visits = [[e.key for e in d.entries if e.kind == "visit" and e.key and e.part != 2] for d in result.days]
    first, last = visits[0], visits[-1]
    raw = []
    if len(first) > 1:
        raw.append({"kind": "remove", "key": first[1]})
    if last:
        raw.append({"kind": "move", "key": last[0], "day_index": 0})
    if first:
        raw.append({"kind": "lock", "key": first[0], "day_index": 1})
    return TypeAdapter(list[UserEdit]).validate_python(raw)


def bench_edits(stem: str, request: TripRequest, *, repeats: int) -> list[dict]:
    settings = get_settings()
    provider = make_provider(None, region=request.region, settings=settings)
    base = plan_itinerary(request, provider=provider, settings=settings)
    rows = []
    for edit in page_edits(base):
        times = []
        result = None
        for _ in range(repeats):
            t0 = time.perf_counter()
            result = reoptimize(base, [edit], provider=provider, settings=settings)
            times.append(time.perf_counter() - t0)
        assert result is not None
        rows.append(
            {
                "trip": stem,
                "edit": edit.kind,
                "median_s": round(statistics.median(times), 4),
                "max_s": round(max(times), 4),
                "status": result.status,
                "variant": result.variant,
                "visits": result.totals.visits,
                "dropped": result.totals.dropped,
                "must_dropped": result.totals.must_dropped,
                "travel_robust_min": result.totals.travel_robust_min,
                "wait_min": result.totals.wait_min,
                "visits_by_day": [d.totals.visits for d in result.days],
                "balanced": bool(result.balance and result.balance.balanced),
                "balance_reasons": [r.code for r in result.balance.reasons] if result.balance else [],
            }
        )
    return rows
