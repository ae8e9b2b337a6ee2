"""The itinerary page's tables as plain data (no widgets), worded in one language (itinerary.po): the place table,
where each stop is, the edits, the places not on the plan, the check's findings, and for the Details section the
decision log and the variants (codes and facts, for analysts)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from components.itinerary.state import EDITOR_COLUMNS, catalog_index, new_entry
from components.itinerary.words import (
    ACTION_WORDS,
    Names,
    catalog_name,
    category_words,
    day_words,
    edit_key,
    fix_words,
    hours_words,
    no_fix_words,
    priority_words,
    reason_words,
    violation_words,
)
from core.i18n import Lang, t
from core.models.itinerary_result import ItineraryResult

DROPPED_COLUMNS = ["place", "why", "fix", "priority", "other name"]  # why and the fix first: a phone shows them
EDITS_COLUMNS = ["#", "action", "place", "day", "start time"]
VIOLATION_COLUMNS = ["day", "place", "problem"]


def selection_frame(
    ids: Sequence[str], catalog: Sequence[Mapping[str, Any]], selection: Mapping[str, Mapping[str, Any]], lang: Lang
) -> pd.DataFrame:
    """The table handed to st.data_editor: one row per id (index = place id), names and words in ``lang``."""
    index = catalog_index(catalog)
    rows = []
    for pid in ids:
        place = index[pid]
        entry = selection.get(pid) or new_entry(place)
        name = catalog_name(place, lang)
        rows.append(
            {
                "include": bool(entry.get("include")),
                "name": name.shown,
                "other name": name.other,
                "category": category_words(place.get("category"), lang),
                "opening hours": hours_words(place.get("opening_hours"), lang),
                "visit min": entry.get("visit_minutes"),
                "priority": entry.get("priority") or "should",
                "fixed day": entry.get("fixed_day"),
                "meal": entry.get("meal") or "none",
            }
        )
    frame = pd.DataFrame(rows, columns=EDITOR_COLUMNS, index=pd.Index(list(ids), name="id", dtype="object"))
    frame["include"] = frame["include"].astype(bool)
    frame["visit min"] = pd.array(frame["visit min"].tolist(), dtype="Int64")
    frame["fixed day"] = pd.array(frame["fixed day"].tolist(), dtype="Int64")
    return frame


def stop_whereabouts(result: ItineraryResult, lang: Lang) -> dict[str, str]:
    """Place key → where it is in the result, in words: "day 2 at 14:05", "not on the plan" or "removed"."""
    where: dict[str, str] = {}
    for day in result.days:
        for e in day.entries:
            if e.kind == "visit" and e.key and not e.continues_visit:
                key = "itinerary.where.locked" if e.locked else "itinerary.where.planned"
                where[e.key] = t(key, lang, day=day.day_index + 1, time=f"{e.start:%H:%M}")
    for item in result.dropped_items:
        removed = item.reason_code == "REMOVED_BY_USER"
        where[item.key] = t("itinerary.where.removed" if removed else "itinerary.where.dropped", lang)
    return where


def stop_day(result: ItineraryResult, key: str) -> int | None:
    for day in result.days:
        if any(e.kind == "visit" and e.key == key for e in day.entries):
            return day.day_index
    return None


def edits_frame(edits: Sequence[Mapping[str, Any]], names: Names, lang: Lang) -> pd.DataFrame:
    """The active edits in words; an empty text (never an empty number) where a day or time does not apply."""
    rows = [
        {
            "#": i + 1,
            "action": t(ACTION_WORDS[e["kind"]], lang) if e.get("kind") in ACTION_WORDS else str(e.get("kind")),
            "place": names.shown(edit_key(e), lang),
            "day": t("itinerary.day.number", lang, n=int(e["day_index"]) + 1) if e.get("day_index") is not None else "",
            "start time": e.get("start_time") or "",
        }
        for i, e in enumerate(edits)
    ]
    return pd.DataFrame(rows, columns=EDITS_COLUMNS)


def dropped_frame(result: ItineraryResult, names: Names, lang: Lang) -> pd.DataFrame:
    """One row per place not on the plan: its name, why (a sentence) and the smallest change that makes it fit."""
    rows = []
    for d in result.dropped_items:
        name = names.of(d.key, lang, d.name)
        rows.append(
            {
                "place": name.shown,
                "other name": name.other,
                "priority": priority_words(d.priority, lang),
                "why": reason_words(d, result, lang),
                "fix": fix_words(d.smallest_fix, names, lang) or no_fix_words(d, lang),
            }
        )
    return pd.DataFrame(rows, columns=DROPPED_COLUMNS)


def dropped_details_frame(result: ItineraryResult) -> pd.DataFrame:
    """For the Details section: each dropped item's key, code, the core's explanation and the per-day codes."""
    rows = [
        {
            "key": d.key,
            "reason code": d.reason_code,
            "per day": ", ".join(f"{int(i) + 1}: {code}" for i, code in sorted(d.per_day_reasons.items())),
            "fix kind": d.smallest_fix.kind if d.smallest_fix else "",
            "explanation": d.explanation,
        }
        for d in result.dropped_items
    ]
    return pd.DataFrame(rows, columns=["key", "reason code", "per day", "fix kind", "explanation"])


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


def violations_frame(result: ItineraryResult, names: Names, lang: Lang) -> pd.DataFrame:
    """The independent check's findings in words (their codes and the core's messages are in the Details)."""
    violations = result.critic.violations if result.critic else []
    rows = [
        {
            "day": t("itinerary.day.number", lang, n=v.day_index + 1) if v.day_index is not None else "",
            "place": names.shown(v.key, lang) if v.key else "",
            "problem": violation_words(v, names, lang),
        }
        for v in violations
    ]
    return pd.DataFrame(rows, columns=VIOLATION_COLUMNS)


def violations_details_frame(result: ItineraryResult) -> pd.DataFrame:
    violations = result.critic.violations if result.critic else []
    rows = [{"code": v.code, "message": v.message, "key": v.key or ""} for v in violations]
    return pd.DataFrame(rows, columns=["code", "message", "key"])


def file_stem(result: ItineraryResult) -> str:
    stem = re.sub(r"[^\w\-]+", "_", result.trip_name, flags=re.UNICODE).strip("_")
    return stem or "itinerary"


def day_option_label(result: ItineraryResult, index: int, lang: Lang) -> str:
    day = result.days[index]
    return t("itinerary.day.option", lang, day=day_words(index, day.date, lang), visits=day.totals.visits)
