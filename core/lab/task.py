"""One lab task: a pure function of (request, task cell, pack) -> result rows (docs/ARCHITECTURE.md, "Strategy lab").

A route task resolves the request and asks for one matrix with the route planner's own stages
(core/route/planner.py), then, on that same matrix, runs every optimiser of the grid and ranks each optimiser's
orders by every strategy of the grid: one row per strategy × optimiser. A trip task runs the itinerary pipeline
(strategies and optimisers do not apply: one row). Any failure becomes rows with its code and message: a task
never loses a row.
"""

from __future__ import annotations

import json
import platform
import time
from functools import lru_cache
from importlib import metadata
from typing import TYPE_CHECKING, Any

import core
from core.config import Settings
from core.errors import OmniError
from core.geo.composite import MapServices
from core.geo.pool import ProviderPool
from core.lab.solvers import (
    OBJECTIVES,
    OptimiserRun,
    Solve,
    failed,
    order_cost,
    run_nearest_neighbour,
    run_ortools,
    run_valhalla,
)
from core.models.lab import (
    STRATEGY_OBJECTIVE,
    TRIP_OPTIMISER,
    LabGrid,
    OptStatus,
    ResultRow,
    RouteBatchItem,
    TaskCell,
    TripBatchItem,
    size_bucket,
)
from core.models.route import RouteStrategy
from core.optimizer.ils import REPRODUCIBLE_STOPS
from core.route.planner import candidates_stage, geometry_stage, matrix_stage, resolve_stage
from core.route.stage_types import OrderPool, ResolvedTrip, TripMatrix
from core.route.strategies import Scored, best_of

if TYPE_CHECKING:
    from core.geo.valhalla import ValhallaRouter

#: settings that shape a route's figures: kept with every row so a result can be reproduced
FIGURE_SETTINGS = (
    "tie_tolerance",
    "balanced_time_slack",
    "exact_limit",
    "solver_time_limit_s",
    "snap_cutoff_m",
    "snap_ground_level",
    "provider_budget_s",
)
_STATUS_RANK: dict[OptStatus, int] = {"optimal": 0, "heuristic": 1, "feasible": 1, "not_applicable": 2, "error": 3}


def _version(*dists: str) -> str:
    for dist in dists:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return "absent"


@lru_cache(maxsize=1)
def versions() -> dict[str, str]:
    """The versions that produce the figures (recorded in every row)."""
    return {
        "package_version": core.__version__,
        "ortools_version": _version("ortools"),
        "pyvalhalla_version": _version("pyvalhalla-weekly", "pyvalhalla"),
        "python_version": platform.python_version(),
    }


def task_settings(settings: Settings, grid: LabGrid) -> Settings:
    return settings.model_copy(update={"solver_seed": grid.seed})


def run_task(
    item: RouteBatchItem | TripBatchItem,
    *,
    index: int,
    cell: TaskCell,
    grid: LabGrid,
    settings: Settings,
    providers: ProviderPool,
) -> list[dict[str, Any]]:
    """The rows of one request on one task cell (every strategy × optimiser of the grid), on a view of the worker's
    provider for the cell (a pack loads once per worker; tasks keep their own warnings and counts)."""
    settings = task_settings(settings, grid)
    ctx = _Context.of(item, index=index, cell=cell, grid=grid, settings=settings)
    try:
        key = (cell.provider, item.region, settings.model_dump_json())
        provider = providers.view(cell.provider, item.region, settings, key=key)
        ctx.pack_data_date = provider.region.data_date
        if isinstance(item, TripBatchItem):
            return _trip_rows(ctx, item, provider)
        return _route_rows(ctx, item, provider)
    except OmniError as exc:
        return ctx.error_rows(exc.code, exc.message)
    except Exception as exc:  # a bug must not lose the request: its rows say what happened
        return ctx.error_rows("INTERNAL_ERROR", f"{type(exc).__name__}: {exc}")


class _Context:
    """What every row of a task shares, and the error rows of a task that failed."""

    def __init__(
        self,
        *,
        request_id: str,
        kind: str,
        region: str,
        batch_seed: int | None,
        n_stops: int,
        index: int,
        cell: TaskCell,
        grid: LabGrid,
        settings: Settings,
    ) -> None:
        self.request_id, self.kind, self.region, self.batch_seed = request_id, kind, region, batch_seed
        self.n_stops, self.index, self.cell, self.grid, self.settings = n_stops, index, cell, grid, settings
        self.pack_data_date: str | None = None
        self.plan_time_s: float | None = None

    @classmethod
    def of(
        cls, item: RouteBatchItem | TripBatchItem, *, index: int, cell: TaskCell, grid: LabGrid, settings: Settings
    ) -> _Context:
        n_stops = len(item.request.stops) if isinstance(item, RouteBatchItem) else len(item.request.places)
        return cls(
            request_id=item.id,
            kind=item.kind,
            region=item.region,
            batch_seed=item.seed,
            n_stops=n_stops,
            index=index,
            cell=cell,
            grid=grid,
            settings=settings,
        )

    def cells(self) -> list[tuple[str | None, str]]:
        if self.kind == "trip":
            return [(None, TRIP_OPTIMISER)]
        return [(s, o) for s in self.grid.strategies for o in self.grid.optimisers]

    def row(self, strategy: str | None, optimiser: str, **fields: Any) -> dict[str, Any]:
        v = versions()
        chosen = {k: getattr(self.settings, k) for k in FIGURE_SETTINGS}
        base: dict[str, Any] = {
            "request_id": self.request_id,
            "request_index": self.index,
            "request_kind": self.kind,
            "region": self.region,
            "provider": self.cell.provider,
            "mode": self.cell.mode,
            "strategy": strategy,
            "optimiser": optimiser,
            "n_stops": self.n_stops,
            "size_bucket": size_bucket(self.n_stops),
            "plan_time_s": self.plan_time_s,
            "seed": self.grid.seed,
            "batch_seed": self.batch_seed,
            "package_version": v["package_version"],
            "ortools_version": v["ortools_version"],
            "pyvalhalla_version": v["pyvalhalla_version"],
            "pack_data_date": self.pack_data_date,
            "settings_json": json.dumps(chosen, sort_keys=True),
        }
        return ResultRow.model_validate({**base, **fields}).model_dump()

    def error_rows(self, code: str, message: str) -> list[dict[str, Any]]:
        return [
            self.row(s, o, status="error", error_code=code, error_message=message, opt_status="error")
            for s, o in self.cells()
        ]


def invalid_rows(
    *,
    request_id: str,
    region: str,
    index: int,
    code: str,
    message: str,
    cell: TaskCell,
    grid: LabGrid,
    settings: Settings,
) -> list[dict[str, Any]]:
    """The rows of a batch line that is not a valid request (every strategy × optimiser of the cell)."""
    ctx = _Context(
        request_id=request_id,
        kind="route",
        region=region,
        batch_seed=None,
        n_stops=0,
        index=index,
        cell=cell,
        grid=grid,
        settings=task_settings(settings, grid),
    )
    return ctx.error_rows(code, message)


# ---- route requests ---------------------------------------------------------------------------------------
def _run_optimisers(
    ctx: _Context, trip: ResolvedTrip, net: TripMatrix, max_permutations: int, provider: MapServices
) -> tuple[dict[str, OptimiserRun], OrderPool | None]:
    """Each optimiser of the grid on the trip's matrix (the planner's own search keeps its pool); one that fails
    has a failed run, the others stand."""
    stops, start, end = net.stop_nodes, net.start, net.end
    runs: dict[str, OptimiserRun] = {}
    project_pool: OrderPool | None = None
    for name in ctx.grid.optimisers:
        try:
            if name == "project":
                runs[name], project_pool = _project(trip, net, max_permutations, ctx.settings)
            elif name == "ortools_gls":
                runs[name] = run_ortools(
                    *net.search_matrices(), stops, start=start, end=end, time_limit_s=ctx.grid.ortools_time_limit_s
                )
            elif name == "valhalla":
                runs[name] = run_valhalla(
                    _valhalla_router(provider), net.points, stops, start=start, end=end, mode=ctx.cell.mode
                )
            else:
                runs[name] = run_nearest_neighbour(*net.search_matrices(), stops, start=start, end=end)
        except OmniError as exc:
            runs[name] = failed(name, exc.code, exc.message)
        except Exception as exc:  # one optimiser's bug: its rows say so, the others stand
            runs[name] = failed(name, "INTERNAL_ERROR", f"{type(exc).__name__}: {exc}")
    return runs, project_pool


def _objective_values(
    runs: dict[str, OptimiserRun], project_pool: OrderPool | None, net: TripMatrix
) -> tuple[dict[str, dict[str, float | None]], dict[str, float | None]]:
    """Each run's cost per objective on the trip's matrix (the planner: its best over its whole pool), and the best
    of all runs per objective."""
    mats = {"distance_m": net.dist, "duration_s": net.dur}
    values: dict[str, dict[str, float | None]] = {
        name: {
            o: order_cost(mats[o], s.order, start=net.start, end=net.end) if s.order is not None else None
            for o, s in run.solves.items()
        }
        for name, run in runs.items()
    }
    if project_pool is not None:  # the planner's best over its whole pool (what it can choose from)
        values["project"] = {
            "distance_m": min(sc.distance_m for sc in project_pool.scored),
            "duration_s": min(sc.duration_s for sc in project_pool.scored),
        }
    best: dict[str, float | None] = {}
    for objective in OBJECTIVES:
        known = [v for per in values.values() if (v := per[objective]) is not None]
        best[objective] = min(known) if known else None
    return values, best


def _route_rows(ctx: _Context, item: RouteBatchItem, provider: MapServices) -> list[dict[str, Any]]:
    request = item.request.model_copy(update={"transport_mode": ctx.cell.mode})
    settings = ctx.settings
    t0 = time.perf_counter()
    with provider.budget(settings.provider_budget_s):
        trip = resolve_stage(request, provider=provider, settings=settings)
        net = matrix_stage(trip, provider=provider, mode=ctx.cell.mode)
    ctx.plan_time_s = time.perf_counter() - t0
    warnings = [*trip.warnings, *_provenance_warnings(item, trip), *net.warnings]
    shared = {
        "metric_source": net.source,
        "estimated_pairs": len(net.estimated),
        "warnings": json.dumps(list(dict.fromkeys(warnings)), ensure_ascii=False),
        "n_warnings": len(dict.fromkeys(warnings)),
    }
    runs, project_pool = _run_optimisers(ctx, trip, net, request.max_permutations, provider)
    values, best = _objective_values(runs, project_pool, net)
    exact = project_pool is not None and project_pool.optimizer.exact

    rows: list[dict[str, Any]] = []
    for strategy in ctx.grid.strategies:
        objective = STRATEGY_OBJECTIVE[strategy]
        for name in ctx.grid.optimisers:
            run = runs[name]
            opt = _optimiser_fields(run, objective, values[name], best, exact)
            figures: dict[str, Any] | None
            if project_pool is not None and name == "project":
                figures = _project_figures(ctx, project_pool, net, trip, strategy, provider)
            else:
                figures = _figures(run, net, trip, strategy, settings)
            if figures is None:
                solve = run.solves["distance_m"]
                status = "not_applicable" if solve.status == "not_applicable" else "error"
                rows.append(
                    ctx.row(
                        strategy,
                        name,
                        status=status,
                        error_code=solve.error_code,
                        error_message=solve.error_message,
                        **shared,
                        **opt,
                    )
                )
                continue
            rows.append(ctx.row(strategy, name, status="ok", **shared, **figures, **opt))
    return rows


def _project(
    trip: ResolvedTrip, net: TripMatrix, max_permutations: int, settings: Settings
) -> tuple[OptimiserRun, OrderPool]:
    """The planner's order search, exactly as plan_route runs it (both objectives and the alternatives)."""
    t0 = time.perf_counter()
    pool = candidates_stage(trip, net, max_permutations=max_permutations, settings=settings)
    elapsed = time.perf_counter() - t0
    status: OptStatus = "optimal" if pool.optimizer.exact else "heuristic"
    solves = {
        "distance_m": Solve(min(pool.scored, key=lambda s: s.distance_m).order, status, pool.optimizer.method),
        "duration_s": Solve(min(pool.scored, key=lambda s: s.duration_s).order, status, pool.optimizer.method),
    }
    info = pool.optimizer
    stop = "exact" if info.exact else info.search_stop
    run = OptimiserRun(
        name="project",
        solves=solves,
        time_s=elapsed,
        time_limit_s=info.time_limit_s,
        reproducible=info.exact or stop in REPRODUCIBLE_STOPS,
        stop=stop,
    )
    return run, pool


def _optimiser_fields(
    run: OptimiserRun,
    objective: str,
    values: dict[str, float | None],
    best: dict[str, float | None],
    exact: bool,
) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "objective": objective,
        "opt_time_s": run.time_s,
        "opt_time_limit_s": run.time_limit_s,
        "reproducible": run.reproducible,
        "search_stop": run.stop,
    }
    if objective == "pareto":  # balanced: no single objective; the worse of the two solves speaks for it
        worst = max((s for s in run.solves.values()), key=lambda s: _STATUS_RANK[s.status])
        return {**fields, "opt_status": worst.status, "opt_detail": worst.detail}
    solve = run.solves[objective]
    value, known = values.get(objective), best[objective]
    gap = None
    if value is not None and known is not None:
        gap = 0.0 if known <= 0 else max(0.0, value / known - 1.0)
    return {
        **fields,
        "opt_status": solve.status,
        "opt_detail": solve.detail,
        "objective_value": value,
        "best_known": known,
        "best_known_exact": exact if known is not None else None,
        "gap": gap,
    }


def _legs_total(net: TripMatrix, order: tuple[int, ...]) -> tuple[int, int]:
    nodes = [*([net.start] if net.start is not None else []), *order, net.end]
    pairs = list(zip(nodes, nodes[1:]))
    return (
        sum(int(round(float(net.dist[a, b]))) for a, b in pairs),
        sum(int(round(float(net.dur[a, b]))) for a, b in pairs),
    )


def _order_fields(net: TripMatrix, trip: ResolvedTrip, order: tuple[int, ...]) -> dict[str, Any]:
    stop_order = [n - net.offset for n in order]
    return {
        "stop_order": json.dumps(stop_order),
        "place_order": json.dumps([trip.stops[i].poi_id for i in stop_order], ensure_ascii=False),
    }


def _figures(
    run: OptimiserRun, net: TripMatrix, trip: ResolvedTrip, strategy: RouteStrategy, settings: Settings
) -> dict[str, Any] | None:
    """The strategy's pick among this optimiser's orders (one per objective), by the planner's own ranking."""
    orders = list(dict.fromkeys(s.order for s in run.solves.values() if s.order is not None))
    if not orders:
        return None
    scored = []
    for order in orders:
        d = order_cost(net.dist, order, start=net.start, end=net.end)
        t = order_cost(net.dur, order, start=net.start, end=net.end)
        scored.append(Scored(order=order, distance_m=d, duration_s=t))
    pick = scored[best_of(scored, strategy, tolerance=settings.tie_tolerance, time_slack=settings.balanced_time_slack)]
    distance, duration = _legs_total(net, pick.order)
    return {"distance_m": distance, "duration_s": duration, **_order_fields(net, trip, pick.order)}


def _project_figures(
    ctx: _Context, pool: OrderPool, net: TripMatrix, trip: ResolvedTrip, strategy: RouteStrategy, provider: MapServices
) -> dict[str, Any]:
    """The route plan_route would return for ``strategy``: the planner's pick among its pool (the first of
    rank_stage's ranking, without ranking every other order), its totals the sums of its rounded legs."""
    settings = ctx.settings
    pick = pool.scored[
        best_of(
            pool.scored,
            strategy,
            tolerance=settings.tie_tolerance,
            time_slack=settings.balanced_time_slack,
        )
    ]
    distance, duration = _legs_total(net, pick.order)
    fields: dict[str, Any] = {"distance_m": distance, "duration_s": duration, **_order_fields(net, trip, pick.order)}
    if ctx.grid.with_geometry:
        geometry = geometry_stage(net, pick.order, provider=provider, mode=ctx.cell.mode)
        fields["geometry"] = json.dumps([[[round(x, 6), round(y, 6)] for x, y in leg] for leg in geometry.legs])
    return fields


def _provenance_warnings(item: RouteBatchItem, trip: ResolvedTrip) -> list[str]:
    """The batch names its places by pack id: a request that resolved elsewhere says so."""
    if not item.place_ids:
        return []
    resolved = [*([trip.origin] if trip.origin is not None else []), *trip.stops]
    out = []
    for i, (want, got) in enumerate(zip(item.place_ids, resolved)):
        if got.poi_id != want:
            out.append(f"place {i} of the batch ({want}) resolved to {got.poi_id or got.resolved_name}")
    return out


def _valhalla_router(provider: MapServices) -> ValhallaRouter | None:
    """The Valhalla router under the provider's resilience wrapper, when it routes on a road network."""
    from core.geo.valhalla import ValhallaRouter

    router = getattr(provider.router, "inner", provider.router)
    return router if isinstance(router, ValhallaRouter) else None


# ---- trip requests ----------------------------------------------------------------------------------------
def _trip_rows(ctx: _Context, item: TripBatchItem, provider: MapServices) -> list[dict[str, Any]]:
    from core.itinerary.pipeline import plan_itinerary

    request = item.request.model_copy(update={"mode": ctx.cell.mode})
    t0 = time.perf_counter()
    result = plan_itinerary(request, provider=provider, settings=ctx.settings)
    ctx.plan_time_s = time.perf_counter() - t0
    order = [[e.key for e in day.entries if e.kind == "visit" and e.key] for day in result.days]
    return [
        ctx.row(
            None,
            TRIP_OPTIMISER,
            status="ok",
            distance_m=int(round(result.totals.distance_m)),
            duration_s=int(round(result.totals.travel_nominal_min * 60)),
            place_order=json.dumps(order, ensure_ascii=False),
            metric_source=result.matrix_source,
            warnings=json.dumps(result.warnings, ensure_ascii=False),
            n_warnings=len(result.warnings),
            objective="pareto",
            opt_status="feasible",
            opt_detail=f"{result.variant}:{result.status}",
            opt_time_s=result.seconds,
        )
    ]
