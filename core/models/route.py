"""Contracts of the multi-stop route planner (docs/ARCHITECTURE.md, "Route planner").

The specification's fields are kept as written; additions are optional and documented.
Coordinates inside core are WGS-84; ``crs`` on every point says so explicitly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StringConstraints,
    computed_field,
    field_validator,
    model_validator,
)

from core.errors import InputError
from core.models.common import CleanStr, PlaceAddress, PlaceName, echo, is_straight_line
from core.models.entrance import Entrance
from core.models.own_order import OwnOrderDifference, check_own_order

MAX_STOPS = 100  # hard contract bound; settings.max_stops may lower it (never below 50)

RouteStrategy = Literal["shortest_distance", "fastest_time", "balanced"]
TransportMode = Literal["driving", "walking", "cycling"]
STRATEGIES: tuple[RouteStrategy, ...] = ("shortest_distance", "fastest_time", "balanced")
LegMeasure = Literal["matrix", "directions"]
CandidateMeasure = Literal["matrix", "directions", "partly_directions"]
MetricSource = Literal["offline_estimate", "amap", "osrm", "valhalla", "road_network", "user_input", "mixed"]


#: a provider's POI id (sh-bund, hel-w419479428, B00155L3T8): letters, digits and - _ . : only
PoiId = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")
]


def _blank(value: str | None) -> bool:
    return value is None or not str(value).strip()


def format_location(lon: float, lat: float) -> str:
    """``"lon,lat"`` with 6 decimals, longitude first (AMap's order)."""
    return f"{lon:.6f},{lat:.6f}"


class RawStop(BaseModel):
    model_config = ConfigDict(str_strip_whitespace=True)

    name: PlaceName | None = None
    address: PlaceAddress
    city: CleanStr | None = Field(default=None, max_length=60)
    contact: CleanStr | None = Field(default=None, max_length=120)
    # Addition (issue 12): the place the user chose among an ambiguity's candidates; resolved by its POI id.
    poi_id: PoiId | None = None

    @model_validator(mode="before")
    @classmethod
    def _address_from_name(cls, data: Any) -> Any:
        # A stop given as a plain string ("外滩", e.g. "stops": ["外滩", "豫园"]) is its address.
        if isinstance(data, str):
            data = {"address": data}
        # A stop typed as just a name ("外滩") is still a valid place query.
        if isinstance(data, dict) and _blank(data.get("address")) and not _blank(data.get("name")):
            data = {**data, "address": data["name"]}
        return data

    @field_validator("address")
    @classmethod
    def _address_not_blank(cls, v: str) -> str:
        if _blank(v):
            raise ValueError("each stop needs an address or a name")
        return v

    def label(self) -> str:
        return self.name or self.address


class RoutePlanRequest(BaseModel):
    model_config = ConfigDict(str_strip_whitespace=True)

    task_name: CleanStr = Field(default="multi-destination-route-planning", max_length=120)
    origin_mode: Literal["fixed", "current_location"]
    origin_name: PlaceName | None = None
    origin_address: PlaceAddress | None = None
    origin_city: CleanStr | None = Field(default=None, max_length=60)
    # Addition: live coordinates for current_location (WGS-84), only when the user supplied them.
    origin_lon: float | None = Field(default=None, ge=-180, le=180, allow_inf_nan=False)
    origin_lat: float | None = Field(default=None, ge=-90, le=90, allow_inf_nan=False)
    destination_name: PlaceName | None = None
    destination_address: PlaceAddress | None = None
    destination_city: CleanStr | None = Field(default=None, max_length=60)
    # Additions (issue 12): the places chosen among an ambiguity's candidates (see RawStop.poi_id).
    origin_poi_id: PoiId | None = None
    destination_poi_id: PoiId | None = None
    stops: list[RawStop]
    route_strategy: RouteStrategy = "shortest_distance"
    transport_mode: TransportMode = "driving"
    need_deep_link: bool = True
    deep_link_mode: Literal["personal_map", "route_plan", "auto"] = "auto"
    need_html: bool = False
    max_permutations: int = Field(default=24, ge=1, le=40320)
    # Addition: the top candidates' legs re-measured one by one on the router's direction service (step 6 of the
    # route specification) before the final ranking, instead of read from the matrix the order search used.
    # None (issue 20 §3): where the router's matrix and directions are different services (AMap), else not.
    exact_legs: bool | None = None
    # Addition: round trip back to the fixed origin (destination defaults to the origin).
    round_trip: bool = False
    # Additions (issue 32, X8): the person's own order, planned as given beside the best (core/route/own_order.py):
    # ``own_order`` the stop indices in visiting order, or ``keep_order`` the stops in the order listed.
    keep_order: bool = False
    own_order: list[int] | None = Field(default=None, max_length=MAX_STOPS)

    @model_validator(mode="before")
    @classmethod
    def _round_trip_destination(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("round_trip") and _blank(data.get("destination_address")):
            data = {
                **data,
                "destination_address": data.get("origin_address"),
                "destination_name": data.get("destination_name") or data.get("origin_name"),
                "destination_city": data.get("destination_city") or data.get("origin_city"),
                "destination_poi_id": data.get("destination_poi_id") or data.get("origin_poi_id"),
            }
        return data

    @model_validator(mode="after")
    def _input_rules(self) -> RoutePlanRequest:
        if self.origin_mode == "fixed":
            if _blank(self.origin_address) and _blank(self.origin_name):
                raise InputError("a fixed origin needs an address (origin_address)", field="origin_address")
            if _blank(self.origin_address):
                self.origin_address = self.origin_name
            if self.origin_lon is not None or self.origin_lat is not None:
                raise InputError(
                    "origin_lon/origin_lat are only for origin_mode=current_location; a fixed origin is resolved "
                    "from its address",
                    field="origin_lon",
                )
        else:
            if not _blank(self.origin_address) or not _blank(self.origin_name):
                raise InputError(
                    "origin_mode=current_location must not carry an origin address or name: the start is the "
                    "user's live position",
                    field="origin_address",
                )
            if (self.origin_lon is None) != (self.origin_lat is None):
                raise InputError("live coordinates need both origin_lon and origin_lat", field="origin_lat")
            if self.round_trip:
                raise InputError("a round trip needs a fixed origin", field="round_trip")
        if _blank(self.destination_address):
            if not _blank(self.destination_name):
                self.destination_address = self.destination_name
            else:
                raise InputError("the destination is required (destination_address)", field="destination_address")
        if not self.stops:
            raise InputError("add at least one stop", field="stops")
        if len(self.stops) > MAX_STOPS:
            raise InputError(
                f"too many stops: {len(self.stops)} given, at most {MAX_STOPS} are supported", field="stops"
            )
        dest_keys = {_norm(self.destination_address), _norm(self.destination_name)} - {""}
        for i, stop in enumerate(self.stops):
            if {_norm(stop.address), _norm(stop.name)} & dest_keys:
                what = "the start and end of this round trip" if self.round_trip else "the destination"
                raise InputError(
                    f"stop {i + 1} ({echo(stop.label())}) is {what}; the destination must not also be a stop",
                    field=f"stops.{i}",
                )
        check_own_order(self.own_order, len(self.stops))
        return self

    def wanted_own_order(self) -> list[int] | None:
        """The person's order to plan beside the best, as stop indices (None: none asked)."""
        if self.own_order is not None:
            return list(self.own_order)
        return list(range(len(self.stops))) if self.keep_order else None

    def destination_stop(self) -> RawStop:
        return RawStop(
            name=self.destination_name,
            address=self.destination_address or "",
            city=self.destination_city,
            poi_id=self.destination_poi_id,
        )

    def origin_stop(self) -> RawStop | None:
        if self.origin_mode != "fixed":
            return None
        return RawStop(
            name=self.origin_name, address=self.origin_address or "", city=self.origin_city, poi_id=self.origin_poi_id
        )


def _norm(value: str | None) -> str:
    return "".join(str(value or "").split()).casefold()


PointSource = Literal["geo", "text_search", "search_detail", "manual_fallback"]
PointRole = Literal["origin", "stop", "destination"]
#: the id of the user's live start (``RoutePlanResult.live_origin``; a start without coordinates has no point)
LIVE_ORIGIN = "live_origin"


def point_id(role: PointRole, index: int | None = None) -> str:
    """A point of a result by id: ``origin``, ``destination`` or ``stops.N`` (N the stop's index in the request's
    stop list, as in ``PlaceChoice.field`` and an input error's field); notices and ``PointRef`` use it."""
    return f"stops.{index}" if role == "stop" else role


class ResolvedPoint(BaseModel):
    role: PointRole
    input_name: str | None = None
    input_address: str
    resolved_name: str
    city: str | None = None
    district: str | None = None
    location: str
    lon: float
    lat: float
    poi_id: str | None = None
    source: PointSource
    confidence_note: str | None = None
    # Additions
    crs: Literal["WGS84"] = "WGS84"
    provider: str | None = None
    match_score: float | None = Field(default=None, description="0-100 similarity of the chosen match, if fuzzy")
    index: int | None = Field(default=None, description="Position of a stop in the request's stop list")
    matched_on: str | None = Field(
        default=None,
        description="What of the place the text matched, when the map data says: name, name_en, alias, address, "
        "each with _form (written another way) or _part (a part of it) when not exactly",
    )

    @property
    def label(self) -> str:
        return self.input_name or self.resolved_name

    @property
    def id(self) -> str:
        """Its id in the result (``point_id``)."""
        return point_id(self.role, self.index)

    @property
    def place_key(self) -> str:
        """The place the point stands for: its POI id, else its coordinates to 6 decimals (how orders are compared,
        core/route/compare.py)."""
        return f"poi:{self.poi_id}" if self.poi_id else f"at:{self.lon:.6f},{self.lat:.6f}"


#: ``name_address``: the stop's name and its address are two places (issue 31 §2), the name's first
AmbiguityReason = Literal["close_scores", "near_miss", "several_exact", "district", "parts", "name_address"]


class PlaceCandidate(BaseModel):
    """One place an ambiguous input may mean (the "Did you mean…" choice); nothing here is invented."""

    poi_id: str | None = None
    name: str
    name_en: str | None = None
    district: str | None = None
    address: str | None = None
    category: str | None = None
    lon: float
    lat: float
    location: str
    score: float | None = Field(default=None, description="0-100 similarity to the input, when scored")
    distance_to_first_m: int = Field(description="Straight-line metres to the first candidate (0 for it)")
    source: str


class PlaceChoice(BaseModel):
    """The candidates for one input field that could not be resolved to a single place."""

    field: str = Field(description="The input field: origin_address, destination_address, stops.N")
    input: str
    reason: AmbiguityReason
    spread_m: int = Field(description="The largest straight-line distance between two candidates")
    options: list[PlaceCandidate]


class RouteLeg(BaseModel):
    from_label: str
    to_label: str
    origin_location: str
    destination_location: str
    distance_m: int
    duration_s: int
    # Addition: where the figures came from (offline_estimate, amap, ...).
    source: MetricSource = "offline_estimate"
    # Addition (issue 20 §3): read from the distance matrix, or re-measured on the direction service.
    measured_by: LegMeasure = "matrix"
    # Addition (issue 20 §5): the place's door (an OSM node) the figures were measured from / to, walking and
    # cycling; None: from the point itself (origin_location / destination_location).
    origin_entrance: Entrance | None = None
    destination_entrance: Entrance | None = None

    @computed_field(description="The leg's figures are a straight-line estimate (distance × detour, time at one speed)")  # type: ignore[prop-decorator]
    @property
    def straight_line_estimate(self) -> bool:
        return is_straight_line(self.source)


class PointRef(BaseModel):
    """One point of a candidate's visiting order, by reference into the result: ``id`` is ``origin``,
    ``live_origin`` (the user's live start), ``stops.N`` or ``destination``; ``index`` a stop's index in the
    request's stop list (``resolved_stops``), None at the ends. ``RoutePlanResult.point`` gives the point."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(pattern=r"^(origin|live_origin|destination|stops\.\d+)$")
    role: PointRole
    index: int | None = Field(default=None, ge=0)


def visiting_points(stop_order: Sequence[int], stops: int, *, start: str | None) -> list[PointRef]:
    """The one rule of a candidate's points: the start (``origin``, ``live_origin``, or none when it is unknown),
    the stops in ``stop_order`` (indices outside ``0..stops-1`` left out), the destination. The planner sets
    ``CandidateRoute.points`` with it; an older result without them gets them from its ``stop_order`` the same way."""
    points = [PointRef(id=start, role="origin")] if start else []
    points += [PointRef(id=point_id("stop", i), role="stop", index=i) for i in stop_order if 0 <= i < stops]
    points.append(PointRef(id="destination", role="destination"))
    return points


class CandidateRoute(BaseModel):
    stop_order_labels: list[str]
    full_order_labels: list[str]
    legs: list[RouteLeg]
    total_distance_m: int
    total_duration_s: int
    ranking_reason: str | None = None
    # Additions
    rank: int | None = None
    stop_order: list[int] = Field(default_factory=list, description="Indices into resolved_stops, in visiting order")
    # Addition (issue 19): every point in visiting order, start to destination (legs[i] joins points[i] and
    # points[i + 1]); the planner sets it (visiting_points), a stored result without it gets it from stop_order.
    points: list[PointRef] = Field(default_factory=list)
    best_for: list[RouteStrategy] = Field(default_factory=list)
    pareto_optimal: bool = False
    delta_distance_m: int = 0
    delta_duration_s: int = 0
    # Addition (issue 20 §3): how its legs were measured: all on directions, all from the matrix, or some of each.
    measured_by: CandidateMeasure = "matrix"
    # Addition (issue 32): the planner's search chose the order, or the person (``RoutePlanResult.own_route``)
    chosen_by: Literal["planner", "person"] = "planner"


class DeepLinks(BaseModel):
    personal_map: str | None = None
    android_route_plan: str | None = None
    ios_route_plan: str | None = None
    # Additions: the browser link only takes one via point, so a long route is split into legs.
    web_navigation: list[str] = Field(default_factory=list)
    # Addition: navigation to the destination in the AMap app (amapuri://navi, from the MCP tool maps_schema_navi)
    navigation: str | None = None
    mode_used: Literal["personal_map", "route_plan"] | None = None
    coordinate_system: Literal["GCJ02"] = "GCJ02"


class ProviderCalls(BaseModel):
    """How many provider calls a plan made, and how many were served from the cache."""

    geocode: int = 0
    search: int = 0
    detail: int = 0
    matrix: int = 0
    route: int = 0
    cache_hits: int = 0

    @property
    def total(self) -> int:
        return self.geocode + self.search + self.detail + self.matrix + self.route


class OptimizerInfo(BaseModel):
    """How the stop order was searched, as facts the faces word (issue 23: a "compared" sentence states exactly
    what was done): ``enumeration`` listed all ``orders_possible`` orders; ``held_karp`` proved the shortest and
    the fastest order by dynamic programming over ``stops`` without listing them; ``heuristic`` searched until its kick
    budget or at most ``time_limit_s`` (``kicks`` perturbations done, ``search_stop`` what ended it, ``engines``
    used) and proves nothing. ``orders_ranked`` is how
    many distinct orders the ranking compared (the alternatives come from them). ``note`` is empty from the core: the
    faces fill it with the search in the reader's words (core.words.route.search_words, issue 31)."""

    method: Literal["enumeration", "held_karp", "heuristic", "trivial"]
    exact: bool
    note: str = ""
    #: orders whose totals were computed one by one by the enumeration (None for the other methods)
    orders_evaluated: int | None = None
    stops: int
    time_limit_s: float | None = None
    #: n! for the stop count (None beyond the exact limit, where nobody counts them)
    orders_possible: int | None = None
    #: distinct orders the ranking compared (the pool after one order per sequence of places)
    orders_ranked: int | None = None
    #: orders the search produced before ``max_permutations`` bounded them (the ranked ones are the best on either
    #: total among them; None: a result stored before the bound)
    orders_found: int | None = None
    #: ILS kicks done over both objectives (heuristic with the ILS engine only)
    kicks: int | None = None
    #: what ended the ILS (both objectives; the latest of): ``stall`` (a stretch of kicks without improvement),
    #: ``max_kicks`` (the kick budget) — both the same on any machine — or ``time_limit`` (the safety cap)
    search_stop: Literal["stall", "max_kicks", "time_limit", "no_moves"] | None = None
    #: the heuristic engines used (``ils_2opt_oropt``, ``ortools_gls``)
    engines: list[str] = Field(default_factory=list)
    max_permutations: int | None = None
    exact_limit: int | None = None
    #: orders within this fraction of the best total worded as a near-tie (the setting ``tie_tolerance``; the pick
    #: itself takes the least total, issue 31)
    tie_tolerance: float | None = None


class LiveOrigin(BaseModel):
    """The user's live position for origin_mode=current_location, only when the user supplied it."""

    lon: float
    lat: float
    location: str
    crs: Literal["WGS84"] = "WGS84"
    source: Literal["user_location"] = "user_location"


NoticeSeverity = Literal["info", "warning"]
NoticeParam = str | int | float


class Notice(BaseModel):
    """One thing the planner tells the user, as a code and its facts (issue 12 §1): the faces choose the words
    (core/route/notices.py lists every code and its catalog key; locales/*/LC_MESSAGES/route.po the words)."""

    code: str = Field(pattern=r"^[A-Z][A-Z0-9_]*$", description="What happened: FUZZY_MATCH, OFFLINE_ESTIMATES, ...")
    params: dict[str, NoticeParam] = Field(default_factory=dict, description="The facts the words quote")
    severity: NoticeSeverity = "warning"
    detail: str | None = Field(default=None, description="The core's own English note, for logs and details")


class RoutePlanResult(BaseModel):
    success: bool
    origin_mode: Literal["fixed", "current_location"]
    resolved_origin: ResolvedPoint | None = None
    resolved_destination: ResolvedPoint
    resolved_stops: list[ResolvedPoint]
    candidates: list[CandidateRoute]
    best_route: CandidateRoute
    best_index: int = Field(default=0, ge=0, description="Index of best_route in candidates")
    deep_links: DeepLinks | None = None
    summary: str = Field(
        default="",
        description="The result in one paragraph, filled at the edge in the reader's language (empty from "
        "the core: core.words.route.summary_paragraph)",
    )
    warnings: list[str] = Field(description="The notices as English sentences (the route catalog's words)")
    # Additions
    task_name: str = "multi-destination-route-planning"
    route_strategy: RouteStrategy = "shortest_distance"
    transport_mode: TransportMode = "driving"
    round_trip: bool = False
    provider: str = "offline"
    region: str | None = None
    metric_source: MetricSource = "offline_estimate"
    optimizer: OptimizerInfo | None = None
    provider_calls: ProviderCalls = Field(default_factory=ProviderCalls)
    best_geometry: list[list[list[float]]] = Field(
        default_factory=list, description="Per leg of the best route: [[lon, lat], ...] in WGS-84"
    )
    geometry_source: str | None = None
    live_origin: LiveOrigin | None = None
    elapsed_ms: float | None = None
    # Addition (issue 12): the warnings as codes and facts, in the order of ``warnings``
    notices: list[Notice] = Field(default_factory=list)
    # Additions (issue 32): the person's own order as planned, and its difference to the best order
    own_route: CandidateRoute | None = None
    own_difference: OwnOrderDifference | None = None
    #: the person's order's AMap route-plan links, when the plan has links (issue 32: its order in every export)
    own_deep_links: DeepLinks | None = None
    # the plan's matrix and request, kept in memory only, for the own order again without a provider call
    _kept: object = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _candidate_points(self) -> RoutePlanResult:
        """A result stored before candidates carried their points (a JSON export, an old answer) gets them from
        each candidate's ``stop_order`` (else its stop labels, else the input order) by ``visiting_points``."""
        for cand in [*self.candidates, self.best_route]:
            if not cand.points:
                cand.points = visiting_points(
                    self._stored_order(cand), len(self.resolved_stops), start=self._start(cand)
                )
        return self

    def _stored_order(self, cand: CandidateRoute) -> list[int]:
        n = len(self.resolved_stops)
        if cand.stop_order:
            return list(cand.stop_order)
        remaining, order = list(range(n)), []
        for label in cand.stop_order_labels:  # a result without stop_order: its labels matched to the stops
            match = next(
                (i for i in remaining if label in (self.resolved_stops[i].label, self.resolved_stops[i].resolved_name)),
                None,
            )
            if match is not None:
                order.append(match)
                remaining.remove(match)
        return order + remaining

    def _start(self, cand: CandidateRoute) -> str | None:
        if self.resolved_origin is not None:
            return "origin"
        stops = len(cand.stop_order or cand.stop_order_labels or self.resolved_stops)
        if self.live_origin is not None or len(cand.full_order_labels) > stops + 1:
            return LIVE_ORIGIN
        return None

    def point(self, ref: PointRef | str) -> ResolvedPoint | None:
        """The point an id names (None for the live start, which is ``live_origin``, or an id not in this result)."""
        pid = ref.id if isinstance(ref, PointRef) else ref
        if pid == "origin":
            return self.resolved_origin
        if pid == "destination":
            return self.resolved_destination
        if pid.startswith("stops."):
            index = pid.removeprefix("stops.")
            if index.isdigit() and int(index) < len(self.resolved_stops):
                return self.resolved_stops[int(index)]
        return None

    @computed_field(  # type: ignore[prop-decorator]
        description="Every distance and duration is a straight-line estimate (distance × detour, time at one speed)"
    )
    @property
    def straight_line_estimate(self) -> bool:
        return is_straight_line(self.metric_source)

    @computed_field(  # type: ignore[prop-decorator]
        description="Whether the strategies can choose different orders: not on straight-line estimates, where "
        "time is distance over one speed, so the shortest order is also the fastest"
    )
    @property
    def strategies_can_differ(self) -> bool:
        return not self.straight_line_estimate

    @property
    def has_road_geometry(self) -> bool:
        """Whether the best route is drawn along the roads (every leg's path came from a router)."""
        source = self.geometry_source or ""
        return bool(self.best_geometry) and not any(s in source for s in ("offline_estimate", "straight_line"))

    def visiting(self, candidate: CandidateRoute | None = None) -> list[tuple[PointRef, ResolvedPoint | None]]:
        """A candidate's points (the best route's by default) with the points they name, in visiting order."""
        cand = candidate or self.best_route
        return [(ref, self.point(ref)) for ref in cand.points]
