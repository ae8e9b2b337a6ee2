"""The results table on disk (docs/ARCHITECTURE.md, "Strategy lab").

A run writes one Parquet part per finished chunk of tasks into ``OUT.parts/`` (written to a temporary name, then
renamed: a part is whole or absent), next to ``grid.json`` (the grid the parts were made with). At the end the
parts are merged into ``OUT`` (Parquet, pyarrow) and ``OUT`` with ``.csv``, sorted by request, provider, mode,
strategy and optimiser in grid order. ``--resume`` skips every task whose rows a part already holds.
"""

from __future__ import annotations

import json
import os
import types
import typing
import uuid
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from core.errors import InputError
from core.models.lab import OPTIMISERS, TIMING_COLUMNS, LabGrid, ResultRow

GRID_FILE = "grid.json"
#: a task is one request on one provider × mode: what a part holds whole and what resume skips
TASK_KEY = ("request_id", "provider", "mode")

_ARROW = {str: pa.string(), int: pa.int64(), float: pa.float64(), bool: pa.bool_()}


def _arrow_type(annotation: Any) -> pa.DataType:
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        return _arrow_type(args[0])
    if typing.get_origin(annotation) is typing.Literal:
        return pa.string()
    if annotation in _ARROW:
        return _ARROW[annotation]
    if args and all(typing.get_origin(a) is typing.Literal for a in args):
        return pa.string()
    return pa.string()


def _schema() -> pa.Schema:
    hints = typing.get_type_hints(ResultRow)
    return pa.schema(
        [
            pa.field(name, _arrow_type(hints[name]), metadata={"description": info.description or ""})
            for name, info in ResultRow.model_fields.items()
        ]
    )


SCHEMA = _schema()
COLUMNS = list(SCHEMA.names)


def parts_dir(out: Path) -> Path:
    return out.with_name(out.name + ".parts")


def csv_path(out: Path) -> Path:
    return out.with_suffix(".csv")


def prepare_parts(out: Path, grid: LabGrid, *, resume: bool) -> Path:
    """The parts folder of ``out``: kept on resume (refused if it was made with another grid), else emptied."""
    folder = parts_dir(out)
    grid_text = grid.model_dump_json(indent=1)
    if resume and folder.is_dir() and (folder / GRID_FILE).is_file():
        if LabGrid.model_validate_json((folder / GRID_FILE).read_text(encoding="utf-8")) != grid:
            raise InputError(
                f"{folder} was made with another grid; resume with the same grid or choose another --out",
                field="grid",
            )
        return folder
    if folder.is_dir():
        for part in folder.glob("part-*.parquet"):
            part.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / GRID_FILE).write_text(grid_text, encoding="utf-8")
    return folder


def write_part(folder: Path, rows: list[dict[str, Any]]) -> Path:
    """One chunk's rows as a part (a temporary name renamed into place: a part is whole or absent)."""
    table = pa.Table.from_pylist(rows, schema=SCHEMA)
    name = f"part-{uuid.uuid4().hex}.parquet"
    tmp = folder / f".{name}.tmp"
    pq.write_table(table, tmp)
    os.replace(tmp, folder / name)
    return folder / name


def read_parts(folder: Path) -> pd.DataFrame:
    parts = sorted(folder.glob("part-*.parquet")) if folder.is_dir() else []
    if not parts:
        return pd.DataFrame({name: pd.Series(dtype=object) for name in COLUMNS})
    return pa.concat_tables([pq.read_table(p, schema=SCHEMA) for p in parts]).to_pandas()


def done_tasks(folder: Path) -> set[tuple[str, str, str]]:
    frame = read_parts(folder)
    return {tuple(k) for k in frame[list(TASK_KEY)].itertuples(index=False, name=None)}


def sort_rows(frame: pd.DataFrame, grid: LabGrid) -> pd.DataFrame:
    """Rows in a fixed order: request (batch order), then provider, mode, strategy and optimiser in grid order."""
    ranks = {
        "provider": {p: i for i, p in enumerate(grid.providers)},
        "mode": {m: i for i, m in enumerate(grid.modes)},
        "strategy": {s: i for i, s in enumerate(grid.strategies)},
        "optimiser": {o: i for i, o in enumerate(OPTIMISERS)},
    }
    keys = frame.assign(**{f"_{col}": frame[col].map(lambda v, r=r: r.get(v, len(r))) for col, r in ranks.items()})
    order = ["request_index", "_provider", "_mode", "_strategy", "_optimiser"]
    return keys.sort_values(order, kind="stable").drop(columns=order[1:]).reset_index(drop=True)


def merge_parts(out: Path, grid: LabGrid, *, keep: set[tuple[str, str, str]] | None = None) -> pd.DataFrame:
    """The parts as one sorted table, written to ``out`` (Parquet) and its ``.csv``; ``keep``: only these tasks."""
    frame = read_parts(parts_dir(out))
    if keep is not None and len(frame):
        mask = [tuple(k) in keep for k in frame[list(TASK_KEY)].itertuples(index=False, name=None)]
        frame = frame[mask]
    frame = sort_rows(frame.drop_duplicates(subset=[*TASK_KEY, "strategy", "optimiser"], keep="first"), grid)
    out.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pandas(frame[COLUMNS], schema=SCHEMA, preserve_index=False)
    table = table.replace_schema_metadata({"omni.lab.grid": grid.model_dump_json()})
    pq.write_table(table, out)
    frame[COLUMNS].to_csv(csv_path(out), index=False)
    return frame[COLUMNS]


def load_results(path: str | Path) -> pd.DataFrame:
    """A results table (Parquet or its CSV) as a DataFrame with the lab's columns."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"results file not found: {p}", field="results")
    if p.suffix.lower() == ".csv":
        return pd.read_csv(p)
    try:
        return pq.read_table(p).to_pandas()
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"{p.name} is not a results table ({exc})", field="results") from None


def grid_of(path: str | Path) -> LabGrid | None:
    """The grid a Parquet results table was made with (kept in its metadata)."""
    meta = pq.read_schema(Path(path)).metadata or {}
    raw = meta.get(b"omni.lab.grid")
    return LabGrid.model_validate(json.loads(raw)) if raw else None


def comparable(frame: pd.DataFrame) -> pd.DataFrame:
    """The table without the columns that measure time (two runs of the same batch compare equal on the rest)."""
    return frame.drop(columns=[c for c in TIMING_COLUMNS if c in frame.columns]).reset_index(drop=True)
