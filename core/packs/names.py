"""A curated table of a pack's Chinese names (``data/names/<pack>_zh.csv``), applied when the pack is built.

OpenStreetMap carries few Chinese names, and some sit on the wrong object (the Helsinki extract's ``name:zh``
"赫尔辛基大教堂" is on the Alexander II statue, not on the cathedral). Each row of the table names one OSM
object (``w419479428``), one Chinese name and where the name comes from (a zh.wikipedia article, as a URL). The
first row of an object becomes its ``name_zh`` and later rows its aliases; the Chinese name OSM gave it stays an
alias. A curated name that another place carried is taken off that place (its local name shows again), so one
name leads to one place. Rows for objects the extract does not hold are counted, never invented.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from core.errors import InputError
from core.i18n import has_cjk

NAME_COLUMNS = ("osm_id", "name_zh", "source")


class ChineseName(BaseModel):
    osm_id: str = Field(pattern=r"^[nwr][0-9]+$")
    name_zh: str = Field(min_length=1)
    source: str = Field(pattern=r"^https?://\S+$")


class NamesApplied(BaseModel):
    named: int = Field(description="places given a curated Chinese name")
    taken_from_others: int = Field(description="places a curated name was taken off (it names another place)")
    missing: list[str] = Field(description="OSM ids of the table the extract does not hold")


def read_names(path: Path) -> list[ChineseName]:
    """The table's rows; a row without an id, a name or a source URL is refused with its line number."""
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        if tuple(reader.fieldnames or ()) != NAME_COLUMNS:
            raise InputError(f"{path.name}: the columns are {', '.join(NAME_COLUMNS)}", field="names_zh")
        rows = []
        for line, row in enumerate(reader, start=2):
            try:
                rows.append(ChineseName.model_validate(row))
            except ValueError as exc:
                raise InputError(f"{path.name} line {line}: {exc}", field="names_zh") from exc
    return rows


def _aliases(row: dict[str, Any]) -> list[str]:
    return [a for a in str(row["aliases"]).split("|") if a]


def _take_off(row: dict[str, Any], names: set[str]) -> bool:
    """``names`` taken off a place that is not theirs; its name_zh falls back to its first local name."""
    aliases = _aliases(row)
    kept = [a for a in aliases if a not in names]
    changed = len(kept) != len(aliases)
    if row["name_zh"] in names:
        local = next((a for a in kept if not has_cjk(a)), None) or row["name_en"] or row["id"]
        kept = [a for a in kept if a != local]
        row["name_zh"], changed = local, True
    row["aliases"] = "|".join(kept)
    return changed


def apply_chinese_names(rows: list[dict[str, Any]], names: list[ChineseName], *, prefix: str) -> NamesApplied:
    """The table applied to the pack's rows (``places.csv`` dicts, changed in place)."""
    by_id: dict[str, list[str]] = {}
    for n in names:
        by_id.setdefault(f"{prefix}{n.osm_id}", []).append(n.name_zh)
    curated = {name for listed in by_id.values() for name in listed}
    named = taken = 0
    for row in rows:
        mine = by_id.get(row["id"])
        if mine is None:
            taken += _take_off(row, curated)
            continue
        others = curated - set(mine)  # a name of another place this one carried
        _take_off(row, others)
        before = [row["name_zh"], *_aliases(row)]
        rest = [a for a in before if a not in mine and a != row["name_en"]]
        row["name_zh"] = mine[0]
        row["aliases"] = "|".join(dict.fromkeys([*mine[1:], *rest]))
        named += 1
    held = {row["id"] for row in rows}
    missing = sorted(i.removeprefix(prefix) for i in by_id if i not in held)
    return NamesApplied(named=named, taken_from_others=taken, missing=missing)
