"""The route planner's stage contracts (core/route/planner.py): what each stage hands the next — the resolved trip,
its travel matrix, the candidate orders, the ranked candidates, the drawn best route and its links — and the
progress a plan reports between stages (codes and facts; words at the edge).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, cast

import numpy as np

from core.geo.base import LonLat, PairDoors
from core.models.route import CandidateRoute, DeepLinks, LiveOrigin, MetricSource, Notice, OptimizerInfo, ResolvedPoint
from core.models.route_views import PlaceNames
from core.route.notices import english, point_names
from core.route.strategies import Scored

PlanStageCode = Literal["resolve", "matrix", "orders", "directions", "draw", "done"]


@dataclass(frozen=True)
class PlanStage:
    """Where a plan is, as a code with facts (words come from the catalogs at the edge: route.progress.*): the
    stage, and where a paced service is used its name, the calls this plan made and about how many a cold plan
    has left."""

    code: PlanStageCode
    service: str | None = None
    made: int | None = None
    left: int | None = None


#: what a face's progress display takes: a label in its language and how far the work is
Progress = Callable[[str, float], None]
#: what the planner reports: the stage (codes and facts) and how far it is
StageProgress = Callable[[PlanStage, float], None]


@dataclass
class ResolvedTrip:
    """Stage 1: every input place as a point with its source, and the user's live start when known."""

    origin: ResolvedPoint | None
    stops: list[ResolvedPoint]
    destination: ResolvedPoint
    live: LiveOrigin | None
    notices: list[Notice] = field(default_factory=list)

    @property
    def points(self) -> list[ResolvedPoint]:
        return [p for p in (self.origin, *self.stops, self.destination) if p is not None]

    @property
    def warnings(self) -> list[str]:
        """The notices in English (core/route/notices.py)."""
        return english(self.notices, names=point_names(self.points))


@dataclass
class TripMatrix:
    """Stage 2: the points in matrix order (start?, stops, destination) and one distance/duration matrix."""

    points: list[LonLat]
    labels: list[str]
    #: each point's id in the result (core.models.route.point_id; the live start is LIVE_ORIGIN)
    ids: list[str]
    start: int | None
    offset: int
    end: int
    dist: np.ndarray
    dur: np.ndarray
    source: str
    #: the router that answered (a "mixed" matrix: its figures, except the estimated pairs)
    remote_source: str = ""
    estimated: frozenset[tuple[int, int]] = frozenset()
    notices: list[Notice] = field(default_factory=list)
    #: pairs whose cells hold the direction service's figures (core/route/directions.py), with its source
    direction_sources: dict[tuple[int, int], str] = field(default_factory=dict)
    #: pairs the router measured from or to a place's door (walking, cycling; issue 20 §5)
    doors: dict[tuple[int, int], PairDoors] = field(default_factory=dict)

    @property
    def warnings(self) -> list[str]:
        """The notices in English (core/route/notices.py)."""
        return english(self.notices, names=PlaceNames(route=dict(zip(self.ids, self.labels, strict=True))))

    def pair_source(self, a: int, b: int) -> MetricSource:
        """Where the figures of one leg come from: the estimate for a pair the router could not answer.
        (A router whose source the contract does not list fails RouteLeg's validation: add it to MetricSource.)"""
        if (a, b) in self.direction_sources:
            return cast(MetricSource, self.direction_sources[(a, b)])
        if (a, b) in self.estimated:
            return "offline_estimate"
        return cast(MetricSource, self.remote_source if self.source == "mixed" else self.source)

    @property
    def stop_nodes(self) -> list[int]:
        return list(range(self.offset, self.end))

    def search_matrices(self) -> tuple[np.ndarray, np.ndarray]:
        """The matrices for an order search, which wants them finite: the cells no leg can use (into the start,
        out of the end) may be unasked (inf, core.geo.composite) and are never read by a path order, so 0 stands
        in for them here only."""
        used = np.zeros(self.dist.shape, dtype=bool)
        used[leg_cells(start=self.start, offset=self.offset, end=self.end)] = True
        return np.where(used, self.dist, 0.0), np.where(used, self.dur, 0.0)

    @property
    def start_id(self) -> str | None:
        """The start's id (origin or live_origin), None when the start is unknown."""
        return self.ids[self.start] if self.start is not None else None


@dataclass
class OrderPool:
    """Stage 3: the candidate orders with their totals (one per sequence of places) and how they were found."""

    scored: list[Scored]
    optimizer: OptimizerInfo


@dataclass
class RankedCandidates:
    """Stage 4: the candidates shown, best first (``best_index`` 0), and the order search's account of itself."""

    candidates: list[CandidateRoute]
    best_order: tuple[int, ...]
    optimizer: OptimizerInfo
    best_index: int = 0

    @property
    def best(self) -> CandidateRoute:
        return self.candidates[self.best_index]


@dataclass
class RouteGeometry:
    """Stage 5: the drawn path of each leg of the best route ([[lon, lat], ...]) and where it came from."""

    legs: list[list[list[float]]]
    source: str
    notices: list[Notice] = field(default_factory=list)
    #: per leg: the router's own (distance m, duration s, source), None where the leg failed
    figures: list[tuple[float, float, str] | None] = field(default_factory=list)


@dataclass
class RouteLinks:
    """Stage 6: the deep links of the best order (None when not asked for) and the warnings they need."""

    deep_links: DeepLinks | None
    notices: list[Notice] = field(default_factory=list)


def leg_cells(*, start: int | None, offset: int, end: int) -> tuple[np.ndarray, np.ndarray]:
    """The matrix cells a leg can use (row, column indices): from the start or a stop to a stop or the end."""
    rows = [*([start] if start is not None else []), *range(offset, end)]
    pairs = [(a, b) for a in rows for b in range(offset, end + 1) if a != b]
    return np.asarray([a for a, _ in pairs], dtype=int), np.asarray([b for _, b in pairs], dtype=int)
