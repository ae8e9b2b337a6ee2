"""The slot readers on the evaluation set of trip and booking messages (issue 22 §1; ``python -m core bench agent``
reports it). ``tests/agent/data/slots_eval.jsonl`` (grown by bench/slots_grow.py from the pack's place names) holds
each message with the slots a person reads in it; each line is read by the agent's own readers
(core.agent.trip_request.read_trip, core.agent.booking.booking_slots) against the set's fixed today, and every
expected slot is graded exactly right or not. Reported: accuracy per slot and the share of all slots right."""

from __future__ import annotations

import json
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

from core.config import PROJECT_ROOT

EVAL_SET = PROJECT_ROOT / "tests" / "agent" / "data" / "slots_eval.jsonl"
TODAY = date(2026, 11, 27)  # a Friday: the set's relative days count from it


def read_lines(path: Path = EVAL_SET) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def read_slots(line: dict[str, Any]) -> dict[str, Any]:
    """What the agent's readers make of one line, as the set's slots."""
    from core.agent.booking import booking_slots
    from core.agent.trip_request import read_trip
    from core.packs.loader import load_region

    pack = load_region(line.get("region", "shanghai"))
    if line["kind"] == "trip":
        trip = read_trip(line["text"], pack)
        return {"days": trip.days, "day_places": {str(d): ids for d, ids in trip.day_places.items()},
                "start": trip.start, "city": pack.name}  # fmt: skip
    s = booking_slots(line["text"], pack=pack, today=TODAY)
    return {
        "venue": s.venues[0].id if s.venues else None,
        "date": s.date.isoformat() if s.date else None,
        "time": s.time.strftime("%H:%M") if s.time else None,
        "party": s.party,
        "city": s.city,
    }


def evaluate(lines: list[dict[str, Any]]) -> dict[str, Any]:
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    failures = []
    for line in lines:
        got = read_slots(line)
        for slot, want in line["expect"].items():
            total[slot] += 1
            if got.get(slot) == want:
                right[slot] += 1
            else:
                failures.append({"text": line["text"], "slot": slot, "want": want, "got": got.get(slot)})
    n = sum(total.values())
    return {
        "messages": len(lines),
        "slots": n,
        "overall": round(sum(right.values()) / n, 4) if n else 0.0,
        "per_slot": {k: round(right[k] / total[k], 4) for k in sorted(total)},
        "failures": failures,
    }


def bench_slots() -> dict[str, Any]:
    out = evaluate(read_lines())
    out["failures"] = out["failures"][:20]
    out["target_overall"] = 0.95
    return out
