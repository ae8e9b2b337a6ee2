"""Stage 6 on a map service that is paid by the destination (AMap's distance service: one destination and up to 100
origins a call, paced at the key's QPS): the plans are screened on the pack's estimates, then only their legs are
measured, and the plans are checked again on those legs (issue 33).

1. compose on the estimate (the pack's straight-line figures, ``offline_estimate``): no call;
2. measure the plans' legs: a leg goes in the mode the estimate gives it (walked when the estimated walk is within
   the party's limit), asked per destination with every point of the plans as an origin in the same call (those
   cells cost no call more and let a repair compose on measured figures); a leg measured on foot past the limit is
   then asked by car, as it will be driven;
3. check each plan on the measured table: re-timed (``build_steps``), its legs between stops within the half day's
   travel budget (travel_budget.py). A plan that breaks is dropped, with the leg that broke it;
4. when one was dropped, compose once more on the measured table (measured where known, estimated elsewhere),
   measure the new plans' legs and check them: what still breaks is dropped.

Only what is shown is measured: a leg a plan does not take is never asked, nor the walk of a leg the estimate
already drives. A leg the service could not measure keeps its estimate and says so (``offline_estimate``). The
service failing, or its breaker open, stops the asking for this plan: the rest stays estimated, with the warnings
of travel.py, so the planner's level 2 asks the person as before. The answers are cached by ``MapServices`` (whole
columns and cell by cell), so the same plan again asks nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from core.geo.base import LonLat, TravelMatrix, TravelMode
from core.geo.composite import MapServices
from core.halfday.breaker import Breaker, BreakerOpen
from core.halfday.travel import MAP_FAILURES, TravelTable
from core.models.halfday.facts import DroppedPlan, DropReason
from core.models.halfday.plans import Candidate

__all__ = ["LegMeasure", "Pair", "dropped_plan", "plan_legs"]

Pair = tuple[int, int]
MODES: tuple[TravelMode, ...] = ("walking", "driving")
#: the walk of a leg, then its drive when the walk is past the limit: two rounds; one more for safety
MAX_ROUNDS = 3


def plan_legs(orders: Iterable[Sequence[int]], origin: int | None) -> list[Pair]:
    """The legs of the plans (``orders``: the points each visits, in order), from the start when there is one, each
    once, in the order the plans take them."""
    legs: dict[Pair, None] = {}
    for order in orders:
        pos = origin
        for i in order:
            if pos is not None and pos != i:
                legs[(pos, i)] = None
            pos = i
    return list(legs)


@dataclass
class LegMeasure:
    """The legs a map service measured over the pack's estimate (``estimate``): the table the plans are checked on.

    ``cells[mode][(i, j)]``: (metres, seconds) as the service answered; every other pair keeps the estimate."""

    points: list[LonLat]
    estimate: TravelTable
    provider: MapServices
    breaker: Breaker
    cells: dict[TravelMode, dict[Pair, tuple[float, float]]] = field(
        default_factory=lambda: {mode: {} for mode in MODES}
    )
    warnings: set[str] = field(default_factory=set)
    asked: dict[TravelMode, set[Pair]] = field(default_factory=lambda: {mode: set() for mode in MODES})
    stopped: bool = False  # the service failed or its breaker is open: nothing more is asked in this plan
    #: the most columns this plan asks for (None: no limit); a column the cache answers counts too, so the same
    #: plan again picks the same columns and asks nothing
    max_asks: int | None = None
    chosen: int = 0
    left_estimated: bool = False  # some leg stayed an estimate because the asks ran out

    # ---- the table ------------------------------------------------------------------------------------------
    def table(self) -> TravelTable:
        """The estimate with the measured cells in it; every other pair is listed as estimated (its leg says
        ``offline_estimate``)."""
        walk, drive = (self._matrix(m, self.cells[m.mode]) for m in (self.estimate.walk, self.estimate.drive))
        warnings = sorted(self.warnings | ({"TRAVEL_FROM_LOCAL_ESTIMATE"} if self.warnings else set()))
        return TravelTable(
            walk=walk,
            drive=drive,
            walk_limit_min=self.estimate.walk_limit_min,
            factor=self.estimate.factor,
            buffer_min=self.estimate.buffer_min,
            warnings=warnings,
            router_name=self.router_name,
        )

    @property
    def router_name(self) -> str:
        return str(getattr(self.provider.router, "name", self.provider.name))

    def _matrix(self, m: TravelMatrix, cells: dict[Pair, tuple[float, float]]) -> TravelMatrix:
        if not cells:
            return m
        out = m.model_copy(deep=True)
        n = len(out.distances_m)
        for (i, j), (metres, seconds) in cells.items():
            out.distances_m[i][j] = metres
            out.durations_s[i][j] = seconds
        out.estimated_pairs = [(i, j) for i in range(n) for j in range(n) if i != j and (i, j) not in cells]
        out.source = "mixed"
        return out

    def measured(self, legs: Iterable[Pair]) -> int:
        """How many of ``legs`` are measured in the mode they are travelled in."""
        table = self.table()
        return sum(1 for i, j in legs if i != j and (i, j) in self.cells.get(_mode(table.leg(i, j).mode), {}))

    # ---- the asking -----------------------------------------------------------------------------------------
    def measure(self, legs: Sequence[Pair]) -> None:
        """Measure ``legs`` in the mode each is travelled in (see the module's docstring), per destination; with
        ``max_asks``, the columns that measure the most estimated minutes first (a long leg's estimate is the
        least sure)."""
        ends = {p for leg in legs for p in leg}
        for _round in range(MAX_ROUNDS):
            wanted = self._wanted(legs)
            if not wanted or self.stopped:
                return
            for mode, j, origins in self._by_weight(wanted):
                if self.stopped:
                    return
                if self.max_asks is not None and self.chosen >= self.max_asks:
                    self.left_estimated = True
                    return
                self.chosen += 1
                self._ask(mode, j, self._origins(mode, j, origins, ends))

    def _by_weight(self, wanted: dict[TravelMode, dict[int, set[int]]]) -> list[tuple[TravelMode, int, set[int]]]:
        columns = [(mode, j, origins) for mode, by_j in wanted.items() for j, origins in by_j.items()]
        weight = {(m, j): sum(self.estimate.leg(i, j).minutes for i in o) for m, j, o in columns}
        return sorted(columns, key=lambda c: (-weight[(c[0], c[1])], MODES.index(c[0]), c[1]))

    def _wanted(self, legs: Sequence[Pair]) -> dict[TravelMode, dict[int, set[int]]]:
        """The legs still to ask, by mode and destination: a walk the estimate allows and nobody measured yet; a
        drive of a leg not walked (by the measured walk, else the estimate's)."""
        table = self.table()
        wanted: dict[TravelMode, dict[int, set[int]]] = {}
        for i, j in legs:
            if i == j or self.points[i] == self.points[j]:
                continue  # two candidates at one spot: no leg to measure
            mode = _mode(table.leg(i, j).mode)
            if (i, j) in self.cells[mode] or (i, j) in self.asked[mode]:
                continue
            wanted.setdefault(mode, {}).setdefault(j, set()).add(i)
        return wanted

    def _origins(self, mode: TravelMode, j: int, needed: set[int], ends: set[int]) -> list[int]:
        """Who else goes in the call to ``j``: every point of the plans (on foot only those the estimate lets walk
        there: farther ones are driven, and AMap measures no walk past 5 km)."""
        extra = {i for i in ends if i != j and self.points[i] != self.points[j] and (i, j) not in self.cells[mode]}
        if mode == "walking":
            limit_s = self.estimate.walk_limit_min * 60.0
            extra = {i for i in extra if self.estimate.walk.durations_s[i][j] <= limit_s}
        return sorted(needed | extra)

    def _ask(self, mode: TravelMode, j: int, origins: list[int]) -> None:
        """One destination's column from ``origins``: one call (a cached column or cells: none)."""
        self.asked[mode].update((i, j) for i in origins)
        sub = [self.points[i] for i in origins] + [self.points[j]]
        last = len(sub) - 1
        try:
            with self.breaker.calling() as call, self.provider.watching() as watch:
                answer = self.provider.matrix(sub, mode=mode, destinations=[last])
                if watch.fallbacks:  # the service failed behind its own retries: a failure of the map service
                    call.failed("fallback")
        except BreakerOpen:
            self.warnings.add("TRAVEL_BREAKER_OPEN")
            self.stopped = True
            return
        except MAP_FAILURES:
            self.warnings.add("TRAVEL_SERVICE_FAILED")
            self.stopped = True
            return
        if call.failure is not None or answer.source not in (self.router_name, "mixed"):
            self.warnings.add("TRAVEL_SERVICE_FAILED")
            self.stopped = True
            return
        estimated = {(int(a), int(b)) for a, b in answer.estimated_pairs}
        for k, i in enumerate(origins):
            metres, seconds = answer.distances_m[k][last], answer.durations_s[k][last]
            if (k, last) not in estimated and k not in answer.off_network and math.isfinite(metres + seconds):
                self.cells[mode][(i, j)] = (float(metres), float(seconds))


def _mode(mode: str) -> TravelMode:
    return "walking" if mode == "walking" else "driving"


def dropped_plan(
    reason: DropReason, order: list[int], leg: Pair, *, cands: Sequence[Candidate], origin: int | None,
    estimated_minutes: int, measured_minutes: int, mode: str, source: str, cap_minutes: int | None = None,
) -> DroppedPlan:  # fmt: skip
    """The facts of a plan that broke: its stops (``order``: indexes of ``cands``) and the leg that broke it."""
    i, j = leg
    return DroppedPlan(
        reason=reason,
        place_ids=[cands[k].place_id for k in order],
        names_zh=[cands[k].name_zh for k in order],
        names_en=[cands[k].name_en for k in order],
        from_place_id=None if i == origin else cands[i].place_id,
        to_place_id=cands[j].place_id,
        mode=mode,
        source=source,
        estimated_minutes=estimated_minutes,
        measured_minutes=measured_minutes,
        cap_minutes=cap_minutes,
    )
