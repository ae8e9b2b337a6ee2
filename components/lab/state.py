"""The strategy lab page's state: its session keys, the batch it reads, the grid it builds, the run it starts and the
results it keeps (docs/ARCHITECTURE.md, "Strategy lab"; the engine is core/lab).

A run on the page writes its table under the lab folder (``.omni/lab`` beside the response cache) with a name made
from the batch's bytes, the grid and the number of requests run, and runs with ``resume=True``: an interrupted run
(the user clicked elsewhere) continues where it stopped, and the same batch and grid load at once. The result is kept
in ``st.session_state[RESULT]`` with that signature; when the form's batch or grid no longer make it, the page says
the result is stale. The pure helpers (``grid_from_state``, ``signature``, ``cli_command``, ``prefill_route_planner``)
take a mapping, not Streamlit, and are unit-testable.
"""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import streamlit as st

from components.services import settings
from components.session import MutableState, StateView
from core.app.lab import read_batch
from core.config import PROJECT_ROOT
from core.models.lab import Batch, LabGrid, RouteBatchItem, TripBatchItem

BATCHES_DIR = PROJECT_ROOT / "data" / "batches"
MODES = ("driving", "walking", "cycling")
#: requests a page run takes by default (a larger batch: the CLI, or a first sample here)
PAGE_LIMIT = 20

# session keys (the widgets' keys are the same names: tests drive them)
SOURCE = "lab_source"  # shipped | upload | path
SHIPPED = "lab_shipped"
UPLOAD = "lab_upload"
BATCH_PATH = "lab_batch_path"
LIMIT = "lab_limit"
STRATEGIES_KEY = "lab_strategies"
MODES_KEY = "lab_modes"
OPTIMISERS_KEY = "lab_optimisers"
PROVIDERS_KEY = "lab_providers"
REGIONS_KEY = "lab_regions"
TIME_LIMIT = "lab_time_limit"
SEED = "lab_seed"
GEOMETRY = "lab_geometry"
RESULTS_PATH = "lab_results_path"
RESULTS_UPLOAD = "lab_results_upload"
RESULT = "lab_result"
ERROR = "lab_error"
SUMMARIES = "lab_summaries"  # {(signature, a, b, optimiser): LabSummary}


@dataclass
class LoadedBatch:
    """A batch the page read: its requests, its name (for files), the hash of its bytes and where it is."""

    batch: Batch
    name: str
    digest: str
    path: Path

    @property
    def regions(self) -> list[str]:
        return sorted({item.region for _, item in self.batch.items} | {line.region for line in self.batch.invalid})

    def items_by_id(self) -> dict[str, RouteBatchItem | TripBatchItem]:
        return {item.id: item for _, item in self.batch.items}


@dataclass
class LabResult:
    """A results table on the page: from a run here (``signature`` set) or loaded from a file (``None``)."""

    frame: pd.DataFrame
    name: str
    path: str
    signature: str | None = None
    grid: LabGrid | None = None
    items: dict[str, RouteBatchItem | TripBatchItem] = field(default_factory=dict)
    requests_run: int | None = None
    requests_total: int | None = None
    wall_s: float | None = None


def lab_dir() -> Path:
    """Where the page keeps uploads, grids and results: ``lab/`` beside the response cache (``.omni/lab``)."""
    cache = settings().cache_dir
    base = cache.parent if cache is not None else PROJECT_ROOT / ".omni"
    return base / "lab"


def shipped_batches() -> list[str]:
    """The batches shipped in data/batches (file names)."""
    return sorted(p.name for p in BATCHES_DIR.glob("*") if p.suffix.lower() in (".jsonl", ".csv"))


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@st.cache_data(show_spinner=False, max_entries=16)
def _read(path: str, digest: str) -> Batch:  # keyed by the bytes' hash: an edited file is read again
    return read_batch(path)


def load_batch_file(path: str | Path) -> LoadedBatch:
    """A batch from a file (InputError when it is missing, unreadable or holds no request)."""
    p = Path(path).expanduser()
    if not p.is_file():
        from core.errors import InputError

        raise InputError(f"batch file not found: {p}", field="batch")
    digest = _digest(p.read_bytes())
    return LoadedBatch(batch=_read(str(p), digest), name=p.stem, digest=digest, path=p)


def load_batch_upload(name: str, data: bytes) -> LoadedBatch:
    """An uploaded batch, kept under the lab folder (so the CLI can run the same file)."""
    digest = _digest(data)
    suffix = ".csv" if name.lower().endswith(".csv") else ".jsonl"
    stem = Path(name).stem or "batch"
    folder = lab_dir() / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}-{digest[:12]}{suffix}"
    if not path.is_file():
        path.write_bytes(data)
    return LoadedBatch(batch=_read(str(path), digest), name=stem, digest=digest, path=path)


def first_requests(batch: Batch, limit: int | None) -> Batch:
    """The first ``limit`` requests of a batch (invalid lines included, in file order)."""
    if limit is None or limit >= len(batch):
        return batch
    return Batch(
        items=[(i, item) for i, item in batch.items if i < limit],
        invalid=[line for line in batch.invalid if line.index < limit],
    )


def grid_from_state(state: StateView, regions: list[str]) -> LabGrid:
    """The grid the form describes (pydantic checks it: an empty choice is a ValidationError)."""
    chosen_regions = list(state.get(REGIONS_KEY) or regions)
    return LabGrid(
        strategies=list(state.get(STRATEGIES_KEY) or []),
        modes=list(state.get(MODES_KEY) or []),
        optimisers=list(state.get(OPTIMISERS_KEY) or []),
        providers=list(state.get(PROVIDERS_KEY) or []),
        regions=None if sorted(chosen_regions) == sorted(regions) else chosen_regions,
        ortools_time_limit_s=float(state.get(TIME_LIMIT) or 0.2),
        seed=int(state.get(SEED) or 0),
        with_geometry=bool(state.get(GEOMETRY, True)),
    )


def signature(loaded: LoadedBatch, grid: LabGrid, limit: int | None) -> str:
    """What makes a result: the batch's bytes, the grid and how many requests ran."""
    text = f"{loaded.digest}\n{grid.model_dump_json()}\n{limit if limit is not None else 'all'}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def out_path(loaded: LoadedBatch, sig: str) -> Path:
    return lab_dir() / "results" / f"{loaded.name}-{sig}.parquet"


def write_grid(grid: LabGrid, sig: str) -> Path:
    path = lab_dir() / "grids" / f"grid-{sig}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(grid.model_dump_json(indent=1) + "\n", encoding="utf-8")
    return path


def cli_command(batch_path: Path, grid_path: Path, out: Path) -> str:
    """The exact command that runs the whole batch over the grid (what a large batch is handed to)."""
    parts = ["python", "-m", "core", "lab", "run", str(batch_path), "--grid", str(grid_path), "--out", str(out)]
    return shlex.join(parts)


def run_on_page(
    loaded: LoadedBatch, grid: LabGrid, limit: int | None, progress: Callable[[int, int], None]
) -> LabResult:
    """Run the first ``limit`` requests of the batch over the grid in this process (resumable), with progress."""
    from core.app.lab import open_results, run_batch

    sig = signature(loaded, grid, limit)
    out = out_path(loaded, sig)
    batch = first_requests(loaded.batch, limit)
    report = run_batch(batch, grid, out, workers=1, resume=True, bar=False, progress=progress, settings=settings())
    return LabResult(
        frame=open_results(out).frame,
        name=loaded.name,
        path=str(out),
        signature=sig,
        grid=grid,
        items=loaded.items_by_id(),
        requests_run=len(batch),
        requests_total=len(loaded.batch),
        wall_s=report.wall_s,
    )


def load_result_file(path: str | Path, *, items: dict[str, RouteBatchItem | TripBatchItem] | None = None) -> LabResult:
    """A results table written by the CLI (Parquet or its CSV)."""
    from core.app.lab import open_results

    p = Path(path).expanduser()
    table = open_results(p)
    return LabResult(frame=table.frame, name=p.stem, path=str(p), grid=table.grid, items=dict(items or {}))


def load_result_upload(name: str, data: bytes) -> LabResult:
    suffix = ".csv" if name.lower().endswith(".csv") else ".parquet"
    folder = lab_dir() / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{Path(name).stem or 'results'}-{_digest(data)[:12]}{suffix}"
    path.write_bytes(data)
    result = load_result_file(path)
    result.name = Path(name).stem or result.name
    return result


# ---- the drill-down: a request of the batch into the route planner's form ---------------------------------
def prefill_route_planner(
    state: MutableState, item: RouteBatchItem, *, strategy: str | None, mode: str, provider: str
) -> None:
    """Copy a batch's route request into the route planner's form (its session keys), with the strategy, mode
    and provider of the row. The route planner reads a demo from ``?scenario=`` only, not a request, so the form
    is filled through the session and the page switched to (st.switch_page)."""
    from components.frame import KEPT
    from components.route.choices import ROUTE
    from components.route.errors import ERROR as ROUTE_ERROR
    from components.route.form import REQUEST, STOPS_BASE, STOPS_CURRENT
    from components.route.form import RESULT as ROUTE_RESULT
    from components.stops_table import stops_frame

    req = item.request
    fixed = req.origin_mode == "fixed"
    same_end = req.round_trip and fixed and (req.destination_address or "") in ("", req.origin_address or "")
    ROUTE.set(
        state,
        origin_mode=req.origin_mode,
        route_strategy=strategy or req.route_strategy,
        transport_mode=mode,
        deep_link_mode=req.deep_link_mode,
    )
    form = {
        "origin_name": (req.origin_name or "") if fixed else "",
        "origin_address": (req.origin_address or "") if fixed else "",
        "origin_city": req.origin_city or "",
        "origin_lon": req.origin_lon,
        "origin_lat": req.origin_lat,
        "destination_name": "" if same_end else (req.destination_name or ""),
        "destination_address": "" if same_end else (req.destination_address or ""),
        "destination_city": req.destination_city or "",
        "round_trip": bool(req.round_trip),
        "max_permutations": int(req.max_permutations),
        "exact_legs": bool(req.exact_legs),
    }
    for key, value in form.items():
        state[key] = value
    frame = stops_frame(req.stops)
    state[STOPS_BASE] = frame
    state[STOPS_CURRENT] = frame
    state.pop("stops_editor", None)
    state.pop("loaded_scenario", None)
    for key in (ROUTE_RESULT, REQUEST, ROUTE_ERROR):
        state.pop(key, None)
    # the sidebar: the request's region and the row's provider (kept outside the widgets, see components/frame.py)
    state["region"] = item.region
    state[KEPT.format("region")] = item.region
    state["provider"] = provider
    state[KEPT.format("provider")] = provider
