"""What a plan asks of its providers before it starts: the places geocoded ahead in the geocoder's batches, and the
time the plan may wait on providers, sized from the calls it needs at a paced service's rate (issue 20 §1)."""

from __future__ import annotations

from core.config import Settings
from core.geo.composite import MapServices
from core.models.route import RawStop, RoutePlanRequest
from core.route.directions import directions_wanted


def _raw_places(request: RoutePlanRequest) -> list[RawStop]:
    origin = request.origin_stop()
    return [*([origin] if origin is not None else []), *request.stops, request.destination_stop()]


def geocode_ahead(request: RoutePlanRequest, *, provider: MapServices) -> int:
    """Geocode every place's first query (its address, else its name: what the resolver asks first) in the
    geocoder's batches, so the resolver finds them in the cache (AMap: 10 places a call instead of one each).
    Places already cached are not asked again. Returns the calls made."""
    default_city = provider.region.city
    queries = [
        (q, raw.city or default_city)
        for raw in _raw_places(request)
        if not raw.poi_id and (q := next((x for x in (raw.address, raw.name) if x), None))
    ]
    return provider.geocode_many(queries)


def plan_budget_s(request: RoutePlanRequest, *, provider: MapServices, settings: Settings) -> float:
    """The plan's time for providers: ``provider_budget_s`` for waiting on answers, plus, for a paced service
    (AMap at ``amap_qps``), the calls the plan needs at that rate: batches of geocodes, one distance call per
    point a leg can end at (AMap answers one destination a call) and one direction call per leg. Pacing itself is excluded from
    the budget as it happens (``CallScope.exclude_from_budget``); this keeps the answers' own time in scale with
    the plan."""
    calls = needed_calls(request, directions_top=directions_top(request, provider=provider, settings=settings))
    if poi_ids_wanted(request, provider=provider):  # a text search and a detail a place (planner.poi_ids_stage)
        calls += 2 * len(_raw_places(request))
    return provider.budget_for(calls, answers_s=settings.provider_budget_s)


def makes_personal_maps(provider: MapServices) -> bool:
    """Whether the geocoder makes AMap personal maps (AMap through MCP)."""
    return hasattr(getattr(provider.geocoder, "inner", provider.geocoder), "personal_map_link")


def poi_ids_wanted(request: RoutePlanRequest, *, provider: MapServices) -> bool:
    """Whether the plan looks up its points' AMap POI ids: its links may be a personal map, which needs them, and
    the geocoder makes one."""
    return request.need_deep_link and request.deep_link_mode != "route_plan" and makes_personal_maps(provider)


def directions_top(request: RoutePlanRequest, *, provider: MapServices, settings: Settings) -> int:
    """How many orders the plan re-measures on directions at first (core/route/directions.py); 1: the best's legs."""
    return settings.direction_recheck_top if directions_wanted(request, provider=provider) else 1


def needed_calls(request: RoutePlanRequest, *, batch: int = 10, directions_top: int = 1) -> int:
    """Remote calls a cold plan of ``request`` needs from a provider like AMap (an upper bound without searches):
    geocode batches, one distance call per point a leg can end at (every point but the start: AMap answers one
    destination a call), and a direction call per leg of each order measured on directions (the best only, or at
    most the top ``directions_top``, which share most of their legs)."""
    n = len(_raw_places(request)) + (1 if request.origin_mode == "current_location" else 0)
    return -(-n // batch) + (n - 1) + directions_top * (n - 1)
