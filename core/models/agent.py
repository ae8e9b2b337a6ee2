"""Contracts of the travel agent (docs/ARCHITECTURE.md, "Agent").

The specification's field names and enums are kept as written. Additions are optional and marked
"Addition" below. Requests forbid unknown fields, so a client cannot smuggle status flags
("consent_granted", "status": "OK", ...) past the gates: consent is only ``options.allow_webbrowse``
and confirmation is only a dry-run id the server issued (``options.confirm_dry_run_id``).
"""

from __future__ import annotations

import re
import uuid
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationInfo, field_validator

from core.models.agent_wishes import TripWish, TripWishOutcome
from core.models.common import MessageText, Priority, as_priority

Route = Literal["SYSTEM1_API", "SYSTEM1_RAG", "SYSTEM2_REASONING", "SYSTEM2_WEBBROWSE"]
ROUTES: tuple[Route, ...] = ("SYSTEM1_API", "SYSTEM1_RAG", "SYSTEM2_REASONING", "SYSTEM2_WEBBROWSE")
#: the name of the start the plan assumes when no hotel is known (the console words it)
ASSUMED_START = "city centre (assumed start)"
Reason = Literal["MULTI_CONSTRAINT", "MISSING_INFO", "NO_API", "REALTIME_WEB", "HIGH_RISK_ACTION"]
Capability = Literal["places", "transport", "planner", "browser", "trip", "weather", "knowledge", "commit"]
UiMode = Literal["fast", "slow"]
UiStatus = Literal[
    "thinking", "browsing", "verifying", "repairing", "awaiting_consent", "awaiting_confirmation", "done", "failed"
]
ResultStatus = Literal["OK", "NEEDS_REVIEW", "NEED_MORE_INFO", "NEED_CONSENT", "NEED_CONFIRMATION", "FAILED", "TIMEOUT"]
# "OK": a System 1 / browse / commit flow that answered, or a plan the critic passed (the response says OK, as for
# READY and DRAFT). Addition "NEEDS_REVIEW": a plan that still fails the critic after its repairs; never OK.
StateStatus = Literal[
    "DRAFT", "READY", "OK", "NEEDS_REVIEW", "NEED_MORE_INFO", "NEED_CONSENT", "NEED_CONFIRMATION", "FAILED", "TIMEOUT"
]
SystemMode = Literal["SYSTEM1", "SYSTEM2"]

# Error codes (+ one addition: a URL outside the allowlist is refused, not "failed").
ErrorCode = Literal[
    "ROUTER_LOW_CONFIDENCE",
    "ROUTER_PARSE_FAILED",
    "TIMEOUT_SYSTEM2",
    "BUDGET_EXCEEDED",
    "BROWSER_CONSENT_REQUIRED",
    "BROWSER_BLOCKED_CAPTCHA",
    "PLANNER_INFEASIBLE_HARD_NODES",
    "TOOL_CALL_FAILED",
    "BROWSER_DOMAIN_NOT_ALLOWED",
    "CONFIRMATION_INVALID",
    "INVALID_INPUT",
    "INTERNAL_ERROR",
    "DATABASE_UNREACHABLE",  # the database is down, frozen or refusing writes (core.errors.DatabaseUnreachable)
    "REGION_NOT_COVERED",  # the message names a place no installed region covers (core/app/scope.py): nothing run
]
ERROR_CODES: tuple[ErrorCode, ...] = get_args(ErrorCode)


# --- request ---------------------------------------------------------------------------------------
class ConversationContext(BaseModel):
    model_config = ConfigDict(extra="forbid")

    recent_messages: list[MessageText] = Field(default_factory=list, max_length=50)
    locale: str | None = Field(
        default=None, max_length=35, description="the reply's language (zh-CN, en-GB, ...); none: the message's"
    )
    timezone: str | None = Field(
        default=None, max_length=64, description="an IANA zone (Europe/Helsinki); none: the region pack's"
    )
    conversation_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=80,
        pattern=r"^[A-Za-z0-9_.:-]+$",
        description="the conversation this message belongs to: a consent to browse given in it holds for it",
    )


class AgentOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Strict booleans: consent and the dry-run switch are a JSON true/false, never "yes", "1" or 1.
    dry_run: StrictBool = False
    allow_webbrowse: StrictBool = False
    max_seconds: float = Field(default=60, gt=0, le=600)
    max_steps: int = Field(default=8, ge=1, le=50)
    max_browser_steps: int = Field(default=12, ge=0, le=100)
    cost_budget_usd: float = Field(default=0.20, ge=0, le=100)
    # Addition: the id of a dry run this server issued; the only way to commit (single use, expires).
    confirm_dry_run_id: str | None = Field(default=None, max_length=80)


def _message_required(schema: dict[str, Any]) -> None:
    """The published schema: API callers always send a message (the id-only confirmation is POST /agent/confirm)."""
    schema["required"] = sorted({*schema.get("required", []), "message"})


class AgentRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, json_schema_extra=_message_required)

    request_id: str = Field(default_factory=lambda: str(uuid.uuid4()), min_length=1, max_length=80)
    user_id: str = Field(default="anonymous", min_length=1, max_length=120)
    trip_id: str | None = Field(default=None, max_length=120)
    # options before message: a confirmation by its dry run's id needs no words (the message may be empty then)
    options: AgentOptions = Field(default_factory=AgentOptions)
    # The published schema keeps minLength 1: API callers always send words (POST /agent/confirm takes an id alone);
    # only a confirmation by its dry run's id (core.app.agent.confirm_dry_run) comes without them.
    message: MessageText = Field(
        default="", validate_default=True, json_schema_extra={"minLength": 1}, description="the person's words"
    )
    conversation_context: ConversationContext = Field(default_factory=ConversationContext)

    @field_validator("message")
    @classmethod
    def _words_or_confirmation(cls, value: str, info: ValidationInfo) -> str:
        options = info.data.get("options")
        if not value and not (options is not None and options.confirm_dry_run_id):
            raise ValueError("a message is needed (only a confirmation by its dry run's id may come without one)")
        return value


# --- router output ---------------------------------------------------------------------------------
class Budget(BaseModel):
    max_seconds: float
    max_steps: int
    max_browser_steps: int


class UiHint(BaseModel):
    mode: UiMode
    status: UiStatus
    message: str


class RouterOutput(BaseModel):
    route: Route
    confidence: float = Field(ge=0, le=1)
    reasons: list[Reason] = Field(default_factory=list)
    required_capabilities: list[Capability] = Field(default_factory=list)
    consent_required: bool = False
    budget: Budget
    ui_hint: UiHint


# --- response -------------------------------------------------------------------------------------
class Payload(BaseModel):
    timeline: list[dict[str, Any]] = Field(default_factory=list)
    dropped_items: list[dict[str, Any]] = Field(default_factory=list)
    candidates: list[dict[str, Any]] = Field(default_factory=list)
    evidence: list[dict[str, Any]] = Field(default_factory=list)
    robustness: dict[str, Any] = Field(default_factory=dict)
    # Additions
    branches: list[dict[str, Any]] = Field(default_factory=list, description="Conditional requests: one per branch.")
    dry_run: dict[str, Any] | None = Field(default=None, description="The pending commit: id, action, evidence.")
    trip: dict[str, Any] | None = Field(default=None, description="The trip draft after a CRUD edit.")
    wishes: list[TripWishOutcome] = Field(
        default_factory=list, description="A trip plan's wishes, each met, met in part, not met or not understood."
    )


#: What the person can do next, as a code the faces word (components/agent/words.py; no sentence in the core):
NextStepCode = Literal[
    "allow_webbrowse",  # allow checking websites (consent; or to verify availability)
    "downgrade",  # answer from the local knowledge base instead: {"to": "knowledge_base"}
    "raise",  # allow more of a budget: {"option": "max_browser_steps"}
    "takeover",  # the website needs a step from the person (a captcha): {"url"}
    "resend",  # send again with an option changed: {"option": "dry_run", "value": "false"}
    "missing",  # a fact the agent asked for: {"field": "date" | "time" | "party_size" | "which_reservation" | …}
    "confirm",  # confirm the pending dry run (the faces' button): {"dry_run_id"}
    "critic",  # the plan needs review: {"codes": "A,B"} (the critic's codes, comma-separated)
    "apply_fix",  # the smallest change that fits a must-visit place: {"place_key", "kind", "day", "new_end" | …}
    "relax_must",  # a must-visit place does not fit and no single fix was found
    "retry_more_time",  # the run timed out: retry with more time or steps
    "plan_less",  # the run timed out: plan fewer days or places
    "ask_one_by_one",  # the run timed out: ask about places one by one
    "name_branch_place",  # a conditional branch could not be evaluated: {"branches": n}
    "weather_later",  # no forecast now: {"reason": "NO_FORECAST_FOR_DATE" | "WEATHER_SERVICE_FAILED", "date"}
    "configure_weather",  # no weather source is configured
    "ask_otherwise",  # the knowledge base does not cover the question
    "ask_related",  # other places the search found, offered as the next question: {"place_ids": "a,b"}
]
NEXT_STEP_CODES: tuple[NextStepCode, ...] = get_args(NextStepCode)


class NextStep(BaseModel):
    """One thing the person can do next: a code and its facts (ids, fields, option names, dates), never words."""

    model_config = ConfigDict(extra="forbid")

    code: NextStepCode
    args: dict[str, str | int | float] = Field(default_factory=dict)

    def key(self) -> tuple[str, tuple[tuple[str, str | int | float], ...]]:
        """The step's identity (code and facts), to keep each step once."""
        return self.code, tuple(sorted(self.args.items()))


def unique_steps(steps: list[NextStep]) -> list[NextStep]:
    """``steps`` in order, each step (code and facts) once."""
    seen: dict[tuple[str, tuple[tuple[str, str | int | float], ...]], NextStep] = {}
    for step in steps:
        seen.setdefault(step.key(), step)
    return list(seen.values())


class AgentResult(BaseModel):
    status: ResultStatus
    answer_text: str
    payload: Payload = Field(default_factory=Payload)
    # Additions
    error_code: ErrorCode | None = None
    next_steps: list[NextStep] = Field(
        default_factory=list,
        description="What the person can do next: objects {code, args} (a code and its facts, no words); "
        "the faces say them in the person's language",
    )


_CODE = re.compile(r"^[A-Z][A-Z0-9_]*$")
_ACTION = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$")
MAX_FACT_TEXT = 80


def _check_fact(value: Any, path: str) -> None:
    if value is None or isinstance(value, bool | int | float):
        return
    if isinstance(value, str):
        if len(value) > MAX_FACT_TEXT or "\n" in value:
            raise ValueError(f"decision_log facts hold values, not free text ({path})")
        return
    if isinstance(value, list | tuple):
        if len(value) > 50:
            raise ValueError(f"decision_log facts list too long ({path})")
        for i, v in enumerate(value):
            if isinstance(v, list | tuple | dict):
                raise ValueError(f"decision_log facts are flat ({path}[{i}])")
            _check_fact(v, f"{path}[{i}]")
        return
    raise ValueError(f"decision_log facts must be scalars or lists of scalars ({path})")


class DecisionLogEntry(BaseModel):
    """One structured step: which action, why (a code), on which facts, under which policy. No prose."""

    model_config = ConfigDict(extra="forbid")

    step: int = Field(ge=0)
    chosen_action: str
    reason_code: str
    facts: dict[str, Any] = Field(default_factory=dict)
    policy_id: str

    @field_validator("chosen_action")
    @classmethod
    def _action(cls, v: str) -> str:
        if not _ACTION.match(v):
            raise ValueError(f"chosen_action must be a registered action name, got {v!r}")
        return v

    @field_validator("reason_code", "policy_id")
    @classmethod
    def _code(cls, v: str) -> str:
        if not _CODE.match(v):
            raise ValueError(f"must be an UPPER_SNAKE code, got {v!r}")
        return v

    @field_validator("facts")
    @classmethod
    def _facts(cls, v: dict[str, Any]) -> dict[str, Any]:
        if len(v) > 30:
            raise ValueError("too many facts in one decision")
        for k, val in v.items():
            if not re.match(r"^[a-z][a-z0-9_]*$", k):
                raise ValueError(f"fact keys are snake_case identifiers, got {k!r}")
            _check_fact(val, k)
        return v


class Explain(BaseModel):
    decision_log: list[DecisionLogEntry] = Field(default_factory=list)
    # Addition: the UI statuses this run went through (thinking -> verifying -> done, ...)
    status_flow: list[UiStatus] = Field(default_factory=list)
    # Addition: the request's decisions and facts from its AgentState, as data (kept with the conversation's turn)
    state: dict[str, Any] = Field(
        default_factory=dict,
        description="AgentState's trip (days, window and its source), consent decisions, booking follow-up and the "
        "standing rules read",
    )


class Observability(BaseModel):
    latency_ms: float = 0
    router_ms: float = 0
    system_mode: SystemMode = "SYSTEM1"
    tool_calls: int = 0
    browser_steps: int = 0
    tokens_est: int = Field(default=0, description="Tokens of every model call of the request (usage as reported)")
    cost_est_usd: float | None = Field(
        default=None,
        description="Money, in cost_currency, priced from the settings' price table; null when no price is known "
        "(then only cost_units says what the request took)",
    )
    fallback_used: bool = False
    # Additions
    cost_units: float = Field(default=0.0, description="The agent's internal budget units (not money)")
    cost_currency: str | None = Field(default=None, description="The currency of cost_est_usd (null: unpriced)")
    spent_usd: float = Field(
        default=0.0,
        description="USD the priced parts of the request cost (models with a price, map requests; offline: 0): what "
        "options.cost_budget_usd is compared with",
    )
    model_calls: int = Field(default=0, description="Calls to a language model (arbitration, explanation, ...)")
    paid_services: list[str] = Field(
        default_factory=list, description="The paid services that ran, e.g. 'llm:gpt-4o-mini' (empty: none)"
    )


class AgentResponse(BaseModel):
    request_id: str
    route: RouterOutput
    result: AgentResult
    explain: Explain = Field(default_factory=Explain)
    observability: Observability = Field(default_factory=Observability)


# --- AgentState (the working memory every module reads and writes) ----------------------------
class DayBoundary(BaseModel):
    start: str = "10:00"
    end: str = "22:00"


class LunchBreak(BaseModel):
    enabled: bool = True
    duration_min: int = 60
    window: tuple[str, str] = ("11:30", "13:30")


class TripState(BaseModel):
    trip_id: str | None = None
    days: int = Field(default=1, ge=1, le=30)
    day_boundaries: list[DayBoundary] = Field(default_factory=lambda: [DayBoundary()])
    lunch_break: LunchBreak = Field(default_factory=LunchBreak)
    pacing: Literal["relaxed", "normal", "tight"] = "normal"
    # Additions: where and when
    region: str | None = None
    start_date: str | None = None
    #: where the day's window (day_boundaries) came from: the message's words, or the agent's default
    window_source: Literal["message", "default"] = "default"
    window_said: str | None = Field(default=None, description="the words the window was read from (the message's)")
    #: why the words said could not be the window (the default holds): TIME_NOT_VALID | END_NOT_AFTER_START
    window_problem: str | None = None
    #: a trip starting today begins its first day at the request's moment (rounded up), not earlier: HH:MM (None:
    #: the first day runs the whole window)
    first_day_start: str | None = None
    #: the wishes the trip request read from the message (core/agent/trip_wishes.py)
    wishes: list[TripWish] = Field(default_factory=list)


class DraftState(BaseModel):
    nodes: list[dict[str, Any]] = Field(default_factory=list)
    hard_nodes: list[str] = Field(default_factory=list)
    soft_nodes: list[str] = Field(default_factory=list)
    edits: list[dict[str, Any]] = Field(default_factory=list)


class SemanticFacts(BaseModel):
    pois: list[dict[str, Any]] = Field(default_factory=list)
    rules: dict[str, Any] = Field(default_factory=dict)


class MemoryState(BaseModel):
    semantic_facts: SemanticFacts = Field(default_factory=SemanticFacts)
    episodic_snippets: list[str] = Field(default_factory=list)
    user_profile: dict[str, Any] = Field(default_factory=dict)


class ComputeState(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    clusters: Any = None
    time_matrix_api: Any = None
    time_matrix_robust: Any = None
    optimization_results: list[Any] = Field(default_factory=list)
    robustness: Any = None
    # Additions: the optimiser's request/problem/plans, its assembled result and the critic's verdict
    trip_request: Any = None
    problem: Any = None
    day_plans: list[Any] = Field(default_factory=list)
    feasibility: Any = None
    itinerary: Any = None
    critic: Any = None
    # the outputs of this request's cacheable actions, by action and input (the registry's; not part of the state's
    # data: a cached output is the same as the fact it holds elsewhere in the state)
    action_cache: dict[Any, Any] = Field(default_factory=dict, exclude=True)


class ConsentState(BaseModel):
    """The consent decisions of this request (spec §5.3: no browsing without the person's consent)."""

    browse: bool = False  # the browse gate passed: the request's own consent or the conversation's earlier one
    browse_source: Literal["request", "conversation"] | None = None


class FollowupState(BaseModel):
    """The person's pending booking joined with this message (core/agent/flows/booking_followup.py), read before the
    booking flow runs: the facts together (its ``Followup``, as data), or the fact to correct."""

    joined: dict[str, Any] | None = None
    error_message: str | None = None  # a follow-up whose fact is wrong ("2月30日"): the booking flow says it
    error_field: str | None = None


class ReactState(BaseModel):
    step: int = 0
    max_steps: int = 8
    observations: list[dict[str, Any]] = Field(default_factory=list)
    decision_log: list[DecisionLogEntry] = Field(default_factory=list)


class StateResult(BaseModel):
    status: StateStatus = "DRAFT"
    timeline: list[dict[str, Any]] = Field(default_factory=list)
    dropped_items: list[dict[str, Any]] = Field(default_factory=list)
    explanations: list[str] = Field(default_factory=list)
    # Additions
    error_code: ErrorCode | None = None
    next_steps: list[NextStep] = Field(default_factory=list)
    evidence: list[dict[str, Any]] = Field(default_factory=list)
    candidates: list[dict[str, Any]] = Field(default_factory=list)
    branches: list[dict[str, Any]] = Field(default_factory=list)
    dry_run: dict[str, Any] | None = None
    wishes: list[TripWishOutcome] = Field(default_factory=list)


class StateObservability(BaseModel):
    router_ms: float = 0
    latency_ms: float = 0
    tool_calls: int = 0
    browser_steps: int = 0
    cost_units: float = 0.0  # the actions' internal weights (not money; the cost budget is compared with spent_usd)
    #: USD spent so far: priced model tokens and priced map requests (core/agent/accounting.py)
    spent_usd: float = 0.0
    fallback_used: bool = False
    tokens_est: int = 0


class AgentState(BaseModel):
    model_config = ConfigDict(validate_assignment=False)

    request_id: str
    user_input: str
    lang: Literal["zh", "en"] | None = Field(
        default=None, description="the reply language the caller (a face) chose; None: guessed from user_input"
    )
    trip: TripState = Field(default_factory=TripState)
    draft: DraftState = Field(default_factory=DraftState)
    memory: MemoryState = Field(default_factory=MemoryState)
    compute: ComputeState = Field(default_factory=ComputeState)
    # Additions: the request's consent decisions and the booking follow-up read before the flow (plain data)
    consent: ConsentState = Field(default_factory=ConsentState)
    followup: FollowupState = Field(default_factory=FollowupState)
    react: ReactState = Field(default_factory=ReactState)
    result: StateResult = Field(default_factory=StateResult)
    observability: StateObservability = Field(default_factory=StateObservability)


def state_facts(state: AgentState) -> dict[str, Any]:
    """What a response keeps of the state (plain JSON): the trip, the consent decisions, the booking follow-up and
    the standing rules read; the working data (the matrix, the plans) stays in the request."""
    facts = state.model_dump(mode="json", include={"trip", "consent", "followup"})
    facts["rules"] = state.memory.semantic_facts.rules
    return facts


class AgentErrorInfo(BaseModel):
    code: ErrorCode
    message: str


# --- trip edits (SYSTEM1_API CRUD on the persisted draft) -----------------------------------------
EditOp = Literal["add", "delete", "move", "prioritize", "rename", "swap_days", "clear"]


class TripEdit(BaseModel):
    """One explicit edit of the trip draft, parsed from the message (never guessed)."""

    model_config = ConfigDict(extra="forbid")

    op: EditOp
    target: str | None = Field(default=None, max_length=120, description="The place the edit is about")
    day: int | None = Field(default=None, ge=1, le=30, description="1-based day for add/move")
    priority: Priority | None = None

    @field_validator("priority", mode="before")
    @classmethod
    def _legacy_priority(cls, v: object) -> object:
        return as_priority(v)

    new_name: str | None = Field(default=None, max_length=120)
    day_a: int | None = Field(default=None, ge=1, le=30)
    day_b: int | None = Field(default=None, ge=1, le=30)
