"""The strategy lab (job 5): read a batch of requests, run it over a grid of strategies and optimisers, read the
results table back and summarise it. The dashboard runs a few requests in its own process; the command line
(``python -m core lab run``) runs the whole batch."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.config import Settings, get_settings
from core.models.lab import Batch, LabGrid, LabSummary

if TYPE_CHECKING:  # the runner and the results table (pyarrow) are read when a run or a table is asked for
    import pandas as pd

    from core.lab.runner import RunReport

__all__ = [
    "ResultsTable",
    "open_results",
    "read_batch",
    "run_batch",
    "summarize",
    "summary_table",
]


def read_batch(path: str | Path) -> Batch:
    """A batch file (JSON Lines or CSV) as its items and the lines that could not be read."""
    from core.lab.batch import read_batch as _read_batch

    return _read_batch(path)


def run_batch(
    batch: Batch,
    grid: LabGrid,
    out: str | Path,
    *,
    workers: int | None = None,
    resume: bool = False,
    bar: bool = True,
    progress: Callable[[int, int], None] | None = None,
    settings: Settings | None = None,
) -> RunReport:
    """Run ``batch`` over ``grid`` and write the results table to ``out`` (Parquet, and its CSV); the run's report
    (counts, wall time). ``workers``: 1 runs in this process; ``resume``: keep an interrupted run's parts with the same grid;
    ``progress(done, total)``: called per chunk (a page's progress box)."""
    from core.lab.runner import run_batch as _run_batch

    return _run_batch(
        batch,
        grid,
        out,
        workers=workers,
        resume=resume,
        bar=bar,
        progress=progress,
        settings=settings or get_settings(),
    )


@dataclass(frozen=True)
class ResultsTable:
    """A results table as read: its rows (columns typed) and the grid it was run over (None: a CSV, or a Parquet
    table that does not say)."""

    frame: pd.DataFrame
    grid: LabGrid | None


def open_results(path: str | Path) -> ResultsTable:
    """A results table (Parquet or its CSV) and, for Parquet, the grid its metadata names."""
    from core.lab.results import grid_of, load_results

    path = Path(path)
    return ResultsTable(frame=load_results(path), grid=grid_of(path) if path.suffix.lower() == ".parquet" else None)


def summarize(
    frame: pd.DataFrame, *, a: str | None = None, b: str | None = None, optimiser: str | None = None
) -> LabSummary:
    """The summary of a results table: ``a``/``b`` one pair of strategies (default: every pair present),
    ``optimiser`` whose routes the strategy pairs compare."""
    from core.lab.summary import summarize as _summarize

    return _summarize(frame, a=a, b=b, optimiser=optimiser)


def summary_table(summary: LabSummary) -> pd.DataFrame:
    """The whole summary as one table (``section``: pairs, optimisers, flags), for a CSV a spreadsheet opens."""
    import pandas as pd

    from core.lab.summary import summary_frames

    parts = [df.assign(section=name) for name, df in summary_frames(summary).items() if len(df)]
    if not parts:
        return pd.DataFrame({"section": pd.Series(dtype=str)})
    table = pd.concat(parts, ignore_index=True, sort=False)
    return table[["section", *[c for c in table.columns if c != "section"]]]
