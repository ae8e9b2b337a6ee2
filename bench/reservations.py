"""``python -m core bench reservations [--pg URL]``: 50 concurrent confirmations of one dry run (a double click
fifty times over) and 50 parties racing for the last seats of one slot, on SQLite and, given a URL, PostgreSQL.
Counts what was made, replayed and refused, and any error."""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from datetime import time as clock_time
from typing import Any

from tests.support.db import db_at


def _race(calls: list[Any]) -> tuple[Counter[str], float]:
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()
    gate = threading.Barrier(len(calls))

    def run(call: Any) -> None:
        from core.reservations.service import ReservationError

        gate.wait()
        try:
            result = call()
            key = "replayed" if result.replayed else result.reservation.status
        except ReservationError as exc:
            key = exc.code
        except Exception as exc:  # noqa: BLE001 - an error is what this counts
            key = f"error {type(exc).__name__}"
        with lock:
            outcomes[key] += 1

    threads = [threading.Thread(target=run, args=(c,)) for c in calls]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes, time.perf_counter() - t0


def _one_database(url: str, label: str) -> dict[str, Any]:
    from core.models.reservations import ReservationRequest
    from core.packs.loader import load_region
    from core.reservations import store
    from core.reservations.catalog import catalogue
    from core.reservations.service import ReservationService

    pack = load_region("shanghai")
    item = next(i for i in catalogue(pack) if i.category == "restaurant")
    service = ReservationService(
        pack=pack, engine=store.engine_for(db_at(url)), clock=lambda: datetime(2026, 12, 1, 1, 0, tzinfo=UTC)
    )
    day = date(2027, 1, 1) + timedelta(days=int(time.time()) % 300)  # a fresh day per run on a shared database
    ask = ReservationRequest(item_id=item.id, date=day, time=clock_time(19, 0), party_size=2)
    dry = service.dry_run("alice", ask)
    same, same_s = _race(
        [
            lambda: service.confirm(
                "alice", dry.reservation.id, token=dry.token, idempotency_key=f"dbl-{dry.token[:8]}", consent=True
            )
            for _ in range(50)
        ]
    )
    runs = [service.dry_run(f"user{i}", ask) for i in range(50)]
    seats, seats_s = _race(
        [
            (
                lambda d=d, i=i: service.confirm(
                    f"user{i}", d.reservation.id, token=d.token, idempotency_key=f"k{i}-{d.token[:8]}", consent=True
                )
            )  # fmt: skip
            for i, d in enumerate(runs)
        ]
    )
    return {
        "database": label,
        "one_token_50_confirmations": dict(same),
        "one_token_seconds": round(same_s, 3),
        "capacity": item.terms.capacity_per_slot,
        "fifty_parties_one_slot": dict(seats),
        "fifty_parties_seconds": round(seats_s, 3),
    }


def bench_reservations(*, pg_url: str | None = None) -> dict[str, Any]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="omni-bench-res-") as tmp:
        rows.append(_one_database(f"sqlite:///{tmp}/r.db", "sqlite"))
    if pg_url:
        rows.append(_one_database(pg_url, "postgresql"))
    return {"benchmark": "reservations", "rows": rows, "median_seconds": statistics.median(
        r["fifty_parties_seconds"] for r in rows)}  # fmt: skip
