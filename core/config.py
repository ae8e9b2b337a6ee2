"""Typed settings in one place (environment variables prefixed ``OMNI_``)."""

from __future__ import annotations

from datetime import datetime, time
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, Field, NonNegativeInt, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
#: the region packs and scenarios that ship with the project (the setting ``data_dir`` may name another folder)
BUNDLED_DATA = PROJECT_ROOT / "data"


def _empty_is_none(value: object) -> object:
    """An empty path setting means none (``OMNI_CACHE_DIR=""``: memory only), never the working directory."""
    return None if isinstance(value, str) and not value.strip() else value


def _empty_is_refused(value: object) -> object:
    if isinstance(value, str) and not value.strip():
        raise ValueError("is empty: give a folder (an empty path would mean the working directory)")
    return value


#: a path that may be switched off with an empty value
OptionalPath = Annotated[Path | None, BeforeValidator(_empty_is_none)]
#: a path the product cannot do without
RequiredPath = Annotated[Path, BeforeValidator(_empty_is_refused)]


def _aware_moment(value: datetime | None) -> datetime | None:
    """A fixed moment must say its offset: 10:00 in Shanghai and 10:00 in UTC are eight hours apart."""
    if value is not None and value.utcoffset() is None:
        raise ValueError("has no UTC offset: write it as 2027-01-05T10:00:00+08:00 (or ...Z for UTC)")
    return value


class HalfDayToolName(StrEnum):
    """The half-day planner's tools, one line each: the registry (docs/ARCHITECTURE.md, "Adding a half-day tool").
    A name is its tool's module in core/halfday/toolbox/ (which declares the tool and its mock), the key of its
    words (``halfday.stage.<name>``) and what ``OMNI_HALFDAY_MOCK_TOOLS`` may name. Kept here, below every domain,
    because the settings refuse a mock switch naming no tool when they are read."""

    DECOMPOSE_GOAL = "decompose_goal"
    GET_MEMORY = "get_memory"
    CHECK_WEATHER = "check_weather"
    ANALYZE_USER_PROFILE = "analyze_user_profile"
    PLAN_TIME_SLOTS = "plan_time_slots"
    RESOLVE_ORIGIN = "resolve_origin"
    SEARCH_PLACES = "search_places"
    RANK_PLACES_FOR_PLAN = "rank_places_for_plan"
    SCORE_PLANS = "score_plans"
    MOCK_RESERVE = "mock_reserve"


#: the half-day planner's tools (core/halfday/toolbox/ has a module for each, each with a mock)
HALFDAY_TOOLS: tuple[HalfDayToolName, ...] = tuple(HalfDayToolName)


def _known_tools(value: list[str]) -> list[str]:
    """Refuse a mock switch naming a tool the planner does not have (a typo would silently run the real one)."""
    unknown = [v for v in value if v not in HALFDAY_TOOLS]
    if unknown:
        raise ValueError(f"unknown tool(s) {', '.join(unknown)}; the half-day tools are {', '.join(HALFDAY_TOOLS)}")
    return value


#: USD per 1,000 tokens of a model (every token at the model's output price, an upper bound: OpenAI's published
#: price of gpt-4o-mini is 0.15 USD per 1M input and 0.60 USD per 1M output tokens; docs/ARCHITECTURE.md)
DEFAULT_LLM_PRICE_PER_1K_TOKENS: dict[str, float] = {"gpt-4o-mini": 0.0006}
#: USD per remote map request: an AMap personal key is free within its quota (docs/amap.md: 5,000 a day for most
#: services); a commercial key's price per request goes here (docs/ARCHITECTURE.md)
DEFAULT_MAP_REQUEST_PRICE_USD: dict[str, float] = {"amap": 0.0}
#: AMap's daily quota per service of a personal-certified key (docs/amap.md, "Rate limits / quotas": 5,000 a day
#: for geocoding, distance and the routes, 100 for POI search and detail; weather is not in AMap's table)
AMAP_DAILY_QUOTA: dict[str, int] = {
    "geocode": 5000, "search": 100, "detail": 100, "distance": 5000, "driving": 5000, "walking": 5000, "cycling": 5000,
}  # fmt: skip


class Settings(BaseSettings):
    """Runtime settings. Every field can be set as ``OMNI_<NAME>``."""

    model_config = SettingsConfigDict(env_prefix="OMNI_", extra="ignore")

    provider: str = Field(
        default="offline",
        pattern=r"^[a-z][a-z-]*(\+[a-z][a-z-]*)?$",
        description="offline | amap | GEOCODER+ROUTER (geocoder: pack, amap, nominatim; router: estimate, valhalla, "
        "osrm, amap), see core/geo/registry.py",
    )
    region: str = "shanghai"
    data_dir: RequiredPath = BUNDLED_DATA
    now: Annotated[datetime | None, AfterValidator(_aware_moment)] = Field(
        default=None,
        description="A fixed moment for every calendar decision (core/clock.py), e.g. 2027-01-05T10:00:00+08:00: "
        "the clock stands still there (tests, demos that show the same bookable slots on any day). Unset: the "
        "machine's clock.",
    )

    # Remote providers
    amap_key: SecretStr | None = None
    amap_mcp_url: str = Field(default="https://mcp.amap.com/mcp", description="AMap's MCP server (the key is added)")
    amap_mcp_timeout_s: float = Field(
        default=20.0, gt=0, le=120, description="Total time of one MCP tool call (a bad key makes the server hang)"
    )
    # Open services: none is asked unless its address is set (the default runs offline)
    valhalla_url: str | None = Field(
        default=None, description="A Valhalla server (valhalla_service, a cluster): the router instead of the pack's"
    )
    osrm_url: str | None = Field(default=None, description="An OSRM server, e.g. https://router.project-osrm.org")
    osrm_max_table_size: int = Field(default=100, ge=2, le=10_000, description="The server's --max-table-size")
    nominatim_url: str | None = Field(
        default=None, description="A Nominatim server, e.g. https://nominatim.openstreetmap.org (1 request/s)"
    )
    nominatim_user_agent: str = "omni-travel-planner/0.1 (offline-first trip planner)"
    cache_dir: OptionalPath = Field(
        default=PROJECT_ROOT / ".omni" / "cache",
        description="Where remote services' answers are kept between runs (empty: memory only)",
    )
    online_tiles: bool = Field(
        default=False, description="Offer an online tile layer on maps (requests tiles_url; off: never requested)"
    )
    tiles_url: str = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    tiles_attribution: str = "© OpenStreetMap contributors"
    snap_cutoff_m: float = Field(
        default=500.0, gt=0, le=50_000, description="A point farther than this from the pack's roads is outside it"
    )
    snap_ground_level: bool = Field(
        default=True,
        description="Walking and cycling points join Valhalla's network at ground level, never on a tunnel under "
        "them (a square over a service tunnel made a 100 m walk 1.2 km); off: the nearest edge of any kind",
    )
    snap_entrances: bool = Field(
        default=True,
        description="Walking and cycling legs to and from a building or area with a door in the pack's map data "
        "(entrances.csv) are measured from its main entrance; off: from the place's point",
    )
    amap_base_url: str = "https://restapi.amap.com"
    http_timeout_s: float = Field(default=10.0, gt=0)
    http_retries: int = Field(
        default=3,
        ge=0,
        le=10,
        description="Most times one remote call is asked again (a rate refusal); a timeout or a malformed answer is "
        "never asked again (core/geo/retry_policy.py)",
    )
    http_server_error_retries: int = Field(
        default=1, ge=0, le=10, description="Of those, for an HTTP 5xx or a dropped connection (at most http_retries)"
    )
    http_server_error_pause_s: float = Field(
        default=0.25, ge=0, le=10, description="Seconds before asking again after an HTTP 5xx or a dropped connection"
    )
    breaker_fail_max: int = Field(default=5, ge=1)
    breaker_reset_s: float = Field(default=60.0, gt=0)
    provider_budget_s: float = Field(
        default=8.0,
        gt=0,
        le=600,
        description="Most time one plan (or agent request) waits on remote providers; past it they degrade to the "
        "offline estimate with a warning.",
    )
    amap_qps: float = Field(
        default=1.0,
        ge=0,
        le=1000,
        description="AMap calls per second, one rate for every AMap service of the key in the process (a token "
        "bucket; 0: unpaced). A personal key is safe at ~1 (docs: CUQPS_HAS_EXCEEDED_THE_LIMIT otherwise); raise "
        "it to the QPS the AMap console shows for the key.",
    )
    amap_daily_quota: dict[str, NonNegativeInt] = Field(
        default_factory=lambda: dict(AMAP_DAILY_QUOTA),
        description="Calls per day a key may make of each AMap service (geocode, search, detail, distance, driving, "
        "walking, cycling; weather has no published quota and is only counted), AMap's day ending at 00:00 "
        "Asia/Shanghai. Every call is counted first (in Redis with OMNI_REDIS_URL, shared by every process) and "
        "the one that would pass the quota is not sent. Defaults: a personal-certified key (docs/amap.md). Set "
        "as JSON, the whole table (a service left out is only counted), e.g. "
        'OMNI_AMAP_DAILY_QUOTA=\'{"geocode": 300000, "search": 1000}\'.',
    )

    redis_url: str | None = Field(
        default=None,
        description="Redis for a team (redis://host:6379/0; OMNI_REDIS_URL): every process and machine on it "
        "shares each key's pacing, holds and quota (core/geo/redis_limits.py). Unset: each process works alone, "
        "as on a laptop. Redis down: each process goes on alone and says so in /health.",
    )

    api_user_limit: str | None = Field(
        default=None,
        description="Most API requests one key may send, e.g. '120/minute' or '10/second' (the limits library's "
        "notation), counted per key across every worker on the team's Redis (each worker alone without it); past "
        "it: 429 with Retry-After. Unset: no limit.",
    )

    # Planning
    tie_tolerance: float = Field(
        default=0.02,
        ge=0,
        le=0.5,
        description="Relative difference under which the reasons call two totals a near-tie (words only: shortest "
        "and fastest always take the least total of their own figure).",
    )
    balanced_time_slack: float = Field(
        default=0.15,
        ge=0,
        le=2.0,
        description="balanced prefers the shorter of two Pareto orders unless it is more than this much slower",
    )
    top_k: int = Field(default=5, ge=1, le=50, description="Alternatives listed beside the best route per strategy.")
    direction_recheck_top: int = Field(
        default=3,
        ge=1,
        le=10,
        description="Where the router's matrix and directions differ (AMap), the matrix ranking's top orders "
        "considered for a re-measure on the direction service before the final ranking: the best's legs, then the "
        "legs of each other one whose lower bound could still outrank the measured best (then the new best, if it "
        "was not among them, at most as many times again; core/route/directions.py).",
    )
    max_stops: int = Field(default=100, ge=50, le=500)
    exact_limit: int = Field(default=15, ge=2, le=18, description="Largest stop count solved exactly by Held-Karp.")
    solver_time_limit_s: float = Field(default=1.0, gt=0, le=60)
    solver_seed: int = 0
    warm_up_on_start: bool = Field(
        default=True,
        description="A serving face warms the region's pack, its geocoder and the order search's kernels when its "
        "process starts (core/app/warmup.py): the dashboard on a background thread, the API before it answers "
        "(api.py's lifespan); off: the first plan or request pays.",
    )
    fuzzy_min_score: float = Field(default=72.0, ge=0, le=100)

    # Itinerary (multi-day optimiser): robustness policy. robust travel = ceil(nominal x factor + buffer);
    # the pacing multiplies the factor, adds to the buffer and scales visit lengths.
    robust_travel_factor: dict[str, float] = Field(
        default={"driving": 1.3, "walking": 1.1, "cycling": 1.2},
        description="Per travel mode: multiplier on the provider's nominal travel time (>= 1).",
    )
    robust_travel_buffer_min: dict[str, int] = Field(
        default={"driving": 5, "walking": 2, "cycling": 3},
        description="Per travel mode: minutes added to every leg (parking, finding the entrance).",
    )
    pacing_factor_multiplier: dict[str, float] = Field(
        default={"relaxed": 1.15, "normal": 1.0, "tight": 0.9},
        description="Per pacing: multiplies the mode's factor (the product is kept >= 1).",
    )
    pacing_buffer_extra_min: dict[str, int] = Field(
        default={"relaxed": 5, "normal": 0, "tight": 0}, description="Per pacing: extra minutes per leg."
    )
    pacing_visit_factor: dict[str, float] = Field(
        default={"relaxed": 1.2, "normal": 1.0, "tight": 0.85}, description="Per pacing: multiplies visit lengths."
    )
    pacing_day_utilisation: dict[str, float] = Field(
        default={"relaxed": 0.75, "normal": 0.85, "tight": 0.95},
        description="Per pacing: share of a day's free minutes the day clustering fills.",
    )
    default_visit_minutes: int = Field(default=60, ge=5, le=600)
    explicit_wait_min: int = Field(
        default=15, ge=0, le=120, description="Waits longer than this are explicit timeline entries."
    )
    robustness_tolerance: float = Field(
        default=0.5, gt=0, le=5, description="Score: a leg is covered if slack >= tolerance x its robust minutes."
    )
    itinerary_penalty_should: int = Field(default=100_000, ge=1, description="Cost of dropping a 'should' stop.")
    itinerary_penalty_nice: int = Field(default=20_000, ge=1, description="Cost of dropping a 'nice' stop.")
    itinerary_variant: Literal["auto", "per_day", "multi_vehicle"] = Field(
        default="auto", description="auto: solve per day after clustering AND all days at once; keep the better."
    )
    itinerary_solver_time_limit_s: float = Field(
        default=2.0, gt=0, le=60, description="Cap per OR-Tools solve (greedy descent usually stops well before)."
    )
    itinerary_edit_time_limit_s: float = Field(
        default=0.5,
        gt=0,
        le=60,
        description="Cap per OR-Tools solve when a plan is re-optimised after a user edit (warm-started from it).",
    )
    itinerary_metaheuristic: Literal["greedy_descent", "guided_local_search"] = "greedy_descent"
    itinerary_lunch_on_site_min_visit_min: int = Field(
        default=180,
        ge=0,
        le=1440,
        description="Visits at least this long (after pacing) may host the day's lunch on site, split around it; "
        "0 = never (lunch only between stops). Booked slots (fixed start) are never split.",
    )
    itinerary_dinner_window_start: time = Field(
        default=time(17, 30), description="A dinner meal stop (TripPlace.meal = dinner) begins no earlier (local)."
    )
    itinerary_dinner_window_end: time = Field(
        default=time(20, 0),
        description="A dinner meal stop begins early enough to eat (the trip's meal length) by then, or by the "
        "day's end when that is earlier.",
    )
    itinerary_fix_search_max_solves: int = Field(
        default=1000,
        ge=0,
        le=5000,
        description="Layouts spent searching smallest fixes, over all dropped stops (deterministic cap; a layout that "
        "does not fit costs microseconds, so this covers every candidate of some 40 dropped stops).",
    )

    # Agent (core/agent/: semantic router + orchestrator; docs/ARCHITECTURE.md, "Agent")
    db_url: str = Field(
        default=f"sqlite:///{PROJECT_ROOT / '.omni' / 'omni.db'}",
        description="One database, one Alembic history, for the trip store and the reservation service (and the "
        "half-day memory): SQLite (sqlite:///ABSOLUTE/PATH or sqlite:///:memory:) or PostgreSQL "
        "(postgresql+psycopg://USER:PASSWORD@HOST/DB).",
    )
    # The database's limits (core/stores/db.py, core/stores/guard.py): a database that is down or frozen answers
    # DATABASE_UNREACHABLE within these, never a hang
    db_connect_timeout_s: int = Field(
        default=2,
        ge=2,
        le=60,
        description="PostgreSQL: most seconds to open a connection (psycopg connect_timeout; libpq's least is 2)",
    )
    db_statement_timeout_s: float = Field(
        default=2.0,
        gt=0,
        le=600,
        description="PostgreSQL: most seconds one statement runs or waits for a lock (statement_timeout, "
        "lock_timeout); a transaction the server does not end by then (a frozen server) is cut by the client half "
        "a second later",
    )
    db_pool_timeout_s: float = Field(
        default=1.0, gt=0, le=60, description="Most seconds a request waits for a pooled connection (pool_timeout)"
    )
    db_migration_timeout_s: float = Field(
        default=600.0,
        gt=0,
        le=86_400,
        description="PostgreSQL: most seconds the schema migrations at start run or wait for a lock (another "
        "process migrating, a long index build); the requests' statement timeout does not apply to them",
    )
    db_sqlite_busy_timeout_s: float = Field(
        default=30.0, ge=0, le=600, description="SQLite: most seconds a writer waits for another's lock (timeout)"
    )
    db_breaker_fail_max: int = Field(
        default=3, ge=1, le=100, description="Database outages in a row that open its breaker (then it fails fast)"
    )
    db_breaker_reset_s: float = Field(
        default=5.0, gt=0, le=600, description="Seconds the database breaker stays open before one trial call"
    )
    agent_event_log: OptionalPath = Field(
        default=PROJECT_ROOT / ".omni" / "agent_events.jsonl",
        description="JSON-lines log of the agent's events (empty: no log is written)",
    )
    kb_dir: OptionalPath = Field(
        default=PROJECT_ROOT / "data" / "kb", description="Extra knowledge facts per region (empty: none)"
    )
    llm_base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint; the LLM is off when unset.")
    llm_api_key: SecretStr | None = None
    llm_model: str = "gpt-4o-mini"
    llm_timeout_s: float = Field(default=8.0, gt=0, le=120)
    llm_router_arbitration: bool = Field(default=False, description="Let the LLM arbitrate the router's grey zone.")
    llm_plan_proposals: bool = Field(
        default=False,
        description="Let the LLM propose the agent's next planning step (within the Action Registry, checked by the "
        "rules; a refused proposal falls back to the deterministic step).",
    )
    llm_price_per_1k_tokens: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_LLM_PRICE_PER_1K_TOKENS),
        description="What a model's service charges per 1,000 tokens, by model name (llm_model), in "
        "llm_price_currency (defaults and their source: docs/ARCHITECTURE.md, 'What a request costs'). Empty: no "
        "price is known, so costs are reported in the agent's budget units, never as money; a model missing from "
        "the table leaves the request unpriced (and its calls out of the USD the cost budget is compared with).",
    )
    map_request_price_usd: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_MAP_REQUEST_PRICE_USD),
        description="USD per remote request of a map service, by its name (amap, osrm, ...); a service not listed "
        "(offline, the pack's data, a self-hosted engine) costs 0 (docs/ARCHITECTURE.md, 'What a request costs').",
    )
    llm_price_currency: str = Field(
        default="USD", min_length=3, max_length=3, description="The price table's currency."
    )
    router_execute_threshold: float = Field(default=0.75, gt=0, le=1)
    router_ask_threshold: float = Field(default=0.45, gt=0, le=1)
    api_keys: dict[str, str] = Field(
        default_factory=dict,
        description="API callers: user id -> SHA-256 hex digest of the user's key (python -m core apikey new USER).",
    )
    api_max_body_bytes: int = Field(default=256_000, ge=1_000, le=50_000_000, description="Largest request body.")
    browse_allowlist: list[str] = Field(
        default_factory=list,
        description="Domains the browser executor may visit (subdomains included): host (ports 80/443), "
        "host:PORT or host:* (any port). Unset: the demo venue sites (127.0.0.1:venues_port) when venues_serve "
        "says they run, else none.",
    )
    browse_timeout_s: float = Field(default=8.0, gt=0, le=60, description="The whole visit's deadline.")
    browse_max_bytes: int = Field(
        default=2_000_000, ge=10_000, le=50_000_000, description="Most bytes one visit reads, every request of it."
    )
    browse_chromium: Path = Field(
        default=Path("/usr/bin/chromium"), description="The Chromium the browser executor drives (Debian's)."
    )
    browse_evidence_dir: Path = Field(
        default=PROJECT_ROOT / ".omni" / "browse", description="Where each visit's screenshots are saved."
    )
    browse_consent_ttl_s: float = Field(
        default=3600, gt=0, le=86_400, description="How long a consent to browse given in a conversation holds."
    )
    # The demo venue websites (core/venues; python -m core venues serve): demo data on 127.0.0.1
    venues_port: int = Field(default=8765, ge=1, le=65_535, description="The demo venue sites' port on 127.0.0.1.")
    venues_serve: bool = Field(
        default=False,
        description="The demo venue sites run beside this app on venues_port (make run starts them and sets this): "
        "only then does the default browse allowlist name that loopback port",
    )
    venues_dir: Path = Field(
        default=PROJECT_ROOT / "data" / "venues", description="The demo venue sites' content (one JSON per region)."
    )

    @model_validator(mode="after")
    def _demo_sites_allowed_by_default(self) -> Settings:
        # Without a list of its own, browsing reaches the demo venue sites (and nothing else) when they are served
        # here; a loopback port named while no venue server runs would let whatever else listens there be visited.
        if "browse_allowlist" not in self.model_fields_set:
            self.browse_allowlist = [f"127.0.0.1:{self.venues_port}"] if self.venues_serve else []
        return self

    @model_validator(mode="after")
    def _dinner_window_ordered(self) -> Settings:
        if self.itinerary_dinner_window_end <= self.itinerary_dinner_window_start:
            raise ValueError("itinerary_dinner_window_end must be later than itinerary_dinner_window_start")
        return self

    # Half-day planner (core/halfday/; docs/ARCHITECTURE.md, "Half-day planner")
    halfday_mock_tools: Annotated[list[str], AfterValidator(_known_tools)] = Field(
        default_factory=list,
        description="Tools that run their registered mock instead (e.g. decompose_goal); one of HALFDAY_TOOLS.",
    )
    halfday_solver: Literal["auto", "greedy", "cp_sat"] = Field(
        default="auto", description="auto: greedy, then CP-SAT when a greedy plan misses what the goal requires."
    )
    halfday_reference_cost: float = Field(
        default=300.0, gt=0, description="Cost per person (pack currency) that scores 0.5 on C when no budget is given."
    )
    # one breaker per outside service (core/halfday/breaker.py): failures in a row that open it, its cool-down
    halfday_breaker_map_fail_max: int = Field(default=3, ge=1, le=100, description="Map (routing) failures to open.")
    halfday_breaker_map_reset_s: float = Field(default=60.0, gt=0, le=3600, description="Map breaker cool-down.")
    halfday_breaker_weather_fail_max: int = Field(default=3, ge=1, le=100, description="Weather failures to open.")
    halfday_breaker_weather_reset_s: float = Field(default=120.0, gt=0, le=3600, description="Weather cool-down.")
    # the forecast's day against these (core/halfday/weather.py): its high at or above is hot, at or below is cold
    halfday_weather_hot_c: float = Field(
        default=32.0, ge=20, le=50, description="A forecast high (°C) from which the half day counts as hot."
    )
    halfday_weather_cold_c: float = Field(
        default=5.0, ge=-40, le=15, description="A forecast high (°C) up to which the half day counts as cold."
    )
    halfday_breaker_payment_fail_max: int = Field(default=2, ge=1, le=100, description="Reservation failures to open.")
    halfday_breaker_payment_reset_s: float = Field(default=30.0, gt=0, le=3600, description="Reservation cool-down.")
    halfday_degraded_default: Literal["continue", "stop"] = Field(
        default="continue",
        description="Level 2: what the planner does when the person was asked (on_degraded=ask) and did not answer "
        "within halfday_degraded_wait_s, or nobody can answer (the CLI): go on with the local data, or stop.",
    )
    halfday_degraded_wait_s: float = Field(
        default=120.0, gt=0, le=900, description="Level 2: how long a paused stream waits for the person's choice."
    )
    halfday_stream_lost_after_s: float = Field(
        default=180.0,
        gt=0,
        le=3600,
        description="A client following a half-day stream from another worker (GET /halfday/plan/{id}/events) gets "
        "STREAM_LOST when nothing came for this long (longer than a level-2 wait): the worker holding it stopped.",
    )
    halfday_support_contact: str = Field(
        default="",
        max_length=200,
        description="Level 3: the contact channel shown beside Retry (an address or a phone number, as written); "
        "empty: none is configured, and the page says so.",
    )
    halfday_provider_budget_s: float = Field(
        default=6.0,
        gt=0,
        le=120,
        description="Most time one half-day plan waits on map providers' answers (pacing excluded); past it the "
        "travel it still needs is the pack's estimate, announced with a warning.",
    )
    halfday_measure_pacing_s: float = Field(
        default=8.0,
        ge=0,
        le=600,
        description="On a paced map service paid by the destination (AMap), the most seconds of pacing one half-day "
        "plan spends measuring its legs: calls = this x the service's QPS (8 at AMap's default 1 QPS; 0: no limit). "
        "The legs past it keep the pack's straight-line estimate, labelled, and the plan says how many.",
    )
    sse_ping_s: float = Field(
        default=15.0,
        ge=0,
        le=300,
        description="Seconds between keep-alive comments on a server-sent event stream (0: none); proxies close a "
        "stream that stays silent too long.",
    )
    dashboard_user: str = Field(
        default="",
        max_length=120,
        pattern=r"^[A-Za-z0-9_.@-]*$",
        description="One user for every dashboard session (a shared demo); empty: one user per browser session.",
    )
    dry_run_ttl_s: float = Field(default=600.0, gt=0, le=86_400, description="How long a dry run can be confirmed.")
    i18n_strict: bool = Field(
        default=False, description="A message key without words in the asked language raises (core/i18n.py)"
    )
    # Strategy lab (core/lab/; docs/ARCHITECTURE.md, "Strategy lab")
    dask_scheduler: str | None = Field(
        default=None,
        description="A Dask scheduler address (tcp://host:8786): `lab run` sends its tasks there instead of local "
        "processes",
    )

    def region_dir(self, region: str | None = None) -> Path:
        return self.data_dir / "regions" / (region or self.region)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
