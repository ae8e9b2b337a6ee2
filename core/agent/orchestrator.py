"""Module 14's orchestrator: ``route_and_run`` and the budgeted slow path (§5).

System 2 is a ReAct loop, Plan → Act → Observe → Critic → Repair, over registered actions:

- **Plan** is a deterministic policy: the first phase whose output is missing from the state
  (facts first, then the matrix, then optimise, then check; repair when the critic fails).
- **Act** runs the phase's actions through the registry (validated, logged, counted).
- **Observe** appends compact observations; every step appends ``{step, chosen_action,
  reason_code, facts, policy_id}`` to the decision log (codes and values, never prose).
- **Critic** is the itinerary critic (time windows, day bounds, lunch, robust travel, waits).
- **Repair** moves or drops what the critic or the optimiser could not fit, within the budget.

Budgets (steps, seconds, browser steps, cost) are checked before every action. When they run
out the result is TIMEOUT with the best partial result, ``fallback_used`` and next steps.
Risky actions pass the gates in gates.py: consent for browsing, dry run + confirmation for commits.
"""

from __future__ import annotations

import re
import threading
import time
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from core.agent import fastpath, gates
from core.agent.actions.registry import ActionError, ActionRegistry, default_registry
from core.agent.browse import BrowserExecutor
from core.agent.features import URL
from core.agent.router import RouterDecision, route_message
from core.agent.state import AgentContext, log_decision, new_state
from core.agent.telemetry import Telemetry
from core.config import Settings, get_settings
from core.models.common import PRIORITY_RANK, as_priority
from core.models.agent import (
    AgentRequest,
    AgentResponse,
    AgentResult,
    AgentState,
    Explain,
    Observability,
    Payload,
)

POLICY_FACTS = "FACTS_FIRST"
POLICY_MATRIX = "MATRIX_BEFORE_OPTIMISE"
POLICY_OPT = "OPTIMISE_AFTER_MATRIX"
POLICY_CHECK = "CHECK_AFTER_OPTIMISE"
POLICY_REPAIR = "REPAIR_ON_CRITIC_FAIL"
POLICY_GATE = "COMMIT_GATE"
POLICY_CONSENT = "CONSENT_GATE"
POLICY_BRANCH = "CONDITIONAL_BRANCHES"
POLICY_BUDGET = "BUDGET_GUARD"

SIGHTSEEING = ("landmark", "museum", "park", "temple", "shopping", "theatre", "family", "market")
PREFERENCE_TAGS = [
    (re.compile(r"冷门|小众|人少|安静|hidden gem|off the beaten|quiet", re.I), ("quiet", "local_favourite")),
    (re.compile(r"亲子|带孩子|小孩|儿童|kids?|family", re.I), ("kid_friendly",)),
    (re.compile(r"雨天|下雨|室内|rain|indoor", re.I), ("rainy_day_ok", "indoor")),
    (re.compile(r"夜景|晚上|night", re.I), ("night_view",)),
    (re.compile(r"免费|省钱|便宜|free|cheap|budget", re.I), ("free", "budget")),
    (re.compile(r"历史|古迹|history|historic", re.I), ("historic",)),
    (re.compile(r"艺术|美术|art", re.I), ("art",)),
    (re.compile(r"博物馆|museum", re.I), ("museum",)),
]
PLACES_PER_DAY = 3
#: Unrequested suggestions stay below this visit length: an all-day venue (a theme park, 600 min) does not fit
#: beside the day's other suggestions and would only be dropped; it is planned when the user names it.
SUGGEST_MAX_VISIT_MIN = 240


class BudgetExhausted(Exception):
    def __init__(self, code: str, what: str):
        super().__init__(what)
        self.code = code
        self.what = what


# =====================================================================================================
# Entry point
# =====================================================================================================
_PROVIDERS: dict[tuple, Any] = {}
_PROVIDERS_LOCK = threading.Lock()


def default_provider(settings: Settings):
    from core.geo.registry import make_provider

    key = (settings.provider, settings.region, str(settings.data_dir))
    with _PROVIDERS_LOCK:
        if key not in _PROVIDERS:
            _PROVIDERS[key] = make_provider(settings.provider, region=settings.region, settings=settings)
        return _PROVIDERS[key]


def route_and_run(
    request: AgentRequest | dict,
    *,
    settings: Settings | None = None,
    provider: Any = None,
    store: Any = None,
    telemetry: Telemetry | None = None,
    browser: BrowserExecutor | None = None,
    llm: Any = None,
    registry: ActionRegistry | None = None,
    clock=None,
    now: datetime | None = None,
    progress=None,
) -> AgentResponse:
    """Route one request and run it (System 1 or the budgeted System 2). Never raises on bad luck:
    failures become a FAILED/TIMEOUT result with an error code; only an invalid request raises."""
    t_start = time.perf_counter()
    if not isinstance(request, AgentRequest):
        request = AgentRequest.model_validate(request)
    settings = settings or get_settings()
    from core.stores.trips import open_store

    store = store or open_store(settings.db_url)
    provider = provider or default_provider(settings)
    telemetry = telemetry or Telemetry(settings.agent_event_log, request_id=request.request_id)
    if telemetry.request_id is None:
        telemetry.request_id = request.request_id
    if llm is None:
        from core.agent.llm import make_llm

        llm = make_llm(settings)
    browser = browser or BrowserExecutor(allowlist=settings.browse_allowlist, timeout_s=settings.browse_timeout_s,
                                         telemetry=telemetry)
    if browser.telemetry is None:
        browser.telemetry = telemetry
    registry = registry or default_registry()
    ctx = AgentContext(settings=settings, request=request, provider=provider, store=store, telemetry=telemetry,
                       llm=llm, browser=browser, progress=progress)
    if clock is not None:
        ctx.clock = clock
    ctx.started = ctx.clock()
    tz = request.conversation_context.timezone or provider.region.timezone
    try:
        zone = ZoneInfo(tz)
    except Exception:
        zone = ZoneInfo(provider.region.timezone)
    ctx.now = now or datetime.now(zone)

    arbiter = llm.arbitrate_route if (llm is not None and settings.llm_router_arbitration) else None
    decision = route_message(request.message, options=request.options, settings=settings, arbiter=arbiter,
                             recent_messages=request.conversation_context.recent_messages)
    telemetry.router_decision(route=decision.output.route, confidence=decision.output.confidence,
                              reasons=list(decision.output.reasons), router_ms=decision.router_ms,
                              intent=decision.intent, policy_id=decision.policy_id)
    state = new_state(request, region=provider.region.name)
    state.observability.router_ms = decision.router_ms
    flow: list[str] = [decision.output.ui_hint.status]

    def report(status: str, message: str = "") -> None:
        if not flow or flow[-1] != status:
            flow.append(status)
        if progress is not None:
            try:
                progress(status, message)
            except Exception:  # a UI callback must never break the agent
                pass

    ctx.report = report  # type: ignore[method-assign]
    state.react.step = 0
    log_decision(state, action="router.route", reason_code=decision.reason_code, policy_id=decision.policy_id,
                 facts={"route": decision.output.route, "confidence": decision.output.confidence,
                        "intent": decision.intent, **decision.features.as_facts()})
    system_mode = "SYSTEM1" if decision.output.route.startswith("SYSTEM1") else "SYSTEM2"
    try:
        if request.options.confirm_dry_run_id:
            system_mode = "SYSTEM2"
            _run_confirmation(state, ctx, registry)
        elif decision.intent == "clarify" or decision.question_kind == "ask":
            _clarify(decision, state)
        elif decision.intent in ("trip_edit", "weather", "travel_time", "rag"):
            if decision.question_kind == "approximate" and decision.question and decision.intent == "trip_edit":
                _clarify(decision, state)
            else:
                fastpath.handle(decision, state, ctx, registry)
        elif decision.intent == "browse":
            _run_browse(decision, state, ctx, registry)
        elif decision.intent in ("commit", "bulk_write"):
            _run_commit_request(decision, state, ctx, registry)
        elif decision.intent == "conditional":
            _run_conditional(decision, state, ctx, registry)
        else:
            _run_plan(decision, state, ctx, registry)
    except BudgetExhausted as exc:  # any System 2 path (browse, commit, branches) that ran out of budget
        _timeout(state, ctx, exc)
    except ActionError as exc:
        state.result.status = "FAILED"
        state.result.error_code = exc.code if exc.code in _CODES else "TOOL_CALL_FAILED"
        state.result.explanations = [f"{'工具调用失败' if fastpath.zh_text(request.message) else 'A tool call failed'}: {exc.message}"]
        state.observability.fallback_used = True
        telemetry.fallback_triggered(from_route=decision.output.route, to_route="NONE", reason=state.result.error_code)
    final = _final_status(state)
    report(final)
    response = _response(request, decision, state, flow, system_mode, t_start)
    telemetry.agent_complete(status=response.result.status, latency_ms=response.observability.latency_ms,
                             cost_est_usd=response.observability.cost_est_usd,
                             tool_calls=response.observability.tool_calls,
                             browser_steps=response.observability.browser_steps, system_mode=system_mode,
                             route=decision.output.route, scenario=decision.intent,
                             error_code=response.result.error_code, fallback_used=response.observability.fallback_used)
    return response


from core.models.agent import ERROR_CODES as _CODES  # noqa: E402


def _final_status(state: AgentState) -> str:
    return {
        "READY": "done", "OK": "done", "DRAFT": "done", "NEED_MORE_INFO": "done", "NEED_CONSENT": "awaiting_consent",
        "NEED_CONFIRMATION": "awaiting_confirmation", "FAILED": "failed", "TIMEOUT": "failed",
    }[state.result.status]


def _response(request: AgentRequest, decision: RouterDecision, state: AgentState, flow: list[str], system_mode: str,
              t_start: float) -> AgentResponse:
    status = "OK" if state.result.status in ("READY", "DRAFT") else state.result.status
    latency = (time.perf_counter() - t_start) * 1000
    obs = state.observability
    return AgentResponse(
        request_id=request.request_id,
        route=decision.output,
        result=AgentResult(
            status=status,  # type: ignore[arg-type]
            answer_text="\n".join(state.result.explanations),
            payload=Payload(
                timeline=state.result.timeline, dropped_items=state.result.dropped_items,
                candidates=state.result.candidates, evidence=state.result.evidence,
                robustness=_robustness_payload(state), branches=state.result.branches, dry_run=state.result.dry_run,
                trip=state.memory.user_profile.get("trip"),
            ),
            error_code=state.result.error_code,
            next_steps=list(dict.fromkeys(state.result.next_steps)),
        ),
        explain=Explain(decision_log=state.react.decision_log, status_flow=flow),
        observability=Observability(
            latency_ms=round(latency, 3), router_ms=round(decision.router_ms, 3), system_mode=system_mode,
            tool_calls=obs.tool_calls, browser_steps=obs.browser_steps, tokens_est=obs.tokens_est,
            cost_est_usd=round(obs.cost_est_usd, 6), fallback_used=obs.fallback_used,
        ),
    )


def _robustness_payload(state: AgentState) -> dict[str, Any]:
    rob = state.compute.robustness
    if rob is None:
        return {}
    return rob.model_dump(mode="json") if hasattr(rob, "model_dump") else dict(rob)


def _clarify(decision: RouterDecision, state: AgentState) -> None:
    state.result.status = "NEED_MORE_INFO"
    if decision.error_code:
        state.result.error_code = decision.error_code
    zh = fastpath.zh_text(state.user_input)
    state.result.explanations = [decision.question or ("请补充更多信息。" if zh else "Please tell me a bit more.")]
    state.result.next_steps = [f"missing:{m}" for m in decision.missing]
    log_decision(state, action="router.clarify", reason_code="ASK_KEY_FIELDS", policy_id="ROUTER_THRESHOLDS",
                 facts={"missing": decision.missing, "confidence": decision.output.confidence})


# =====================================================================================================
# Budget guard
# =====================================================================================================
def _guard(state: AgentState, ctx: AgentContext, *, action: str) -> None:
    opts = ctx.options
    if ctx.elapsed_s() >= opts.max_seconds:
        raise BudgetExhausted("TIMEOUT_SYSTEM2", f"max_seconds={opts.max_seconds:g} before {action}")
    if state.observability.cost_est_usd > opts.cost_budget_usd:
        raise BudgetExhausted("BUDGET_EXCEEDED", f"cost_budget_usd={opts.cost_budget_usd:g} before {action}")


def _act(registry: ActionRegistry, name: str, payload: Any, state: AgentState, ctx: AgentContext, *,
         reason_code: str, policy_id: str, facts: dict[str, Any] | None = None) -> Any:
    """One registry call inside the loop: budget check, call, system2_step event, decision log."""
    _guard(state, ctx, action=name)
    t0 = time.perf_counter()
    try:
        out = registry.call(name, payload, state=state, ctx=ctx)
    except ActionError as exc:
        ctx.telemetry.system2_step(step=state.react.step, action=name, ms=(time.perf_counter() - t0) * 1000,
                                   status="error", error_code=exc.code)
        log_decision(state, action=name, reason_code="TOOL_CALL_FAILED", policy_id=policy_id,
                     facts={**(facts or {}), "error": exc.code})
        raise
    ms = (time.perf_counter() - t0) * 1000
    ctx.telemetry.system2_step(step=state.react.step, action=name, ms=ms, status="ok")
    log_decision(state, action=name, reason_code=reason_code, policy_id=policy_id, facts=facts or {})
    return out


# =====================================================================================================
# Planning: building the trip request from the message, the draft and the knowledge base
# =====================================================================================================
def mentioned_places(text: str, pack) -> list[str]:
    """Place ids whose name or alias (>= 2 characters; >= 4 for Latin) appears in the message."""
    from core.geo.text import normalize

    t = normalize(text)
    found: list[tuple[int, str]] = []
    for p in pack.places:
        if p.category in ("address",):
            continue
        names = [p.name_zh, p.name_en, *p.aliases]
        best = 0
        for n in names:
            k = normalize(n)
            if len(k) >= 2 and not (k.isascii() and len(k) < 4) and k in t:
                best = max(best, len(k))
        if best:
            found.append((best, p.id))
    # Keep the longest matches; drop a shorter name contained in a longer found one ("豫园" in "豫园商城").
    found.sort(key=lambda x: -x[0])
    out: list[str] = []
    for _, pid in found:
        out.append(pid)
    return out


def _preferred_tags(text: str) -> tuple[list[str], list[str]]:
    tags: list[str] = []
    cats: list[str] = []
    for rx, values in PREFERENCE_TAGS:
        if rx.search(text):
            for v in values:
                (cats if v == "museum" else tags).append(v)
    return tags, cats


def suggest_places(pack, *, text: str, count: int, exclude: set[str]) -> list[str]:
    """Knowledge-base suggestions for an open request: sightseeing places matching the stated
    preferences (tags/categories), best rated first, none longer than SUGGEST_MAX_VISIT_MIN (all-day
    venues only when named). Facts only; the choice is explained by tags."""
    tags, cats = _preferred_tags(text)
    pool = [p for p in pack.places if p.category in SIGHTSEEING and p.id not in exclude
            and (p.visit_minutes or 0) <= SUGGEST_MAX_VISIT_MIN]
    if cats:
        pool = [p for p in pool if p.category in cats] or pool

    def key(p):
        match = sum(1 for t in tags if t in p.tags)
        return (-match, -(p.rating or 0), p.id)

    pool.sort(key=key)
    return [p.id for p in pool[:count]]


def _start_date(ctx: AgentContext, text: str) -> date:
    if re.search(r"今天|today|明天|tomorrow|后天|\d{4}-\d{2}-\d{2}|\d{1,2}月\d{1,2}[日号]", text, re.I):
        return fastpath.resolve_day(text, tz=ctx.now.tzinfo.key, now=ctx.now)  # type: ignore[attr-defined]
    return ctx.now.date() + timedelta(days=1)  # type: ignore[attr-defined]


def build_trip_request(decision: RouterDecision, state: AgentState, ctx: AgentContext) -> dict[str, Any]:
    pack = ctx.provider.region
    text = state.user_input
    f = decision.features
    days = f.days or (state.trip.days if state.draft.nodes else None) or 1
    days = max(1, min(days, 14))
    start = _start_date(ctx, text)
    state.trip.days = days
    state.trip.start_date = start.isoformat()
    hotel = None
    for pid in state.memory.user_profile.get("mentioned", []):
        p = pack.place_by_id(pid)
        if p is not None and p.category == "hotel":
            hotel = {"place_id": p.id, "name": p.name_zh}
    if hotel is None:
        hotel = {"name": "city centre (assumed start)", "lon": pack.center[0], "lat": pack.center[1]}
    places: list[dict[str, Any]] = []
    seen: set[str] = set()
    for node in state.draft.nodes:
        if node.get("place_id") and node["place_id"] not in seen:
            seen.add(node["place_id"])
            places.append({"key": node["place_id"], "place_id": node["place_id"], "name": node["name"],
                           "priority": as_priority(node.get("priority") or "should"),
                           "fixed_day": (node["day"] - 1) if node.get("day") and node["day"] <= days else None})
    must_words = re.compile(r"必去|一定要|must", re.I)
    for pid in state.memory.user_profile.get("mentioned", []):
        p = pack.place_by_id(pid)
        if p is None or pid in seen or p.category == "hotel":
            continue
        seen.add(pid)
        places.append({"key": pid, "place_id": pid, "name": p.name_zh,
                       "priority": "must" if must_words.search(text) else "should"})
    for pid in state.memory.user_profile.get("suggested", []):
        if pid not in seen:
            seen.add(pid)
            places.append({"key": pid, "place_id": pid, "name": pack.place_by_id(pid).name_zh, "priority": "nice"})
    pacing = "relaxed" if re.search(r"轻松|慢|relax", text, re.I) else "tight" if re.search(r"紧凑|特种兵|tight|packed", text, re.I) else "normal"
    mode = "walking" if f.walking else "driving"
    state.trip.pacing = pacing  # type: ignore[assignment]
    return {
        "trip_name": "agent plan",
        "region": pack.name,
        "timezone": pack.timezone,
        "hotel": hotel,
        "days": [{"date": (start + timedelta(days=i)).isoformat(), "start_time": "10:00", "end_time": "20:00"}
                 for i in range(days)],
        "pacing": pacing,
        "mode": mode,
        "places": places,
    }


# =====================================================================================================
# The ReAct loop
# =====================================================================================================
PHASES = ("facts", "matrix", "optimise", "check")  # then "repair" when the critic fails


def _next_phase(state: AgentState, repair_pending: bool) -> str | None:
    """Plan: the first phase whose output is missing (deterministic)."""
    c = state.compute
    if not state.memory.semantic_facts.pois:
        return "facts"
    if c.time_matrix_robust is None:
        return "matrix"
    if not c.day_plans:
        return "optimise"
    if repair_pending:
        return "repair"
    if c.critic is None:
        return "check"
    return None


def _phase_reason(phase: str) -> tuple[str, str]:
    return {
        "facts": ("MISSING_POI_FACTS", POLICY_FACTS),
        "matrix": ("MISSING_TIME_MATRIX", POLICY_MATRIX),
        "optimise": ("MISSING_PLAN", POLICY_OPT),
        "check": ("UNCHECKED_PLAN", POLICY_CHECK),
        "repair": ("CRITIC_FAILED", POLICY_REPAIR),
    }[phase]


def run_react_loop(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    """Plan → Act → Observe → Critic → Repair until READY / FAILED / TIMEOUT."""
    opts = ctx.options
    pack = ctx.provider.region
    repair_pending = False
    repairs = 0
    try:
        while True:
            phase = _next_phase(state, repair_pending)
            if phase is None:
                break
            if state.react.step >= opts.max_steps:
                raise BudgetExhausted("BUDGET_EXCEEDED", f"max_steps={opts.max_steps}")
            _guard(state, ctx, action=phase)
            state.react.step += 1
            reason, policy = _phase_reason(phase)
            if phase == "facts":
                ctx.report("thinking")
                if ctx.request.trip_id:
                    _act(registry, "trip.load_draft", {"trip_id": ctx.request.trip_id}, state, ctx,
                         reason_code="LOAD_TRIP_DRAFT", policy_id=policy)
                mentioned = mentioned_places(state.user_input, pack)
                if mentioned:
                    names = [pack.place_by_id(p).name_zh for p in mentioned]
                    res = _act(registry, "places.resolve_entities", {"names": names}, state, ctx,
                               reason_code="UNRESOLVED_ENTITIES", policy_id=policy, facts={"names": names[:20]})
                    mentioned = [r.place_id for r in res.resolved]
                state.memory.user_profile["mentioned"] = mentioned
                have = {n.get("place_id") for n in state.draft.nodes} | set(mentioned)
                days = decision.features.days or state.trip.days or 1
                want = max(0, PLACES_PER_DAY * days - len(have - {None}))
                suggested = suggest_places(pack, text=state.user_input, count=want, exclude=have) if want else []
                state.memory.user_profile["suggested"] = suggested
                ids = [p for p in [*(n.get("place_id") for n in state.draft.nodes), *mentioned, *suggested] if p]
                if not ids:
                    state.result.status = "NEED_MORE_INFO"
                    state.result.explanations = ["没有可规划的地点。" if fastpath.zh_text(state.user_input) else "There is nothing to plan."]
                    return
                _act(registry, "places.get_poi_facts", {"place_ids": list(dict.fromkeys(ids))}, state, ctx,
                     reason_code=reason, policy_id=policy,
                     facts={"mentioned": len(mentioned), "suggested": len(suggested), "draft": len(state.draft.nodes)})
            elif phase == "matrix":
                trip_request = build_trip_request(decision, state, ctx)
                _act(registry, "itinerary.prepare_problem", {"request": trip_request}, state, ctx,
                     reason_code="MISSING_PROBLEM", policy_id=policy,
                     facts={"days": len(trip_request["days"]), "places": len(trip_request["places"])})
                m = _act(registry, "transport.build_time_matrix", {"mode": trip_request["mode"]}, state, ctx,
                         reason_code=reason, policy_id=policy)
                r = _act(registry, "transport.apply_robustness_policy", {"pacing": trip_request["pacing"]}, state, ctx,
                         reason_code="MISSING_ROBUST_TIMES", policy_id=policy,
                         facts={"points": m.points, "source": m.source})
                state.react.observations.append({"phase": "matrix", "points": m.points, "factor": r.factor,
                                                 "buffer_min": r.buffer_min, "source": m.source})
            elif phase == "optimise":
                ctx.report("thinking")
                cl = _act(registry, "itinerary.cluster_days_balanced", {}, state, ctx, reason_code="MISSING_CLUSTERS",
                          policy_id=policy)
                opt = _act(registry, "itinerary.optimize_day_vrptw", {}, state, ctx, reason_code=reason,
                           policy_id=policy, facts={"days": len(cl.days), "unassignable": cl.unassignable})
                dropped = [k for v in opt.dropped.values() for k in v]
                if dropped:
                    ctx.report("repairing")
                    rep = _act(registry, "itinerary.repair_cross_day", {}, state, ctx, reason_code="DROPPED_STOPS",
                               policy_id=POLICY_REPAIR, facts={"dropped": dropped[:20]})
                    state.react.observations.append({"phase": "repair", "moves": len(rep.moves)})
            elif phase == "check":
                ctx.report("verifying")
                v = _act(registry, "policy.validate_feasibility", {}, state, ctx, reason_code=reason, policy_id=policy)
                s = _act(registry, "policy.score_robustness", {}, state, ctx, reason_code="SCORE_ROBUSTNESS",
                         policy_id=policy)
                c = _act(registry, "policy.check_itinerary", {}, state, ctx, reason_code="CRITIC_CHECK",
                         policy_id=policy, facts={"infeasible_hard": v.infeasible_hard, "robustness": s.score})
                ctx.telemetry.critic_result(passed=c.passed, violations=c.violations, min_slack=c.min_slack,
                                            total_wait=c.total_wait)
                state.react.observations.append({"phase": "critic", "passed": c.passed, "violations": c.violations})
                if not c.passed and repairs < 2:
                    repair_pending = True
            elif phase == "repair":
                ctx.report("repairing")
                repairs += 1
                repair_pending = False
                _repair_from_critic(state, ctx, registry)
        _finish_plan(state, ctx, registry)
    except BudgetExhausted as exc:
        _timeout(state, ctx, exc)


def _repair_from_critic(state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    """Drop the least important visit on each day the critic flagged, then re-check."""
    critic = state.compute.critic
    bad_days = sorted({v.day_index for v in critic.violations if v.day_index is not None})
    problem = state.compute.problem
    for plan in state.compute.day_plans:
        if plan.day_index in bad_days and plan.order:
            victim = min(plan.order, key=lambda k: (-PRIORITY_RANK[problem.stop(k).priority], k))
            if problem.stop(victim).priority == "must":
                continue
            plan.order = [k for k in plan.order if k != victim]
            plan.dropped = [*plan.dropped, victim]
    log_decision(state, action="itinerary.repair_cross_day", reason_code="CRITIC_FAILED", policy_id=POLICY_REPAIR,
                 facts={"days": bad_days, "violations": sorted(critic.codes())[:10]})
    state.compute.critic = None
    state.compute.feasibility = None
    _act(registry, "itinerary.repair_cross_day", {}, state, ctx, reason_code="REPAIR_AFTER_CRITIC", policy_id=POLICY_REPAIR)


def _timeline_payload(result) -> list[dict[str, Any]]:
    out = []
    for day in result.days:
        for e in day.entries:
            out.append({
                "day": day.day_index + 1, "date": day.date.isoformat(), "kind": e.kind, "key": e.key, "name": e.name,
                "start": e.start.strftime("%H:%M"), "end": e.end.strftime("%H:%M"), "slack_min": e.slack_min,
                "robust_min": e.robust_min, "nominal_min": e.nominal_min, "source": e.source, "priority": e.priority,
                "lon": e.lon, "lat": e.lat, "part": e.part,
            })
    return out


def _finish_plan(state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    result = state.compute.itinerary
    zh = fastpath.zh_text(state.user_input)
    if result is None:
        return
    state.result.timeline = _timeline_payload(result)
    state.result.dropped_items = [d.model_dump(mode="json") for d in result.dropped_items]
    pack = ctx.provider.region
    for pid in state.memory.user_profile.get("suggested", []):
        p = pack.place_by_id(pid)
        state.result.candidates.append({"place_id": pid, "name": p.name_zh, "tags": list(p.tags), "rating": p.rating,
                                        "why": "kb_suggestion"})
    for poi in state.memory.semantic_facts.pois:
        state.result.evidence.append({"type": "poi_facts", "place_id": poi["place_id"], "name": poi["name"],
                                      "opening_hours": poi["opening_hours"], "needs_reservation": poi["needs_reservation"],
                                      "source": f"region_pack:{pack.name}"})
    facts = {
        "days": [{"day": d.day_index, "date": d.date.isoformat(),
                  "visits": [e.name for e in d.entries if e.kind == "visit" and not e.continues_visit]} for d in result.days],
        "dropped": [d.explanation for d in result.dropped_items],
        "robustness": result.robustness.score if result.robustness else None,
        "min_slack_min": result.robustness.min_slack_min if result.robustness else None,
        "notes": [],
    }
    if result.status == "infeasible":
        state.result.status = "FAILED"
        state.result.error_code = "PLANNER_INFEASIBLE_HARD_NODES"
        fixes = [d.smallest_fix.description for d in result.dropped_items if d.smallest_fix and d.priority == "must"]
        musts = [d.name for d in result.dropped_items if d.priority == "must"]
        state.result.next_steps += fixes or (["延长每天的结束时间、增加天数或把它设为可选。"] if zh else
                                             ["Extend the day's end, add a day, or make it optional."])
        head = (f"必去地点无法安排：{'、'.join(musts)}。" if zh else f"Must-visit places cannot fit: {', '.join(musts)}.")
        state.result.explanations = [head]
        log_decision(state, action="policy.validate_feasibility", reason_code="PLANNER_INFEASIBLE_HARD_NODES",
                     policy_id=POLICY_CHECK, facts={"must_dropped": musts[:10]})
        return
    if decision_needs_availability(state):
        needs = [p["name"] for p in state.memory.semantic_facts.pois if p.get("needs_reservation")]
        state.result.evidence.append({"type": "availability", "verified_live": False, "needs_reservation": needs,
                                      "source": "knowledge_base"})
        facts["notes"].append(("可订性未实时核实（未授权网页浏览）；需预约：" + ("、".join(needs) if needs else "无")) if zh else
                              ("Availability not verified live (no browsing consent); needs reservation: " + (", ".join(needs) or "none")))
        state.result.next_steps.append("授权网页浏览（allow_webbrowse）后可核实官网可订性。" if zh else
                                       "Allow web browsing to verify availability on official sites.")
    if any(n.startswith("Offline estimate") for n in result.warnings):
        facts["notes"].append("交通时间为离线估算（含稳健缓冲）。" if zh else "Travel times are offline estimates (with robust buffers).")
    exp = registry.call("llm.generate_explanation", {"facts": facts, "locale": "zh-CN" if zh else "en"}, state=state, ctx=ctx)
    state.result.explanations = [exp.text]
    state.result.status = "READY" if result.status == "ready" else "OK"
    if result.status == "needs_review":
        state.result.next_steps.append("critic:" + ",".join(sorted(state.compute.critic.codes())))
    _maybe_offer_persist(state, ctx)


def decision_needs_availability(state: AgentState) -> bool:
    return bool(re.search(r"订到|可订|有房|有票|余票|availab|can (still )?book|bookable", state.user_input, re.I))


def _maybe_offer_persist(state: AgentState, ctx: AgentContext) -> None:
    """Saving a plan into the trip store is a commit: dry run now, NEED_CONFIRMATION, commit later."""
    from core.agent.features import SAVE

    if not SAVE.search(state.user_input):
        return
    result = state.compute.itinerary
    nodes = []
    for day in result.days:
        for e in day.entries:
            if e.kind == "visit" and e.key and not e.continues_visit:
                place = ctx.provider.region.place_by_id(e.key)
                nodes.append({"name": e.name, "place_id": place.id if place else None, "day": day.day_index + 1,
                              "priority": e.priority or "should"})
    current = ctx.store.get_trip(ctx.request.trip_id) if ctx.request.trip_id else None
    evidence = [{"type": "persist_plan", "trip_id": ctx.request.trip_id, "days": len(result.days), "nodes": len(nodes),
                 "replaces_nodes": len(current.nodes) if current else 0, "price_total_per_person":
                 sum((p.get("price_per_person") or 0) for p in state.memory.semantic_facts.pois
                     if any(n["place_id"] == p["place_id"] for n in nodes)),
                 "cancellation_policy": "n/a (a trip draft)", "availability": "not_verified"}]
    params = {"trip_id": ctx.request.trip_id, "region": ctx.provider.region.name, "days": len(result.days),
              "nodes": nodes, "title": "Planned trip"}
    _issue_dry_run(state, ctx, action="trip.persist_plan", params=params, evidence=evidence)


def _issue_dry_run(state: AgentState, ctx: AgentContext, *, action: str, params: dict[str, Any],
                   evidence: list[dict[str, Any]]) -> None:
    zh = fastpath.zh_text(state.user_input)
    rec = gates.make_dry_run(ctx.store, ctx.request, action=action, params=params, evidence=evidence,
                             now=ctx.wall_clock(), ttl_s=ctx.settings.dry_run_ttl_s)
    state.result.dry_run = {"dry_run_id": rec.dry_run_id, "action": action, "evidence": evidence,
                            "expires_at": rec.expires_at}
    state.result.evidence.extend({"type": "dry_run", **e} for e in evidence)
    state.result.status = "NEED_CONFIRMATION"
    state.result.next_steps.append(f"confirm:{rec.dry_run_id}")
    state.result.explanations.append(
        f"这是预演（dry run），尚未提交。确认请在 options.confirm_dry_run_id 中带上 {rec.dry_run_id}（{int(ctx.settings.dry_run_ttl_s // 60)} 分钟内有效，仅可使用一次）。"
        if zh else f"This is a dry run; nothing is committed. To commit, send options.confirm_dry_run_id = {rec.dry_run_id} "
        f"(valid {int(ctx.settings.dry_run_ttl_s // 60)} min, single use).")
    log_decision(state, action="gate.dry_run", reason_code="AWAITING_CONFIRMATION", policy_id=POLICY_GATE,
                 facts={"action": action, "evidence_items": len(evidence)})
    ctx.report("awaiting_confirmation")


def _timeout(state: AgentState, ctx: AgentContext, exc: BudgetExhausted) -> None:
    """Budget exhausted: TIMEOUT with the best partial result, fallback_used and next steps."""
    zh = fastpath.zh_text(state.user_input)
    state.result.status = "TIMEOUT"
    state.result.error_code = exc.code  # type: ignore[assignment]
    state.observability.fallback_used = True
    partial = "none"
    c = state.compute
    if c.day_plans and c.problem is not None:
        for p in c.day_plans:
            for i, k in enumerate(p.order):
                state.result.timeline.append({"day": p.day_index + 1, "kind": "visit", "key": k,
                                              "name": c.problem.stop(k).name, "order": i + 1, "verified": False})
        partial = "unverified_day_orders"
    elif c.clusters is not None and c.problem is not None:
        for a in c.clusters.days:
            for k in a.keys:
                state.result.timeline.append({"day": a.day_index + 1, "kind": "visit", "key": k,
                                              "name": c.problem.stop(k).name, "verified": False})
        partial = "day_clusters"
    elif state.memory.semantic_facts.pois:
        state.result.candidates.extend({"place_id": p["place_id"], "name": p["name"],
                                        "opening_hours": p["opening_hours"]} for p in state.memory.semantic_facts.pois)
        partial = "poi_facts"
    log_decision(state, action="orchestrator.fallback", reason_code=exc.code, policy_id=POLICY_BUDGET,
                 facts={"partial": partial, "steps": state.react.step})
    ctx.telemetry.fallback_triggered(from_route="SYSTEM2_REASONING", to_route="SYSTEM1_PARTIAL", reason=exc.code)
    what = {"poi_facts": ("已收集的地点资料", "the place facts gathered so far"),
            "day_clusters": ("按天分组（未排序、未校验）", "the day grouping (unordered, unchecked)"),
            "unverified_day_orders": ("每天的顺序（未经 critic 校验）", "each day's order (not checked by the critic)"),
            "none": ("无", "nothing yet")}[partial]
    state.result.explanations = [
        (f"预算用尽（{exc.what}），已停止。当前最好的部分结果：{what[0]}。" if zh else
         f"The budget ran out ({exc.what}); stopped. Best partial result: {what[1]}.")
    ]
    state.result.next_steps += (
        ["提高 max_seconds / max_steps 后重试", "减少天数或地点数量", "先用快车道逐个查询地点"] if zh else
        ["Retry with a larger max_seconds / max_steps", "Plan fewer days or places", "Ask about places one by one (fast path)"]
    )


# =====================================================================================================
# Intents of System 2
# =====================================================================================================
def _run_plan(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    run_react_loop(decision, state, ctx, registry)


def _run_conditional(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    """'赶不上日落就改横滨': both branches, each evaluated, with the condition stated."""
    zh = fastpath.zh_text(state.user_input)
    pack = ctx.provider.region
    cond, then = decision.features.conditional or ("", "")
    state.react.step += 1
    _guard(state, ctx, action="conditional")
    primary_ids = mentioned_places(cond, pack)
    alt_text = re.sub(r"^(就|那就|则|便)?(改成?|换成?|改去|换去|去|switch to|change to|go to|then)\s*", "", then, flags=re.I).strip()
    alt_ids = mentioned_places(alt_text, pack)
    # Where the first branch would be: a place in the condition, else the last place of the trip draft.
    if not primary_ids and ctx.request.trip_id:
        _act(registry, "trip.load_draft", {"trip_id": ctx.request.trip_id}, state, ctx, reason_code="LOAD_TRIP_DRAFT",
             policy_id=POLICY_BRANCH)
        primary_ids = [n["place_id"] for n in state.draft.nodes if n.get("place_id")][-1:]
    names = [*(pack.place_by_id(p).name_zh for p in primary_ids[:1]), *(pack.place_by_id(p).name_zh for p in alt_ids[:1])]
    if names:
        _act(registry, "places.resolve_entities", {"names": names}, state, ctx, reason_code="UNRESOLVED_ENTITIES",
             policy_id=POLICY_BRANCH, facts={"names": names})
    ids = [*primary_ids[:1], *alt_ids[:1]]
    if ids:
        _act(registry, "places.get_poi_facts", {"place_ids": ids}, state, ctx, reason_code="MISSING_POI_FACTS",
             policy_id=POLICY_BRANCH)
    now = ctx.now  # type: ignore[attr-defined]
    sunset_kw = re.search(r"日落|夕阳|sunset", cond, re.I)
    sun = fastpath.sun_times(now.date(), lon=pack.center[0], lat=pack.center[1], tz=pack.timezone)
    deadline = sun[1] if (sun and sunset_kw) else None
    start = {"name": "city centre", "lon": pack.center[0], "lat": pack.center[1]}

    def eta_to(pid: str) -> tuple[datetime, float]:
        from core.geo.base import LonLat

        p = pack.place_by_id(pid)
        leg = ctx.provider.route(LonLat(start["lon"], start["lat"]), LonLat(p.lon, p.lat), mode="driving")
        robust = leg.duration_s * 1.3 + 600  # a conservative buffer; the figure is an offline estimate when offline
        return now + timedelta(seconds=robust), leg.duration_s

    branches: list[dict[str, Any]] = []
    # Branch A: the condition holds (we make it) -> keep the plan
    a = {"branch": "A", "condition": (f"赶得上{cond.replace('赶不上', '').replace('来不及', '')}" if zh else f"NOT ({cond})"),
         "action": "keep_plan", "target": pack.place_by_id(primary_ids[0]).name_zh if primary_ids else None}
    if deadline is not None:
        a["sunset"] = deadline.strftime("%H:%M")
        a["sunset_source"] = "astronomical_calculation"
    if primary_ids and deadline is not None:
        eta, nominal = eta_to(primary_ids[0])
        a.update({"eta": eta.strftime("%H:%M"), "nominal_travel_min": round(nominal / 60), "feasible": eta <= deadline,
                  "evaluation": "EVALUATED"})
    elif deadline is not None:
        a.update({"feasible": None, "evaluation": "NEEDS_TARGET_PLACE"})
    else:
        a.update({"feasible": None, "evaluation": "CONDITION_NOT_COMPUTABLE"})
    branches.append(a)
    # Branch B: the condition fails -> the alternative
    b = {"branch": "B", "condition": cond, "action": "switch_to", "target": alt_text}
    if alt_ids:
        p = pack.place_by_id(alt_ids[0])
        eta, nominal = eta_to(alt_ids[0])
        b.update({"target": p.name_zh, "place_id": p.id, "eta": eta.strftime("%H:%M"), "nominal_travel_min": round(nominal / 60),
                  "opening_hours": p.opening_hours, "feasible": True, "evaluation": "EVALUATED"})
        if p.opening_hours:
            from core.itinerary.opening import opening_windows

            ow = opening_windows(p.opening_hours, [eta.date()], timezone=pack.timezone, country=pack.country or None)
            mins = eta.hour * 60 + eta.minute
            open_now = any(iv.start <= mins <= iv.end for iv in ow.by_date.get(eta.date(), []))
            b["open_at_eta"] = open_now
            b["feasible"] = open_now
    else:
        b.update({"feasible": None, "evaluation": "NOT_IN_KNOWLEDGE_BASE"})
    branches.append(b)
    state.result.branches = branches
    log_decision(state, action="orchestrator.evaluate_branches", reason_code="CONDITIONAL_REQUEST",
                 policy_id=POLICY_BRANCH, facts={"branches": 2, "a_feasible": a.get("feasible"),
                                                 "b_feasible": b.get("feasible"), "sunset": a.get("sunset")})
    lines = [f"条件：{cond}" if zh else f"Condition: {cond}"]
    for br in branches:
        if br["evaluation"] == "EVALUATED":
            verdict = ("可行" if br["feasible"] else "不可行") if zh else ("feasible" if br["feasible"] else "not feasible")
            lines.append(f"分支{br['branch']}（{br['condition']}）：{br['target']}，预计到达 {br['eta']}"
                         + (f"，日落 {br.get('sunset')}" if br.get("sunset") else "") + f" → {verdict}" if zh else
                         f"Branch {br['branch']} ({br['condition']}): {br['target']}, arrive about {br['eta']}"
                         + (f", sunset {br.get('sunset')}" if br.get("sunset") else "") + f" → {verdict}")
        elif br["evaluation"] == "NOT_IN_KNOWLEDGE_BASE":
            lines.append(f"分支{br['branch']}（{br['condition']}）：改去「{br['target']}」——知识库（{pack.city}）没有它的资料，无法评估路程和开放时间。"
                         if zh else f"Branch {br['branch']} ({br['condition']}): switch to “{br['target']}” — not in the "
                         f"knowledge base ({pack.city}); travel time and hours cannot be evaluated.")
        elif br["evaluation"] == "NEEDS_TARGET_PLACE":
            lines.append(f"分支{br['branch']}（{br['condition']}）：日落约 {br.get('sunset')}（计算值）；需要知道看日落的地点才能判断能否赶上。"
                         if zh else f"Branch {br['branch']} ({br['condition']}): sunset about {br.get('sunset')} "
                         "(calculated); tell me where you want to watch it to check whether you make it.")
        else:
            lines.append(f"分支{br['branch']}（{br['condition']}）：条件无法计算。" if zh else
                         f"Branch {br['branch']} ({br['condition']}): the condition cannot be computed.")
    state.result.explanations = lines
    state.result.status = "OK"
    if any(br["feasible"] is None for br in branches):
        state.result.next_steps.append("补充看日落的地点或替代目的地的资料。" if zh else
                                       "Name the sunset spot, or give details of the alternative.")


def _run_browse(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    zh = fastpath.zh_text(state.user_input)
    if gates.consent_missing(ctx.request):
        state.result.status = "NEED_CONSENT"
        state.result.error_code = "BROWSER_CONSENT_REQUIRED"
        state.result.explanations = ["需要你的授权才能打开网页核实（设置 allow_webbrowse=true）。未授权前不会访问任何网站。" if zh else
                                     "Browsing needs your consent (allow_webbrowse=true). No website is visited before that."]
        state.result.next_steps = ["allow_webbrowse", "downgrade:knowledge_base"]
        log_decision(state, action="gate.consent", reason_code="BROWSER_CONSENT_REQUIRED", policy_id=POLICY_CONSENT)
        ctx.report("awaiting_consent")
        return
    urls = URL.findall(state.user_input)
    if not urls:
        # An official site recorded in the knowledge base for a place named in the message.
        from core.agent.rag import knowledge_base

        kb = knowledge_base(ctx.provider.region, kb_dir=ctx.settings.kb_dir)
        mentioned = set(mentioned_places(state.user_input, ctx.provider.region))
        urls = [d.facts["url"] for d in kb.index.docs if d.facts.get("url") and d.facts.get("place_id") in mentioned]
    if not urls:
        state.result.status = "NEED_MORE_INFO"
        state.result.explanations = ["请提供要查询的官网链接（仅限允许的网站）。" if zh else
                                     "Please give the official page's URL to check (allowlisted sites only)."]
        log_decision(state, action="gate.consent", reason_code="MISSING_URL", policy_id=POLICY_CONSENT)
        return
    state.react.step += 1
    ctx.report("browsing")
    out = _act(registry, "browser.fetch", {"url": urls[0]}, state, ctx, reason_code="REALTIME_WEB",
               policy_id=POLICY_CONSENT, facts={"domain": re.sub(r"^https?://([^/:]+).*$", r"\1", urls[0])})
    for ev in out.evidence:
        state.result.evidence.append({"type": "web", **ev.model_dump()})
    if out.blocked is not None:
        _browse_blocked(decision, state, ctx, registry, out.blocked)
        return
    if not out.evidence:
        state.result.status = "OK"
        state.result.explanations = ["页面上没有找到可用性、价格或取消政策信息。" if zh else
                                     "The page shows no availability, price or cancellation policy."]
        return
    ev = out.evidence[-1]
    avail = {"available": ("有空位/可订", "available"), "unavailable": ("已满/不可订", "not available"),
             "unknown": ("未说明", "not stated")}[ev.availability][0 if zh else 1]
    price = f"¥{ev.price:g}" if ev.price is not None else ("未标价" if zh else "no price shown")
    cancel = ev.cancellation_policy or ("未说明" if zh else "not stated")
    state.result.explanations = [
        (f"官网信息（{ev.url}）：{avail}；价格 {price}；取消政策：{cancel}。" if zh else
         f"From the site ({ev.url}): {avail}; price {price}; cancellation policy: {cancel}.")
    ]
    state.result.status = "OK"
    log_decision(state, action="browser.fetch", reason_code="EVIDENCE_EXTRACTED", policy_id=POLICY_CONSENT,
                 facts={"availability": ev.availability, "price": ev.price, "steps": out.steps})
    if decision.features.high_risk:  # "book it on the official site": the commit gate takes over
        _issue_dry_run(state, ctx, action="trip.record_commitment",
                       params={"kind": "booking", "url": ev.url, "message_intent": "booking"},
                       evidence=[{"availability": ev.availability, "price": ev.price, "currency": ev.currency,
                                  "cancellation_policy": ev.cancellation_policy, "url": ev.url}])


def _browse_blocked(decision, state, ctx, registry, blocked) -> None:
    zh = fastpath.zh_text(state.user_input)
    state.observability.fallback_used = True
    ctx.telemetry.fallback_triggered(from_route="SYSTEM2_WEBBROWSE", to_route="SYSTEM1_RAG", reason=blocked.blocked_type)
    if blocked.blocked_type == "CAPTCHA":
        state.result.status = "FAILED"
        state.result.error_code = "BROWSER_BLOCKED_CAPTCHA"
        state.result.explanations = [f"网站要求验证码（{blocked.domain}），已停止自动浏览。你可以接管：在浏览器中打开 {blocked.takeover_url} 完成验证；"
                                     "或降级为知识库中的记录（非实时）。" if zh else
                                     f"The site asks for a captcha ({blocked.domain}); automatic browsing stopped. Take over "
                                     f"at {blocked.takeover_url}, or downgrade to the knowledge base's records (not live)."]
        state.result.next_steps = [f"takeover:{blocked.takeover_url}", "downgrade:knowledge_base"]
    elif blocked.blocked_type == "NOT_ALLOWLISTED":
        state.result.status = "FAILED"
        state.result.error_code = "BROWSER_DOMAIN_NOT_ALLOWED"
        state.result.explanations = [f"{blocked.domain} 不在允许访问的网站名单中，未访问。" if zh else
                                     f"{blocked.domain} is not on the allowlist; it was not visited."]
        state.result.next_steps = ["downgrade:knowledge_base"]
    elif blocked.blocked_type == "BUDGET":
        state.result.status = "TIMEOUT"
        state.result.error_code = "BUDGET_EXCEEDED"
        state.result.explanations = ["浏览步数预算用尽。" if zh else "The browser step budget ran out."]
        state.result.next_steps = ["raise:max_browser_steps", f"takeover:{blocked.takeover_url}"]
    else:
        state.result.status = "FAILED"
        state.result.error_code = "TOOL_CALL_FAILED"
        state.result.explanations = [f"无法打开页面（{blocked.detail}）。" if zh else f"The page could not be fetched ({blocked.detail})."]
        state.result.next_steps = ["downgrade:knowledge_base"]
    log_decision(state, action="browser.fetch", reason_code=state.result.error_code or "BLOCKED", policy_id=POLICY_CONSENT,
                 facts={"domain": blocked.domain, "blocked_type": blocked.blocked_type})
    # Downgrade: what the knowledge base knows about the places named (clearly labelled, not live).
    mentioned = mentioned_places(state.user_input, ctx.provider.region)
    for pid in mentioned[:3]:
        p = ctx.provider.region.place_by_id(pid)
        state.result.candidates.append({"place_id": pid, "name": p.name_zh, "opening_hours": p.opening_hours,
                                        "needs_reservation": p.needs_reservation, "source": "knowledge_base", "live": False})


def _run_commit_request(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    """Booking / refund / payment / bulk write: evidence, dry run, NEED_CONFIRMATION. Never silent."""
    zh = fastpath.zh_text(state.user_input)
    state.react.step += 1
    f = decision.features
    if decision.intent == "bulk_write":
        draft = ctx.store.get_trip(ctx.request.trip_id) if ctx.request.trip_id else ctx.store.latest_trip(ctx.request.user_id)
        if draft is None or draft.user_id != ctx.request.user_id:
            state.result.status = "NEED_MORE_INFO"
            state.result.explanations = ["没有找到要批量修改的行程。" if zh else "No trip found to change in bulk."]
            return
        evidence = [{"type": "bulk_write", "op": "clear", "trip_id": draft.trip_id, "nodes_affected": len(draft.nodes),
                     "names": draft.node_names()[:30], "reversible": False}]
        _issue_dry_run(state, ctx, action="trip.apply_user_edit",
                       params={"trip_id": draft.trip_id, "edit": {"op": "clear"}, "region": draft.region}, evidence=evidence)
        state.result.explanations.insert(0, f"将清空行程「{draft.title}」的 {len(draft.nodes)} 个地点。" if zh else
                                         f"This would clear {len(draft.nodes)} places from “{draft.title}”.")
        return
    kind = "refund" if f.refund else "payment" if f.payment else "cancellation" if f.cancel_booking else "booking"
    mentioned = mentioned_places(state.user_input, ctx.provider.region)
    facts = []
    if mentioned:
        out = _act(registry, "places.get_poi_facts", {"place_ids": mentioned[:3]}, state, ctx,
                   reason_code="MISSING_POI_FACTS", policy_id=POLICY_GATE)
        facts = out.pois
    evidence = [{"type": kind, "place": p["name"], "place_id": p["place_id"], "price": p.get("price_per_person"),
                 "needs_reservation": p.get("needs_reservation"), "cancellation_policy": None,
                 "availability": "not_verified", "source": "knowledge_base"} for p in facts]
    if not evidence:
        state.result.status = "NEED_MORE_INFO"
        state.result.explanations = [f"请说明要{ {'booking': '预订', 'refund': '退款', 'payment': '支付', 'cancellation': '取消'}[kind] }的对象（地点、日期、人数）。" if zh else
                                     f"Tell me what the {kind} is for (place, date, party size)."]
        log_decision(state, action="gate.dry_run", reason_code="MISSING_COMMIT_TARGET", policy_id=POLICY_GATE)
        return
    state.result.explanations = [
        (f"未接入{ {'booking': '预订', 'refund': '退款', 'payment': '支付', 'cancellation': '取消'}[kind] }接口：不会自动下单或付款。预演证据来自知识库（价格为人均参考，可订性未核实，取消政策未知）。"
         if zh else f"No {kind} provider is connected: nothing is ordered or paid automatically. The dry run's evidence "
         "comes from the knowledge base (reference price; availability not verified; cancellation policy unknown).")
    ]
    _issue_dry_run(state, ctx, action="trip.record_commitment", params={"kind": kind, "place_ids": mentioned[:3]},
                   evidence=evidence)


def _run_confirmation(state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    zh = fastpath.zh_text(state.user_input)
    state.react.step += 1
    res = gates.confirm(ctx.store, ctx.request, now=ctx.wall_clock())
    if isinstance(res, gates.GateRefusal):
        state.result.status = "FAILED"
        state.result.error_code = "CONFIRMATION_INVALID"
        msg = {"UNKNOWN_ID": ("确认编号无效。", "The confirmation id is not valid."),
               "EXPIRED": ("确认编号已过期，请重新预演。", "The confirmation id has expired; make a new dry run."),
               "ALREADY_USED": ("该确认编号已使用过，不会重复提交。", "That confirmation id was already used; nothing is committed twice."),
               "OTHER_TRIP": ("确认编号与行程不匹配。", "The confirmation id belongs to another trip."),
               "DRY_RUN_ONLY": ("当前为 dry_run 模式，不会提交。", "dry_run is on; nothing is committed.")}[res.reason]
        state.result.explanations = [msg[0 if zh else 1]]
        log_decision(state, action="gate.confirm", reason_code=f"CONFIRMATION_{res.reason}", policy_id=POLICY_GATE)
        return
    log_decision(state, action="gate.confirm", reason_code="CONFIRMED", policy_id=POLICY_GATE, facts={"action": res.action})
    ctx.report("thinking")
    if res.action == "trip.persist_plan":
        p = res.params
        out = _act(registry, "trip.persist_plan", {"dry_run_id": res.dry_run_id, "user_id": res.user_id,
                                                   "trip_id": p.get("trip_id"), "region": p["region"], "days": p["days"],
                                                   "nodes": p["nodes"], "title": p.get("title", "Planned trip")},
                   state, ctx, reason_code="COMMIT_CONFIRMED", policy_id=POLICY_GATE)
        state.memory.user_profile["trip"] = out.trip
        state.result.explanations = [f"已保存到行程 {out.trip['trip_id']}（{len(out.trip['nodes'])} 个地点）。" if zh else
                                     f"Saved to trip {out.trip['trip_id']} ({len(out.trip['nodes'])} places)."]
    elif res.action == "trip.apply_user_edit":  # a confirmed bulk write
        p = res.params
        out = _act(registry, "trip.apply_user_edit", {"user_id": res.user_id, "trip_id": p["trip_id"],
                                                      "edit": p["edit"], "region": p["region"]},
                   state, ctx, reason_code="COMMIT_CONFIRMED", policy_id=POLICY_GATE)
        state.memory.user_profile["trip"] = out.trip
        state.result.explanations = ["已执行批量修改。" if zh else "The bulk change is done."]
    else:
        out = _act(registry, "trip.record_commitment", {"dry_run_id": res.dry_run_id, "user_id": res.user_id,
                                                        "trip_id": res.trip_id, "action": res.action,
                                                        "detail": {"params": res.params, "evidence": res.evidence}},
                   state, ctx, reason_code="COMMIT_CONFIRMED", policy_id=POLICY_GATE)
        state.result.explanations = [f"已记录你的确认（{out.commitment_id}）。系统未接入预订/支付接口，没有实际下单或付款，请按证据中的链接自行完成。"
                                     if zh else f"Your confirmation is recorded ({out.commitment_id}). No booking/payment "
                                     "provider is connected, so nothing was ordered or paid; complete it yourself using the evidence's link."]
    state.result.evidence.extend({"type": "committed", **e} for e in res.evidence)
    state.result.status = "OK"


__all__ = ["route_and_run", "run_react_loop", "build_trip_request", "mentioned_places", "suggest_places"]
