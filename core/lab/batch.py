"""Reading batches and grids (docs/ARCHITECTURE.md, "Strategy lab").

A batch file is JSON lines (``.jsonl``), one :data:`core.models.lab.BatchItem` per line; blank lines and lines
starting with ``#`` are skipped. A line that is not a valid item is kept as an :class:`InvalidLine`: the run
writes it as error rows (code ``INVALID_INPUT`` and the field), so a bad request is never a lost one. A CSV
batch has the columns ``id``, ``region``, ``kind`` and ``request`` (the request as JSON), optionally ``seed`` and
``place_ids`` (ids joined by ``|``).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from core.errors import InputError, OmniError, error_from_validation
from core.models.common import echo
from core.models.lab import BATCH_ITEM, Batch, InvalidLine, LabGrid

MAX_BATCH_BYTES = 200_000_000
_ERROR = "__error__"  # a record that could not be read (kept with its id and region for the error rows)


def _records(path: Path) -> list[tuple[int, Any]]:
    """(line number, parsed JSON or the error text) of each non-blank line / CSV row."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"the batch is not UTF-8 text (byte {exc.start})", field="batch") from None
    out: list[tuple[int, Any]] = []
    if path.suffix.lower() == ".csv":
        for n, row in enumerate(csv.DictReader(io.StringIO(text)), start=2):
            record: dict[str, Any] = {k: v for k, v in row.items() if k and v not in (None, "")}
            try:
                record["request"] = json.loads(record.get("request", "null"))
            except json.JSONDecodeError as exc:
                out.append((n, {**record, _ERROR: f"row {n}: the request column is not JSON: {exc.msg}"}))
                continue
            if "seed" in record:
                record["seed"] = int(record["seed"]) if str(record["seed"]).lstrip("-").isdigit() else record["seed"]
            if "place_ids" in record:
                record["place_ids"] = [p for p in str(record["place_ids"]).split("|") if p]
            out.append((n, record))
        return out
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            out.append((n, json.loads(line)))
        except json.JSONDecodeError as exc:
            out.append((n, f"line {n} is not JSON: {exc.msg}"))
        except RecursionError:
            out.append((n, f"line {n} is nested too deeply to be a request"))
    return out


def read_batch(path: str | Path) -> Batch:
    """Every line of a batch file as a request or an :class:`InvalidLine` (a missing or unreadable file, duplicate
    ids or an empty batch are an InputError)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"batch file not found: {echo(str(path))}", field="batch")
    if p.stat().st_size > MAX_BATCH_BYTES:
        raise InputError(f"the batch is larger than {MAX_BATCH_BYTES // 1_000_000} MB", field="batch")
    batch = Batch(items=[], invalid=[])
    seen: set[str] = set()
    for index, (line_no, record) in enumerate(_records(p)):
        given_id = record.get("id") if isinstance(record, dict) else None
        item_id = str(given_id) if isinstance(given_id, str) and given_id else f"line-{line_no}"
        region = str(record.get("region") or "unknown") if isinstance(record, dict) else "unknown"
        if item_id in seen:
            raise InputError(f"the batch repeats the id '{echo(item_id)}' (line {line_no})", field="id")
        seen.add(item_id)
        if isinstance(record, str) or _ERROR in record:
            message = record if isinstance(record, str) else str(record[_ERROR])
            batch.invalid.append(InvalidLine(index, item_id, region, "INVALID_INPUT", message))
            continue
        try:
            batch.items.append((index, BATCH_ITEM.validate_python(record)))
        except ValidationError as exc:
            err = error_from_validation(exc)
            where = f" ({err.field})" if err.field else ""
            batch.invalid.append(InvalidLine(index, item_id, region, err.code, f"line {line_no}{where}: {err.message}"))
        except OmniError as exc:
            batch.invalid.append(InvalidLine(index, item_id, region, exc.code, f"line {line_no}: {exc.message}"))
    if not len(batch):
        raise InputError("the batch holds no requests", field="batch")
    return batch


def read_grid(path: str | Path | None) -> LabGrid:
    """A grid file (JSON, :class:`LabGrid`); no file: the default grid (three strategies, driving, offline,
    the project's optimiser)."""
    if path is None:
        return LabGrid()
    p = Path(path)
    if not p.is_file():
        raise InputError(f"grid file not found: {echo(str(path))}", field="grid")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"the grid is not JSON: {exc}", field="grid") from None
    return LabGrid.model_validate(data)
