"""Running a batch over a grid (``python -m core lab run``; docs/ARCHITECTURE.md, "Strategy lab").

Tasks (one request on one provider × mode, :func:`core.lab.task.run_task`) are grouped into chunks; a chunk is a
pure function of its tasks, the grid and the settings (:func:`run_chunk`), so the same code runs in this process
(``workers=1``), on local processes (``workers=N``, the default: every core) or on a Dask cluster
(``OMNI_DASK_SCHEDULER``, or ``scheduler=``). Each finished chunk is written as a part at once
(core/lab/results.py); ``resume=True`` skips the tasks the parts already hold; at the end the parts are merged
into the results table.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from core.config import Settings
from core.geo.pool import ProviderPool
from core.i18n import set_strict
from core.lab import results
from core.lab.batch import read_batch
from core.models.lab import Batch, InvalidLine, LabGrid, RouteBatchItem, TaskCell, TripBatchItem

Progress = Callable[[int, int], None]
Executor = Literal["serial", "local", "dask"]


@dataclass(frozen=True)
class Task:
    """One request (or invalid line) on one provider × mode."""

    index: int
    cell: TaskCell
    entry: RouteBatchItem | TripBatchItem | InvalidLine

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.entry.id, self.cell.provider, self.cell.mode)


class RunReport(BaseModel):
    """What a run did (the CLI prints it as JSON)."""

    out: str
    csv: str
    executor: Executor
    workers: int
    tasks: int
    tasks_run: int
    tasks_skipped: int
    rows: int
    error_rows: int
    wall_s: float
    tasks_per_s: float


def plan_tasks(batch: Batch, grid: LabGrid) -> list[Task]:
    """Every task of a batch in a fixed order: requests in file order, then the grid's provider × mode cells."""
    tasks = []
    entries: list[tuple[int, RouteBatchItem | TripBatchItem | InvalidLine]] = sorted(
        [*batch.items, *((line.index, line) for line in batch.invalid)]
    )
    for index, entry in entries:
        if not grid.runs(entry.region):
            continue
        for cell in grid.task_cells():
            tasks.append(Task(index=index, cell=cell, entry=entry))
    return tasks


@contextmanager
def _provider_logs_kept_in_rows() -> Iterator[None]:
    """A provider's degradation warnings (estimated pairs, ...) are in each row's warnings: not also on stderr,
    where they would break the progress bar line by line."""
    geo = logging.getLogger("core.geo")
    level = geo.level
    geo.setLevel(logging.ERROR)
    try:
        yield
    finally:
        geo.setLevel(level)


#: a lab worker process's root: its map services, built once per provider, region and settings and shared by the
#: chunks the process runs (a pack and its geocoding index load once per worker, not once per chunk)
WORKER_PROVIDERS = ProviderPool()


def run_chunk(tasks: list[Task], grid: LabGrid, settings: Settings) -> list[dict[str, Any]]:
    """The rows of a chunk of tasks (a pure function: what local processes and Dask workers run)."""
    set_strict(settings.i18n_strict)  # a worker process's policy for missing words, as its parent's root set it
    with _provider_logs_kept_in_rows():
        return _run_chunk(tasks, grid, settings, providers=WORKER_PROVIDERS)


def _run_chunk(
    tasks: list[Task], grid: LabGrid, settings: Settings, *, providers: ProviderPool
) -> list[dict[str, Any]]:
    from core.lab.task import invalid_rows, run_task

    rows: list[dict[str, Any]] = []
    for task in tasks:
        if isinstance(task.entry, InvalidLine):
            bad = task.entry
            rows += invalid_rows(
                request_id=bad.id,
                region=bad.region,
                index=bad.index,
                code=bad.code,
                message=bad.message,
                cell=task.cell,
                grid=grid,
                settings=settings,
            )
        else:
            rows += run_task(
                task.entry, index=task.index, cell=task.cell, grid=grid, settings=settings, providers=providers
            )
    return rows


def _chunks(tasks: list[Task], size: int) -> list[list[Task]]:
    return [tasks[i : i + size] for i in range(0, len(tasks), size)]


def _lost(chunk: list[Task], grid: LabGrid, settings: Settings, exc: BaseException) -> list[dict[str, Any]]:
    """A chunk whose worker died: every task of it becomes error rows (WORKER_FAILED), never lost rows."""
    from core.lab.task import invalid_rows

    rows: list[dict[str, Any]] = []
    for task in chunk:
        rows += invalid_rows(
            request_id=task.entry.id,
            region=task.entry.region,
            index=task.index,
            code="WORKER_FAILED",
            message=f"the worker running this request failed: {type(exc).__name__}: {exc}",
            cell=task.cell,
            grid=grid,
            settings=settings,
        )
    return rows


def _serial(chunks: list[list[Task]], grid: LabGrid, settings: Settings) -> Iterator[tuple[list[Task], Any]]:
    for chunk in chunks:
        yield chunk, run_chunk(chunk, grid, settings)


def _local(
    chunks: list[list[Task]], grid: LabGrid, settings: Settings, workers: int
) -> Iterator[tuple[list[Task], Any]]:
    # spawn: a fresh interpreter per worker (no inherited Valhalla actor, numba state or threads)
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures: dict[Future[list[dict[str, Any]]], list[Task]] = {
            pool.submit(run_chunk, chunk, grid, settings): chunk for chunk in chunks
        }
        try:
            for future in as_completed(futures):
                try:
                    yield futures[future], future.result()
                except Exception as exc:  # a dead worker process: its requests become error rows
                    yield futures[future], _lost(futures[future], grid, settings, exc)
        finally:
            for future in futures:
                future.cancel()


def _dask(
    chunks: list[list[Task]], grid: LabGrid, settings: Settings, scheduler: str
) -> Iterator[tuple[list[Task], Any]]:
    from distributed import Client
    from distributed import as_completed as dask_completed

    with Client(scheduler, set_as_default=False) as client:  # type: ignore[no-untyped-call]  # distributed: Client.__init__ is unannotated
        futures = client.map(run_chunk, chunks, grid=grid, settings=settings, pure=False)
        owner = {f.key: chunk for f, chunk in zip(futures, chunks, strict=True)}
        try:
            for future in dask_completed(futures, loop=client.loop):  # type: ignore[no-untyped-call]  # and as_completed.__init__
                try:
                    yield owner[future.key], future.result()
                except Exception as exc:
                    yield owner[future.key], _lost(owner[future.key], grid, settings, exc)
        finally:
            client.cancel(futures)


def run_batch(
    batch: str | Path | Batch,
    grid: LabGrid,
    out: str | Path,
    *,
    workers: int | None = None,
    resume: bool = False,
    settings: Settings,
    scheduler: str | None = None,
    chunk_size: int | None = None,
    bar: bool = True,
    progress: Progress | None = None,
) -> RunReport:
    """Run ``batch`` over ``grid`` and write the results table to ``out`` (Parquet) and its ``.csv``.

    ``workers``: 1 runs in this process, N on N local processes (default: every core); a Dask scheduler
    (``scheduler`` or ``OMNI_DASK_SCHEDULER``) takes the tasks instead. ``resume``: keep the parts of an
    interrupted run with the same grid and run only the rest. ``progress(done, total)`` is called per chunk
    (a page's progress box); ``bar`` shows tqdm on stderr."""
    out = Path(out)
    batch = batch if isinstance(batch, Batch) else read_batch(batch)
    tasks = plan_tasks(batch, grid)
    folder = results.prepare_parts(out, grid, resume=resume)
    done = results.done_tasks(folder) if resume else set()
    todo = [t for t in tasks if t.key not in done]
    scheduler = scheduler if scheduler is not None else settings.dask_scheduler
    workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
    executor: Executor = "dask" if scheduler else ("serial" if workers == 1 or len(todo) <= 1 else "local")
    size = chunk_size or max(1, min(8, len(todo) // (max(workers, 1) * 4) or 1))
    chunks = _chunks(todo, size)

    from tqdm import tqdm

    t0 = time.perf_counter()
    with tqdm(total=len(tasks), initial=len(tasks) - len(todo), unit="task", file=sys.stderr, disable=not bar) as pbar:
        if executor == "dask":
            stream = _dask(chunks, grid, settings, str(scheduler))
        elif executor == "local":
            stream = _local(chunks, grid, settings, min(workers, len(chunks)))
        else:
            stream = _serial(chunks, grid, settings)
        finished = len(tasks) - len(todo)
        for chunk, rows in stream:
            results.write_part(folder, rows)
            finished += len(chunk)
            pbar.update(len(chunk))
            if progress is not None:
                progress(finished, len(tasks))
    wall = time.perf_counter() - t0
    table = results.merge_parts(out, grid, keep={t.key for t in tasks})
    return RunReport(
        out=str(out),
        csv=str(results.csv_path(out)),
        executor=executor,
        workers=workers,
        tasks=len(tasks),
        tasks_run=len(todo),
        tasks_skipped=len(tasks) - len(todo),
        rows=len(table),
        error_rows=int((table["status"] == "error").sum()) if len(table) else 0,
        wall_s=round(wall, 3),
        tasks_per_s=round(len(todo) / wall, 3) if wall > 0 else 0.0,
    )
