"""Itinerary timing on the bundled demo trips (``python -m core bench itinerary``).

Each trip is planned ``repeats`` times with a fresh provider (cold cache), per variant (per_day,
multi_vehicle, auto), so the figures include the matrix, both solves, drop reasons and the critic.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from core.config import get_settings
from core.geo.registry import make_provider
from core.itinerary.pipeline import plan_itinerary
from core.models.itinerary import TripRequest

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
    return {"benchmark": "itinerary", "repeats": repeats, "rows": rows}
