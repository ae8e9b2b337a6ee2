"""The stops table of the route form as plain data (no Streamlit): build, parse pasted lines, read back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, TypedDict

import pandas as pd

from core.models.route import RawStop

STOP_COLUMNS = ["order", "name", "address", "city", "contact"]


class StopRow(TypedDict):
    """A stop of the table as RawStop fields: a blank cell read back is None, a pasted line's missing column ""."""

    name: str | None
    address: str | None
    city: str | None
    contact: str | None
    poi_id: NotRequired[str]  # the place chosen in "Did you mean…" (components/route/form.py, request_payload)


def empty_stops_frame() -> pd.DataFrame:
    frame = pd.DataFrame({c: pd.Series(dtype="object") for c in STOP_COLUMNS})
    frame["order"] = pd.Series(dtype="Int64")
    return frame


def stops_frame(stops: Sequence[RawStop | Mapping[str, object]], start: int = 1) -> pd.DataFrame:
    """A stops table (order, name, address, city, contact) from RawStops or dicts."""
    rows = []
    for i, stop in enumerate(stops):
        data: Mapping[str, object] = stop.model_dump() if isinstance(stop, RawStop) else stop
        rows.append(
            {
                "order": start + i,
                "name": data.get("name") or "",
                "address": data.get("address") or "",
                "city": data.get("city") or "",
                "contact": data.get("contact") or "",
            }
        )
    if not rows:
        return empty_stops_frame()
    frame = pd.DataFrame(rows, columns=STOP_COLUMNS)
    frame["order"] = frame["order"].astype("Int64")
    return frame


def parse_pasted_stops(text: str) -> list[StopRow]:
    """One stop a line: ``name | address [| city [| contact]]`` or just an address (or a name).

    Tabs work as separators too (pasting from a spreadsheet). Blank lines, lines of separators only and
    ``#`` comments are skipped. Columns beyond the fourth are kept in ``contact`` (nothing typed is lost).
    """
    stops: list[StopRow] = []
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        sep = "|" if "|" in line else ("\t" if "\t" in line else None)
        parts = [p.strip() for p in line.split(sep)] if sep else [line]
        if not any(parts):
            continue
        if len(parts) == 1:
            stops.append({"name": "", "address": parts[0], "city": "", "contact": ""})
        else:
            if len(parts) > 4:
                parts = [*parts[:3], " | ".join(p for p in parts[3:] if p)]
            parts += [""] * (4 - len(parts))
            stops.append({"name": parts[0], "address": parts[1], "city": parts[2], "contact": parts[3]})
    return stops


def is_missing(value: Any) -> bool:
    """None or a pandas/numpy missing value (NaN, NA, NaT) from an edited table cell."""
    if value is None:
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # list-like cells
        return False


def clean(value: Any) -> str | None:
    if is_missing(value):
        return None
    text = str(value).strip()
    return text or None


def stops_from_frame(frame: pd.DataFrame | None) -> list[StopRow]:
    """Rows of the stops table as RawStop dicts, sorted by ``order`` (blank order last); empty rows dropped."""
    if frame is None or len(frame) == 0:
        return []
    df = frame.copy()
    for col in STOP_COLUMNS:
        if col not in df.columns:
            df[col] = None
    df["_order"] = pd.to_numeric(df["order"], errors="coerce")
    df["_pos"] = range(len(df))
    df = df.sort_values(["_order", "_pos"], na_position="last", kind="stable")
    stops: list[StopRow] = []
    for _, row in df.iterrows():
        stop = StopRow(
            name=clean(row["name"]),
            address=clean(row["address"]),
            city=clean(row["city"]),
            contact=clean(row["contact"]),
        )
        if any(stop.values()):
            stops.append(stop)
    return stops


def renumbered(frame: pd.DataFrame) -> pd.DataFrame:
    """The table sorted by ``order`` and renumbered 1..n (blank rows dropped)."""
    return stops_frame(stops_from_frame(frame))
