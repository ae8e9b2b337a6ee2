"""The itinerary page's tables as plain data (no widgets): the place table, where each stop is, the edits, the
dropped places, the decision log, the variants and the critic's violations."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from components.itinerary_state import EDITOR_COLUMNS, catalog_index, new_entry, place_label
from core.models.itinerary_result import ItineraryResult


def selection_frame(
    ids: Sequence[str], catalog: Sequence[Mapping[str, Any]], selection: Mapping[str, Mapping[str, Any]]
) -> pd.DataFrame:
    """The table handed to st.data_editor: one row per id (index = place id)."""
    index = catalog_index(catalog)
    rows = []
    for pid in ids:
        place = index[pid]
        entry = selection.get(pid) or new_entry(place)
        rows.append(
            {
                "include": bool(entry.get("include")),
                "name": place_label(place),
                "category": place.get("category") or "",
                "opening hours": place.get("opening_hours") or "",
                "visit min": entry.get("visit_minutes"),
                "priority": entry.get("priority") or "should",
                "fixed day": entry.get("fixed_day"),
            }
        )
    frame = pd.DataFrame(rows, columns=EDITOR_COLUMNS, index=pd.Index(list(ids), name="id", dtype="object"))
    frame["include"] = frame["include"].astype(bool)
    frame["visit min"] = pd.array(frame["visit min"].tolist(), dtype="Int64")
    frame["fixed day"] = pd.array(frame["fixed day"].tolist(), dtype="Int64")
    return frame


def stop_whereabouts(result: ItineraryResult) -> dict[str, str]:
    """Place key → where it is in the result: "day 2 14:05", "dropped (CODE)" or "removed"."""
    where: dict[str, str] = {}
    for day in result.days:
        for e in day.entries:
            if e.kind == "visit" and e.key and not e.continues_visit:
                lock = " · locked" if e.locked else ""
                where[e.key] = f"day {day.day_index + 1} {e.start:%H:%M}{lock}"
    for item in result.dropped_items:
        where[item.key] = "removed" if item.reason_code == "REMOVED_BY_USER" else f"dropped ({item.reason_code})"
    return where


def stop_day(result: ItineraryResult, key: str) -> int | None:
    for day in result.days:
        if any(e.kind == "visit" and e.key == key for e in day.entries):
            return day.day_index
    return None


def edits_frame(edits: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> pd.DataFrame:
    rows = [
        {
            "#": i + 1,
            "action": e["kind"],
            "place": names.get(e.get("key", ""), e.get("key", "")),
            "day": (int(e["day_index"]) + 1) if e.get("day_index") is not None else None,
            "start time": e.get("start_time") or "",
        }
        for i, e in enumerate(edits)
    ]
    frame = pd.DataFrame(rows, columns=["#", "action", "place", "day", "start time"])
    frame["day"] = frame["day"].astype("Int64")
    return frame


def dropped_frame(result: ItineraryResult) -> pd.DataFrame:
    """One row per dropped place: reason code, the plain explanation and the smallest fix."""
    rows = []
    for d in result.dropped_items:
        per_day = ", ".join(f"day {int(i) + 1}: {code}" for i, code in sorted(d.per_day_reasons.items()))
        rows.append(
            {
                "place": d.name,
                "key": d.key,
                "priority": d.priority,
                "reason code": d.reason_code,
                "why": d.explanation,
                "smallest fix": d.smallest_fix.description if d.smallest_fix else "",
                "fix kind": d.smallest_fix.kind if d.smallest_fix else "",
                "per day": per_day,
            }
        )
    return pd.DataFrame(
        rows, columns=["place", "priority", "reason code", "smallest fix", "why", "fix kind", "per day", "key"]
    )


def _facts_text(facts: Mapping[str, Any]) -> str:
    return json.dumps(facts, ensure_ascii=False, default=str, sort_keys=True)


def decision_log_frame(result: ItineraryResult) -> pd.DataFrame:
    rows = [
        {"step": e.step, "action": e.action, "reason code": e.reason_code, "facts": _facts_text(e.facts)}
        for e in result.decision_log
    ]
    return pd.DataFrame(rows, columns=["step", "action", "reason code", "facts"])


def variants_frame(result: ItineraryResult) -> pd.DataFrame:
    rows = [
        {
            "variant": v.variant,
            "chosen": "✓" if v.chosen else "",
            "visits": v.visits,
            "must dropped": v.must_dropped,
            "dropped penalty": v.dropped_penalty,
            "travel robust min": v.travel_robust_min,
            "wait min": v.wait_min,
        }
        for v in result.variants
    ]
    return pd.DataFrame(
        rows,
        columns=["variant", "chosen", "visits", "must dropped", "dropped penalty", "travel robust min", "wait min"],
    )


def violations_frame(result: ItineraryResult) -> pd.DataFrame:
    violations = result.critic.violations if result.critic else []
    rows = [
        {
            "code": v.code,
            "message": v.message,
            "day": (v.day_index + 1) if v.day_index is not None else None,
            "place": v.key or "",
        }
        for v in violations
    ]
    frame = pd.DataFrame(rows, columns=["code", "message", "day", "place"])
    frame["day"] = frame["day"].astype("Int64")
    return frame


def file_stem(result: ItineraryResult) -> str:
    stem = re.sub(r"[^\w\-]+", "_", result.trip_name, flags=re.UNICODE).strip("_")
    return stem or "itinerary"


def day_option_label(result: ItineraryResult, index: int) -> str:
    day = result.days[index]
    return f"Day {index + 1} · {day.date:%a %m-%d} · {day.totals.visits} visits"
