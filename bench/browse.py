"""``python -m core bench browse``: the browse executor on the demo hotel site (headless Chromium behind the
network guard): the first browse after the browser process starts (its launch included) and warm browses in the
running browser (a new context each), over ``repeats`` starts. Wall-clock seconds on this machine."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from core.agent.browse import BrowserExecutor
from core.agent.chromium import close_all
from core.config import get_settings
from core.venues.serve import VenueServer

WARM_PER_START = 5


def bench_browse(*, repeats: int = 5) -> dict[str, Any]:
    settings = get_settings()
    venues = VenueServer(settings.venues_dir, "shanghai").start()
    first: list[float] = []
    warm: list[float] = []
    try:
        with tempfile.TemporaryDirectory(prefix="omni-bench-browse-") as tmp:
            ex = BrowserExecutor(
                allowlist=[f"127.0.0.1:{venues.port}"],
                chromium=settings.browse_chromium,
                evidence_dir=Path(tmp),
                timeout_s=30,
            )
            url = f"{venues.base_url}/hotels/peace-hotel?date=2026-12-24"
            for _ in range(repeats):
                close_all()  # the next browse starts the browser again
                for k in range(1 + WARM_PER_START):
                    t0 = time.perf_counter()
                    out = ex.run(url, max_steps=3)
                    took = time.perf_counter() - t0
                    if out.blocked is not None or not out.evidence or not out.evidence[0].offers:
                        raise RuntimeError(f"the demo hotel was not read: {out.blocked}")
                    (first if k == 0 else warm).append(took)
    finally:
        close_all()
        venues.stop()
    return {
        "bench": "browse",
        "page": "demo hotel (3 offers, JSON-LD, full-page screenshot)",
        "starts": repeats,
        "first_browse_s": {"median": round(statistics.median(first), 3), "max": round(max(first), 3)},
        "warm_browse_s": {
            "median": round(statistics.median(warm), 3),
            "p95": round(sorted(warm)[max(0, int(len(warm) * 0.95) - 1)], 3),
            "n": len(warm),
        },
    }
