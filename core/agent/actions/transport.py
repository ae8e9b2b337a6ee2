"""Transport actions: transport.travel_time (fast path), transport.build_time_matrix,
transport.apply_robustness_policy (slow path, wrapping core.itinerary.travel), and weather.lookup.

weather.lookup asks the provider for weather only if it offers it (``provider.weather``); the
offline provider does not, and then the answer says so: no forecast is ever made up.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, Field

from core.agent.actions.names import ActionName
from core.agent.actions.places import resolve_name
from core.agent.actions.spec import ActionError, ActionSpec
from core.agent.state import AgentContext
from core.errors import ProviderError, RouteNotFound
from core.geo.base import LonLat
from core.geo.offline import OFFLINE_SOURCE, estimate_note
from core.models.agent import AgentState


class TravelTimeIn(BaseModel):
    origin: str = Field(min_length=1)
    destination: str = Field(min_length=1)
    mode: Literal["driving", "walking"] = "driving"


class TravelTimeOut(BaseModel):
    resolved: bool
    unresolved: list[str] = Field(default_factory=list)
    origin: dict[str, Any] | None = None
    destination: dict[str, Any] | None = None
    distance_m: float | None = None
    duration_s: float | None = None
    source: str | None = None
    note: str | None = None
    mode: str
    degraded: list[str] = Field(default_factory=list)  # the configured provider failed; these say how


class MatrixIn(BaseModel):
    mode: Literal["driving", "walking"] = "driving"


class MatrixOut(BaseModel):
    points: int
    source: str
    mode: str


class RobustIn(BaseModel):
    pacing: Literal["relaxed", "normal", "tight"] = "normal"


class RobustOut(BaseModel):
    factor: float
    buffer_min: int
    points: int


class WeatherIn(BaseModel):
    date: date
    city: str
    adcode: str | None = None  # what AMap's weather API takes; the city name is the fallback


class WeatherOut(BaseModel):
    available: bool
    source: str | None = None
    forecast: dict[str, Any] | None = None
    reason: str | None = None  # NO_WEATHER_SOURCE | NO_FORECAST_FOR_DATE | WEATHER_SERVICE_FAILED
    detail: str | None = None  # the service's own note (the evidence's; never put in an answer)
    failure: dict[str, str | float] = Field(
        default_factory=dict, description="WEATHER_SERVICE_FAILED: its cause code, the service, the seconds waited"
    )


def _travel_time(inp: TravelTimeIn, state: AgentState, ctx: AgentContext) -> TravelTimeOut:
    prov = ctx.provider
    a = resolve_name(prov, inp.origin, min_score=ctx.settings.fuzzy_min_score)
    b = resolve_name(prov, inp.destination, min_score=ctx.settings.fuzzy_min_score)
    unresolved = [n for n, r in ((inp.origin, a), (inp.destination, b)) if r is None]
    if a is None or b is None:  # the same test as unresolved's, which the type checker cannot read
        return TravelTimeOut(resolved=False, unresolved=unresolved, mode=inp.mode)
    try:
        leg = prov.route(LonLat(a.lon, a.lat), LonLat(b.lon, b.lat), mode=inp.mode)
    except RouteNotFound as exc:  # an answer, not a failure: no road joins the two places
        return TravelTimeOut(
            resolved=True,
            origin=a.model_dump(),
            destination=b.model_dump(),
            source=prov.router.name,
            note=exc.message,
            mode=inp.mode,
        )
    note = estimate_note(prov.region, inp.mode) if leg.source == OFFLINE_SOURCE else None
    drain = getattr(prov, "drain_warnings", None)
    return TravelTimeOut(
        degraded=list(drain()) if callable(drain) else [],
        resolved=True,
        origin=a.model_dump(),
        destination=b.model_dump(),
        distance_m=leg.distance_m,
        duration_s=leg.duration_s,
        source=leg.source,
        note=note,
        mode=inp.mode,
    )


#: what a provider logs when some of its answer came from the fallback (core/geo/resilience.py)
FALLBACK_CODES = frozenset({"PROVIDER_FALLBACK", "PROVIDER_NOT_REQUESTED", "PROVIDER_PAIRS_ESTIMATED"})


def _build_matrix(inp: MatrixIn, state: AgentState, ctx: AgentContext) -> MatrixOut:
    from core.itinerary import travel as transport

    problem = state.compute.problem
    if problem is None:
        raise ActionError("transport.build_time_matrix needs the prepared problem's points", field="points")
    log = getattr(ctx.provider, "warnings", None)
    seen = len(log.entries()) if log is not None else 0
    matrix = transport.build_time_matrix(problem.points, provider=ctx.provider, mode=inp.mode)
    state.compute.time_matrix_api = matrix
    # any figure of the matrix from a fallback (the remote failed, was never asked, or left pairs to the estimate)
    if log is not None and any(e.code in FALLBACK_CODES for e in log.entries()[seen:]):
        state.observability.fallback_used = True
    return MatrixOut(points=len(matrix.keys), source=matrix.source, mode=matrix.mode)


def _robust(inp: RobustIn, state: AgentState, ctx: AgentContext) -> RobustOut:
    from core.itinerary import travel as transport

    api = state.compute.time_matrix_api
    policy = transport.robustness_policy_for(api.mode, inp.pacing, settings=ctx.settings)
    robust = transport.apply_robustness_policy(api, policy=policy)
    state.compute.time_matrix_robust = robust
    return RobustOut(factor=policy.factor, buffer_min=policy.buffer_min, points=len(robust.keys))


def _weather(inp: WeatherIn, state: AgentState, ctx: AgentContext) -> WeatherOut:
    if not ctx.provider.has_weather:
        return WeatherOut(available=False, reason="NO_WEATHER_SOURCE")
    try:
        data = ctx.provider.weather(inp.adcode or inp.city, day=inp.date)
    except ProviderError as exc:
        facts = exc.details if isinstance(exc.details, dict) else {}
        failure = {k: v for k, v in facts.items() if k in ("service", "timeout_s") and isinstance(v, str | int | float)}
        return WeatherOut(
            available=False,
            reason="WEATHER_SERVICE_FAILED",
            detail=exc.message,
            failure={**failure, "cause": exc.code},
        )
    if not data:
        return WeatherOut(available=False, reason="NO_FORECAST_FOR_DATE")
    forecast = data.model_dump(mode="json", exclude_none=True)
    return WeatherOut(available=True, source=data.source, forecast=forecast)


def actions() -> list[ActionSpec]:
    return [
        ActionSpec(
            name=ActionName.TRANSPORT_TRAVEL_TIME,
            description="Travel time and distance between two named places",
            kind="internal",
            cost="low",
            side_effect="none",
            preconditions=(),
            idempotent=True,
            cacheable=True,
            input_model=TravelTimeIn,
            output_model=TravelTimeOut,
            fn=_travel_time,
        ),
        ActionSpec(
            name=ActionName.TRANSPORT_BUILD_TIME_MATRIX,
            description="The provider's travel matrix for the trip's points",
            kind="internal",
            cost="med",
            side_effect="none",
            preconditions=("compute.problem",),
            idempotent=True,
            cacheable=False,
            input_model=MatrixIn,
            output_model=MatrixOut,
            fn=_build_matrix,
        ),
        ActionSpec(
            name=ActionName.TRANSPORT_APPLY_ROBUSTNESS_POLICY,
            description="Robust minutes = nominal x factor + buffer (never raw API time)",
            kind="internal",
            cost="low",
            side_effect="none",
            preconditions=("compute.time_matrix_api",),
            idempotent=True,
            cacheable=False,
            input_model=RobustIn,
            output_model=RobustOut,
            fn=_robust,
        ),
        ActionSpec(
            name=ActionName.WEATHER_LOOKUP,
            description="Weather for a date from the provider, if it has a weather source",
            kind="external",
            cost="low",
            side_effect="calls_api",
            preconditions=(),
            idempotent=True,
            cacheable=True,
            input_model=WeatherIn,
            output_model=WeatherOut,
            fn=_weather,
        ),
    ]
