"""Contracts of the strategy lab (docs/ARCHITECTURE.md, "Strategy lab"): a batch line, the grid and one result row.

A batch is a JSON-lines file, one :data:`BatchItem` per line (``kind`` ``route``: a ``RoutePlanRequest``;
``kind`` ``trip``: a ``TripRequest``), each with its id, the region pack it draws on, the generator's seed and the
pack ids of the places it names. ``python -m core lab schema`` prints the JSON schema of a line and of a grid
(shipped as ``core/lab/schema/*.schema.json``).

A grid (:class:`LabGrid`, a JSON file) says what to run each request over: strategies × transport modes ×
providers × optimisers, with the optimisers' time limit and the seed. Each result row (:class:`ResultRow`) is one
request × grid cell.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from core.models.common import REGION_NAME_PATTERN
from core.models.itinerary import TripRequest
from core.models.route import STRATEGIES, RoutePlanRequest, RouteStrategy, TransportMode

OptimiserName = Literal["project", "ortools_gls", "valhalla", "nearest_neighbour"]
#: every optimiser the lab compares, in the order rows are written
OPTIMISERS: tuple[OptimiserName, ...] = ("project", "ortools_gls", "valhalla", "nearest_neighbour")
#: the optimiser name of a trip row (the itinerary pipeline's own OR-Tools VRPTW; strategies do not apply)
TRIP_OPTIMISER = "itinerary"
ITEM_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,119}$"

RowStatus = Literal["ok", "error", "not_applicable"]
#: optimal: proven (exact search, or the solver says so); heuristic / feasible: a solution without proof
OptStatus = Literal["optimal", "heuristic", "feasible", "error", "not_applicable"]
Objective = Literal["distance_m", "duration_s", "pareto"]
#: the objective each strategy minimises (balanced picks on the Pareto front: no single objective, no gap)
STRATEGY_OBJECTIVE: dict[str, Objective] = {
    "shortest_distance": "distance_m",
    "fastest_time": "duration_s",
    "balanced": "pareto",
}


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=ITEM_ID_PATTERN, description="Unique in the batch; rows are keyed by it")
    region: str = Field(pattern=REGION_NAME_PATTERN, description="The region pack the request's places come from")
    seed: int | None = Field(default=None, description="The generator's seed (None: written by hand)")
    place_ids: list[str] = Field(
        default_factory=list,
        description="Pack ids of the places the request names, in its order (origin, stops...): provenance, and "
        "what the lab checks the resolved places against",
    )


class RouteBatchItem(_Item):
    """One route request of a batch."""

    kind: Literal["route"] = "route"
    request: RoutePlanRequest


class TripBatchItem(_Item):
    """One trip request of a batch (the itinerary pipeline; strategies and optimisers do not apply)."""

    kind: Literal["trip"] = "trip"
    request: TripRequest


BatchItem = Annotated[RouteBatchItem | TripBatchItem, Field(discriminator="kind")]
BATCH_ITEM: TypeAdapter[RouteBatchItem | TripBatchItem] = TypeAdapter(BatchItem)


class TaskCell(BaseModel):
    """The part of a grid cell one task covers: every strategy and optimiser share its matrix."""

    model_config = ConfigDict(frozen=True)

    provider: str
    mode: TransportMode


class LabGrid(BaseModel):
    """What every request of a batch is run over. Cells: providers × modes × strategies × optimisers."""

    model_config = ConfigDict(extra="forbid")

    strategies: list[RouteStrategy] = Field(default_factory=lambda: list(STRATEGIES), min_length=1)
    modes: list[TransportMode] = Field(default_factory=lambda: list[TransportMode](["driving"]), min_length=1)
    providers: list[str] = Field(
        default_factory=lambda: ["offline"],
        min_length=1,
        description="Provider names as core/geo/registry.py takes them (offline, pack+valhalla, ...)",
    )
    regions: list[str] | None = Field(default=None, description="Only items of these regions run (None: every item)")
    optimisers: list[OptimiserName] = Field(default_factory=lambda: list[OptimiserName](["project"]), min_length=1)
    ortools_time_limit_s: float = Field(default=0.2, gt=0, le=60, description="OR-Tools guided local search, per solve")
    seed: int = Field(default=0, ge=0, description="The solvers' seed (the planner's solver_seed)")
    with_geometry: bool = Field(
        default=False, description="Keep each project row's drawn route ([[lon, lat], ...] per leg) in `geometry`"
    )

    def task_cells(self) -> list[TaskCell]:
        """One task per provider × mode, in grid order."""
        return [TaskCell(provider=p, mode=m) for p, m in itertools.product(self.providers, self.modes)]

    def runs(self, region: str) -> bool:
        return self.regions is None or region in self.regions


class ResultRow(BaseModel):
    """One request × grid cell. Figures carry their source; an error is a row, never a missing one."""

    # identity and cell
    request_id: str
    request_index: int = Field(description="Line of the request in its batch (0-based); rows sort by it")
    request_kind: Literal["route", "trip"]
    region: str
    provider: str
    mode: str
    strategy: str | None = Field(description="None for a trip row")
    optimiser: str
    n_stops: int = Field(description="Stops to order (trip rows: places requested)")
    size_bucket: str = Field(description="n_stops in buckets of five: 1-5, 6-10, ...")
    # outcome
    status: RowStatus
    error_code: str | None = Field(default=None, description="Why the row is error or not_applicable")
    error_message: str | None = None
    # figures
    distance_m: int | None = Field(default=None, description="Total of the chosen order (sum of its rounded legs)")
    duration_s: int | None = None
    stop_order: str | None = Field(default=None, description="JSON list: stop indices of the request, visiting order")
    place_order: str | None = Field(default=None, description="JSON list: pack ids of the stops, visiting order")
    metric_source: str | None = Field(default=None, description="Where the matrix came from (valhalla, mixed, ...)")
    estimated_pairs: int | None = Field(default=None, description="Pairs of the matrix filled by the estimate")
    warnings: str = Field(default="[]", description="JSON list of the plan's warnings")
    n_warnings: int = 0
    geometry: str | None = Field(default=None, description="JSON [[[lon, lat], ...] per leg] (grid.with_geometry)")
    # optimiser
    objective: str | None = Field(default=None, description="distance_m | duration_s | pareto (balanced)")
    objective_value: float | None = Field(default=None, description="The optimiser's best for the objective")
    best_known: float | None = Field(default=None, description="Best among the optimisers run on this matrix")
    best_known_exact: bool | None = Field(default=None, description="best_known is the exact optimum")
    gap: float | None = Field(default=None, description="objective_value / best_known - 1 (0.01 = 1 %)")
    opt_status: OptStatus | None = None
    opt_detail: str | None = Field(default=None, description="The solver's own word (held_karp, ROUTING_SUCCESS, ...)")
    opt_time_s: float | None = Field(default=None, description="The optimiser's time on this request (both objectives)")
    opt_time_limit_s: float | None = None
    plan_time_s: float | None = Field(default=None, description="Resolution + matrix time of the task")
    reproducible: bool | None = Field(
        default=None,
        description="The same request, seed and versions give this row again (False: Valhalla's randomised "
        "optimiser, or a search ended by a time limit)",
    )
    search_stop: str | None = Field(
        default=None,
        description="What ended the optimiser's search: exact (nothing to stop), stall or max_kicks (the planner's "
        "ILS stopped by its kick budgets: reproducible), time_limit (a clock: OR-Tools, or the ILS's safety cap)",
    )
    # reproducibility
    seed: int = Field(description="The grid's solver seed")
    batch_seed: int | None = Field(default=None, description="The generator's seed of the request")
    package_version: str
    ortools_version: str
    pyvalhalla_version: str
    pack_data_date: str | None
    settings_json: str = Field(description="The planning settings that shape the figures (JSON)")


#: columns that measure time, not the plan: ignored when two runs are compared
TIMING_COLUMNS = ("opt_time_s", "plan_time_s")


def size_bucket(n: int, *, width: int = 5) -> str:
    """``1-5``, ``6-10``, ...: the problem-size buckets of the summary (``0``: no valid request)."""
    if n < 1:
        return "0"
    lo = ((n - 1) // width) * width + 1
    return f"{lo}-{lo + width - 1}"


def schemas() -> dict[str, dict[str, Any]]:
    """The JSON schemas of a batch line and of a grid (``core/lab/schema/``)."""
    return {
        "batch-item": BATCH_ITEM.json_schema(),
        "grid": LabGrid.model_json_schema(),
    }


# ---- a batch as read, and a results table's summary (core/lab reads and summarises them) ----


@dataclass(frozen=True)
class InvalidLine:
    """A line of a batch that is not a request: its rows say why."""

    index: int
    id: str
    region: str
    code: str
    message: str


@dataclass
class Batch:
    """The requests of a batch in file order (``index`` is the request's position, invalid lines included)."""

    items: list[tuple[int, RouteBatchItem | TripBatchItem]]
    invalid: list[InvalidLine]

    def __len__(self) -> int:
        return len(self.items) + len(self.invalid)


class Spread(BaseModel):
    """A distribution in a few numbers: sample size, median, p10-p90, the bootstrap interval of the median."""

    n: int
    median: float | None = None
    p10: float | None = None
    p90: float | None = None
    median_ci_low: float | None = Field(default=None, description="bootstrap interval of the median (CONFIDENCE)")
    median_ci_high: float | None = None
    mean: float | None = Field(default=None, description="beside the spread, never alone")


class PairSummary(BaseModel):
    region: str
    provider: str
    mode: str
    optimiser: str
    a: str
    b: str
    n: int = Field(description="requests where both strategies have a route")
    n_differ: int = Field(description="requests where the two strategies chose different orders")
    time_saved_s: Spread = Field(description="b.duration_s - a.duration_s per request")
    distance_added_m: Spread = Field(description="a.distance_m - b.distance_m per request")
    flags: list[str] = Field(default_factory=list)


class OptimiserSummary(BaseModel):
    region: str
    provider: str
    mode: str
    optimiser: str
    objective: str
    size_bucket: str
    n: int = Field(description="requests with a gap (the optimiser answered and a best is known)")
    n_errors: int
    n_at_best: int = Field(description="requests where it matched the best known (gap 0)")
    n_best_exact: int = Field(description="requests whose best known is the proven optimum")
    gap: Spread
    worst_gap: float | None = None
    time_s: Spread
    worst_time_s: float | None = None
    stops: dict[str, int] = Field(
        default_factory=dict,
        description="what ended its searches, with how many requests: exact, stall / max_kicks (kick budgets: "
        "reproducible), time_limit (a clock)",
    )
    n_reproducible: int = Field(default=0, description="requests whose rows the same seed and versions give again")


class SummaryFlag(BaseModel):
    code: str
    region: str | None = None
    provider: str | None = None
    mode: str | None = None
    count: int = 0
    detail: str | None = None


class LabSummary(BaseModel):
    rows: int
    requests: int
    pairs: list[PairSummary]
    optimisers: list[OptimiserSummary]
    flags: list[SummaryFlag]
    errors: dict[str, int] = Field(description="error rows per code")
    bootstrap: dict[str, float] = Field(description="resamples, confidence and seed of the intervals")
