"""The agent's entry point (docs/ARCHITECTURE.md, "Agent"): ``route_and_run`` routes one request (System 1 fast path or the budgeted
System 2) on the dependencies the composition root hands it (core/agent/deps.py). The loop lives in
loop.py, the gated flows in flows/, the trip request from a message in trip_request.py."""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import ValidationError

from core.agent import fastpath
from core.agent.accounting import (
    RequestCost,
    calls_since,
    ledger_size,
    map_request_price_usd,
    map_services_names,
    request_cost,
)
from core.agent.actions.registry import ActionRegistry
from core.agent.actions.spec import ActionError
from core.agent.deps import AgentDeps
from core.agent.flows import booking_followup
from core.agent.flows import memory as memory_flow
from core.agent.flows.browse import run_browse
from core.agent.flows.commit import run_commit_request
from core.agent.flows.conditional import run_conditional
from core.agent.flows.confirm import run_confirmation
from core.agent.flows.plan_draft import keep_plan_as_draft
from core.agent.flows.reservations import run_reservation
from core.agent.language import conversation_lang, keep_conversation_lang
from core.agent.loop import run_react_loop
from core.agent.router import POLICY_LLM, RouterDecision, route_message
from core.agent.state import AgentContext, log_decision, new_state
from core.agent.steps import BudgetExhausted, finish_on_timeout
from core.agent.telemetry import Telemetry
from core.clock import monotonic
from core.errors import DatabaseUnreachable, InputError, error_from_validation
from core.geo.composite import MapServices
from core.i18n import Lang
from core.memory.rules import read_message
from core.models.agent import (
    ERROR_CODES,
    AgentRequest,
    AgentResponse,
    AgentResult,
    AgentState,
    Explain,
    NextStep,
    Observability,
    Payload,
    UiHint,
    state_facts,
    unique_steps,
)
from core.models.rules import Said
from core.words import agent as agent_words

logger = logging.getLogger(__name__)


def route_and_run(
    request: AgentRequest | dict[str, Any],
    deps: AgentDeps,
    *,
    now: datetime,
    lang: Lang | None = None,
    clock: Callable[[], float] = monotonic,
    progress: Callable[[str, str], None] | None = None,
    scope: ScopeNote | None = None,
) -> AgentResponse:
    """Route one request and run it (System 1 or the budgeted System 2). Never raises on bad luck:
    failures become a FAILED/TIMEOUT result with an error code; only an invalid request raises.

    ``deps``: what it runs on (the composition root's, ``core.app.agent.agent_deps``); ``now``: the request's moment
    (a naive one is read in the conversation's zone); ``lang``: the language the face gave (None: the
    conversation's, kept in the database, else the message's; core/agent/language.py); ``clock``: the monotonic
    clock of its durations and deadline; ``progress(status, message)``: a face's progress line; ``scope``: what
    the message names against the installed regions, read by the use case (a switch is said first; a place no
    region covers is refused with ``REGION_NOT_COVERED``, nothing is run)."""
    t_start = time.perf_counter()
    if not isinstance(request, AgentRequest):
        request = AgentRequest.model_validate(request)
    if deps.telemetry.request_id is None:
        deps.telemetry.request_id = request.request_id
    if deps.browser.telemetry is None:
        deps.browser.telemetry = deps.telemetry
    flow: list[str] = []
    given = lang
    lang = conversation_lang(request, deps.store, given=given)  # one language per conversation
    ctx = _context(request, deps, now=now, lang=lang, clock=clock, progress=_flow_tracker(flow, progress))
    ctx.started = ctx.clock()
    llm_start = ledger_size(deps.llm)  # this request's model calls are the ones after this (the client may be shared)
    ctx.llm_start, ctx.map_requests_start = llm_start, deps.provider.remote_requests()
    state = new_state(request, region=deps.provider.region.name, lang=lang)
    decision = _route(request, ctx, state)
    state.observability.router_ms = decision.router_ms
    flow.append(decision.output.ui_hint.status)
    _log_route(state, decision)
    # what the message says for the memory (我不吃辣 / forget that…): read from the words, kept per user
    said = read_message(request.message) if request.message and not request.options.confirm_dry_run_id else Said()
    with deps.provider.budget(deps.settings.provider_budget_s):  # a hanging provider degrades, never stalls
        if scope is not None and _refused(scope, decision):  # never a plan of another city than the one named
            system_mode, remembered = _out_of_scope(scope, state), None
        else:
            system_mode, remembered = _run_guarded(decision, said, state, ctx, deps.registry)
    if scope is not None and not _refused(scope, decision):  # a switch, or a knowledge answer: the scope said first
        _scope_said(scope, state)
    if remembered:  # said before the flow's answer: "I'll remember: no spicy food."
        state.result.explanations.insert(0, remembered)
    _router_warning(state, decision)
    ctx.report(_final_status(state))
    cost = request_cost(
        calls_since(deps.llm, llm_start),
        deps.settings,
        map_requests=deps.provider.remote_requests() - ctx.map_requests_start,
        map_price_usd=map_request_price_usd(map_services_names(deps.provider), deps.settings),
    )
    response = _response(request, decision, state, flow, system_mode, t_start, cost)
    # a request to forget is not itself kept; nor a fact question (weather, travel time: nothing to recall, and
    # such a question never waits for the database)
    if not said.forget_asked and decision.intent not in FACT_INTENTS:
        memory_flow.keep_turn(ctx, response)
        if response.result.error_code != "DATABASE_UNREACHABLE":  # a write would make the person wait again
            keep_conversation_lang(request, deps.store, given=given, used=lang, now_s=ctx.now_s())
    _log_complete(deps.telemetry, response, decision, system_mode)
    return response


def _context(
    request: AgentRequest,
    deps: AgentDeps,
    *,
    now: datetime,
    lang: Lang | None,
    clock: Callable[[], float],
    progress: Callable[[str, str], None],
) -> AgentContext:
    """The request's context: what the root handed down, the request's moment and language."""
    return AgentContext(
        settings=deps.settings,
        request=request,
        now=_moment(now, request, deps.provider),
        provider=deps.provider,
        database=deps.database,
        reservations=deps.reservations,
        store=deps.store,
        memory=deps.memory,
        telemetry=deps.telemetry,
        llm=deps.llm,
        browser=deps.browser,
        progress=progress,
        lang=lang,
        clock=clock,
    )


def _moment(now: datetime, request: AgentRequest, provider: MapServices) -> datetime:
    """The face's moment, in the face's zone (core.app passes its context's now); a naive one in the conversation's
    zone (else the region's)."""
    if now.tzinfo is not None:
        return now
    try:
        zone = ZoneInfo(request.conversation_context.timezone or provider.region.timezone)
    except Exception:
        zone = ZoneInfo(provider.region.timezone)
    return now.replace(tzinfo=zone)


def _flow_tracker(flow: list[str], progress: Callable[[str, str], None] | None) -> Callable[[str, str], None]:
    """The request's progress: each new status is kept in ``flow`` (the response's status flow), then the face is
    told (``AgentContext.report`` keeps a failing face callback from breaking the agent)."""

    def report(status: str, message: str = "") -> None:
        if flow == ["awaiting_consent"] and status == "browsing":
            # the router saw no consent on the request, the browse flow found this conversation's earlier one:
            # nothing was awaited
            flow[0] = status
        if not flow or flow[-1] != status:
            flow.append(status)
        if progress is not None:
            progress(status, message)

    return report


def _route(request: AgentRequest, ctx: AgentContext, state: AgentState) -> RouterDecision:
    """The router's decision on the message (a pending booking's answer continues it), logged as an event."""
    arbiter = ctx.llm.arbitrate_route if (ctx.llm is not None and ctx.settings.llm_router_arbitration) else None
    decision = route_message(
        request.message,
        options=request.options,
        settings=ctx.settings,
        arbiter=arbiter,
        recent_messages=request.conversation_context.recent_messages,
        lang=ctx.lang,
    )
    decision = booking_followup.reroute(decision, ctx, state, lang=ctx.lang)
    if request.options.confirm_dry_run_id:  # no words to route: the button's confirmation is carried out
        decision = _confirming(decision, ctx.reply_lang())
    if decision.arbiter_failure is not None:
        ctx.telemetry.fallback_triggered(
            from_route="LLM_ARBITRATION", to_route=decision.output.route, reason=decision.arbiter_failure
        )
    ctx.telemetry.router_decision(
        route=decision.output.route,
        confidence=decision.output.confidence,
        reasons=list(decision.output.reasons),
        router_ms=decision.router_ms,
        intent=decision.intent,
        policy_id=decision.policy_id,
    )
    return decision


def _log_route(state: AgentState, decision: RouterDecision) -> None:
    state.react.step = 0
    if decision.arbiter_failure is not None:  # the model's verdict was unreadable: said, with the fallback it took
        state.observability.fallback_used = True
        log_decision(
            state,
            action="router.arbitrate",
            reason_code=decision.arbiter_failure,
            policy_id=POLICY_LLM,
            facts={"fallback": decision.policy_id, "route": decision.output.route},
        )
    log_decision(
        state,
        action="router.route",
        reason_code=decision.reason_code,
        policy_id=decision.policy_id,
        facts={
            "route": decision.output.route,
            "confidence": decision.output.confidence,
            "intent": decision.intent,
            **decision.features.as_facts(),
        },
    )


def _confirming(decision: RouterDecision, lang: Lang) -> RouterDecision:
    """A confirmation by its dry run's id has no message: the router's "tell me the date, the party…" (read from
    the empty text) would be said beside a booking made. It says what happens instead: the confirmed action."""
    hint = UiHint(mode="slow", status="thinking", message=agent_words.router_message("confirming", lang))
    reasons = [r for r in decision.output.reasons if r != "MISSING_INFO"]
    output = decision.output.model_copy(update={"ui_hint": hint, "reasons": reasons})
    return dataclasses.replace(decision, output=output, question=None, question_kind="execute")


def _router_warning(state: AgentState, decision: RouterDecision) -> None:
    """The router's own failure is the answer's error code when the flow met none of its own (a warning: the
    answer stands on the feature score's route)."""
    if decision.arbiter_failure is not None and state.result.error_code is None:
        state.result.error_code = decision.arbiter_failure


def _system_mode(decision: RouterDecision, ctx: AgentContext) -> str:
    confirming = bool(ctx.request.options.confirm_dry_run_id)
    return "SYSTEM1" if decision.output.route.startswith("SYSTEM1") and not confirming else "SYSTEM2"


def _dispatch(
    decision: RouterDecision,
    said: Said,
    state: AgentState,
    ctx: AgentContext,
    registry: ActionRegistry,
    *,
    remembered: str | None,
) -> tuple[str, str | None]:
    """Run the flow the decision names: the system mode it ran in, and what was remembered from the message, to say
    before the answer (None: nothing, or it is the answer itself)."""
    system_mode = _system_mode(decision, ctx)
    if ctx.request.options.confirm_dry_run_id:
        run_confirmation(state, ctx, registry)
        return "SYSTEM2", remembered
    if said.forget_asked:
        memory_flow.forget(said, state, ctx)
    elif said.remember and decision.intent == "clarify":  # only a rule stated ("我不吃辣"): nothing to ask
        state.result.status = "READY"
        state.result.explanations = [remembered or agent_words.rules_known_sentence(ctx.reply_lang())]
        return system_mode, None
    elif decision.intent == "clarify" or decision.question_kind == "ask":
        _clarify(decision, state, ctx)
    elif decision.intent in ("trip_edit", "weather", "travel_time", "rag"):
        if decision.question_kind == "approximate" and decision.question and decision.intent == "trip_edit":
            _clarify(decision, state, ctx)
        else:
            fastpath.handle(decision, state, ctx, registry)
    elif decision.intent == "browse":
        run_browse(decision, state, ctx, registry)
    elif decision.intent in ("book", "cancel", "list"):
        run_reservation(decision, state, ctx, registry)
    elif decision.intent in ("commit", "bulk_write"):
        run_commit_request(decision, state, ctx, registry)
    elif decision.intent == "conditional":
        run_conditional(decision, state, ctx, registry)
    else:
        memory_flow.recall(state, ctx)
        run_react_loop(decision, state, ctx, registry)
        keep_plan_as_draft(state, ctx, registry)  # the next edit ("把外滩删掉") edits this plan
    return system_mode, remembered


def _run_guarded(
    decision: RouterDecision, said: Said, state: AgentState, ctx: AgentContext, registry: ActionRegistry
) -> tuple[str, str | None]:
    """``_dispatch`` with every failure turned into the result's structured answer (nothing raises past here); a
    rule remembered before a failure is still said."""
    remembered: str | None = None
    try:
        if said.remember:
            remembered = memory_flow.remember(said, state, ctx)
        return _dispatch(decision, said, state, ctx, registry, remembered=remembered)
    except BudgetExhausted as exc:  # any System 2 path (browse, commit, branches) that ran out of budget
        finish_on_timeout(state, ctx, exc)
    except (InputError, ValidationError) as exc:  # something in the message the user can correct (a date, a day)
        error = error_from_validation(exc) if isinstance(exc, ValidationError) else exc
        state.result.status = "NEED_MORE_INFO"
        state.result.error_code = "INVALID_INPUT"
        state.result.explanations = [agent_words.input_error_sentence(error.details, error.message, ctx.reply_lang())]
        log_decision(
            state,
            action="router.clarify",
            reason_code="INVALID_INPUT",
            policy_id="INPUT_CONTRACT",
            facts={"field": error.field},
        )
    except DatabaseUnreachable as exc:  # met outside an action (a confirmation's gate, a flow's own read)
        _database_down(state, ctx)
        ctx.telemetry.fallback_triggered(from_route=decision.output.route, to_route="NONE", reason=exc.code)
    except ActionError as exc:
        if _caused_by_database(exc):  # an action met the outage: the outage's one answer, not a tool's failure
            _database_down(state, ctx)
        else:
            state.result.status = "FAILED"
            state.result.error_code = exc.code if exc.code in ERROR_CODES else "TOOL_CALL_FAILED"
            state.result.explanations = [agent_words.tool_error_sentence(exc.details, exc.message, ctx.reply_lang())]
            logger.info("request %s: a step failed: %s", ctx.request.request_id, exc.message)
            state.observability.fallback_used = True
        ctx.telemetry.fallback_triggered(
            from_route=decision.output.route, to_route="NONE", reason=state.result.error_code or exc.code
        )
    except Exception:  # the last guard: a bug must still give a structured answer, with a trace id to find the log
        logger.exception("agent request %s failed unexpectedly", ctx.request.request_id)
        state.result.status = "FAILED"
        state.result.error_code = "INTERNAL_ERROR"
        state.result.explanations = [
            agent_words.error_sentence("internal", ctx.reply_lang(), trace=ctx.request.request_id)
        ]
        state.observability.fallback_used = True
    return _system_mode(decision, ctx), remembered


def _log_complete(telemetry: Telemetry, response: AgentResponse, decision: RouterDecision, system_mode: str) -> None:
    obs = response.observability
    telemetry.agent_complete(
        status=response.result.status,
        latency_ms=obs.latency_ms,
        cost_units=obs.cost_units,
        cost_est_usd=obs.cost_est_usd,
        cost_currency=obs.cost_currency,
        tokens=obs.tokens_est,
        model_calls=obs.model_calls,
        tool_calls=obs.tool_calls,
        browser_steps=obs.browser_steps,
        system_mode=system_mode,
        route=decision.output.route,
        scenario=decision.intent,
        error_code=response.result.error_code,
        fallback_used=obs.fallback_used,
    )


#: the intents whose turns are not kept as snippets
FACT_INTENTS = frozenset({"weather", "travel_time", "rag"})


@dataclass(frozen=True, kw_only=True)
class ScopeNote:
    """The message's scope as the use case read it (core/app/scope.py): its verdict, its sentence in the reply's
    language, and its facts (flat values: the place named, the regions)."""

    verdict: Literal["IN_REGION", "SWITCH", "NOT_COVERED"]
    sentence: str
    facts: dict[str, str] = field(default_factory=dict)


def _out_of_scope(scope: ScopeNote, state: AgentState) -> str:
    """The answer to a message naming a place no installed region covers: FAILED, ``REGION_NOT_COVERED``, the
    sentence that says what is covered and what to do."""
    state.result.status = "FAILED"
    state.result.error_code = "REGION_NOT_COVERED"
    state.result.explanations = [scope.sentence]
    log_decision(state, action="scope.refuse", reason_code="REGION_NOT_COVERED", policy_id="SCOPE", facts=scope.facts)
    return "SYSTEM1"


def _refused(scope: ScopeNote, decision: RouterDecision) -> bool:
    """A message naming a place no installed region covers is refused, unless it is a question to the knowledge
    base: that answers from what it holds, and says when it holds nothing (the QA set's 推荐新宿拉面), after the
    scope's sentence; or a conditional request, whose branch naming the place is answered as not covered (never
    planned) while the other branch is evaluated (flows/conditional.py)."""
    return (
        scope.verdict == "NOT_COVERED" and decision.output.route != "SYSTEM1_RAG" and decision.intent != "conditional"
    )


def _scope_said(scope: ScopeNote, state: AgentState) -> None:
    switched = scope.verdict == "SWITCH"
    state.result.explanations.insert(0, scope.sentence)
    reason = "REGION_SWITCHED" if switched else "REGION_NOT_COVERED"
    log_decision(state, action="scope.note", reason_code=reason, policy_id="SCOPE", facts=scope.facts)


def _final_status(state: AgentState) -> str:
    return {
        "READY": "done",
        "OK": "done",
        "DRAFT": "done",
        "NEEDS_REVIEW": "done",  # the answer is given; its status says it needs the person's review
        "NEED_MORE_INFO": "done",
        "NEED_CONSENT": "awaiting_consent",
        "NEED_CONFIRMATION": "awaiting_confirmation",
        "FAILED": "failed",
        "TIMEOUT": "failed",
    }[state.result.status]


def _response(
    request: AgentRequest,
    decision: RouterDecision,
    state: AgentState,
    flow: list[str],
    system_mode: str,
    t_start: float,
    cost: RequestCost,
) -> AgentResponse:
    status = "OK" if state.result.status in ("READY", "DRAFT") else state.result.status
    latency = (time.perf_counter() - t_start) * 1000
    obs = state.observability
    return AgentResponse(
        request_id=request.request_id,
        route=decision.output,
        result=AgentResult(
            status=status,
            answer_text="\n".join(state.result.explanations),
            payload=Payload(
                timeline=state.result.timeline,
                dropped_items=state.result.dropped_items,
                candidates=state.result.candidates,
                evidence=state.result.evidence,
                robustness=_robustness_payload(state),
                branches=state.result.branches,
                dry_run=state.result.dry_run,
                trip=state.memory.user_profile.get("trip"),
                wishes=state.result.wishes,
            ),
            error_code=state.result.error_code,
            next_steps=unique_steps(state.result.next_steps),
        ),
        explain=Explain(decision_log=state.react.decision_log, status_flow=flow, state=state_facts(state)),
        observability=Observability(
            latency_ms=round(latency, 3),
            router_ms=round(decision.router_ms, 3),
            system_mode=system_mode,
            tool_calls=obs.tool_calls,
            browser_steps=obs.browser_steps,
            tokens_est=cost.tokens,
            cost_est_usd=cost.money,
            fallback_used=obs.fallback_used,
            cost_units=round(obs.cost_units, 6),
            cost_currency=cost.currency,
            spent_usd=cost.spent_usd,
            model_calls=cost.model_calls,
            paid_services=cost.paid_services,
        ),
    )


def _robustness_payload(state: AgentState) -> dict[str, Any]:
    rob = state.compute.robustness
    if rob is None:
        return {}
    return rob.model_dump(mode="json") if hasattr(rob, "model_dump") else dict(rob)


def _caused_by_database(exc: ActionError) -> bool:
    details = exc.details if isinstance(exc.details, dict) else {}
    return details.get("cause") == DatabaseUnreachable.code or isinstance(exc.__cause__, DatabaseUnreachable)


def _database_down(state: AgentState, ctx: AgentContext) -> None:
    """The database cannot serve the request: one answer, ``FAILED`` with ``DATABASE_UNREACHABLE``."""
    state.result.status = "FAILED"
    state.result.error_code = "DATABASE_UNREACHABLE"
    state.result.explanations = [agent_words.error_sentence("database_unreachable", ctx.reply_lang())]
    state.observability.fallback_used = True


def _clarify(decision: RouterDecision, state: AgentState, ctx: AgentContext) -> None:
    state.result.status = "NEED_MORE_INFO"
    if decision.error_code:
        state.result.error_code = decision.error_code
    lang = ctx.reply_lang(state.user_input)
    state.result.explanations = [decision.question or agent_words.tell_more(lang)]
    state.result.next_steps = [NextStep(code="missing", args={"field": m}) for m in decision.missing]
    log_decision(
        state,
        action="router.clarify",
        reason_code="ASK_KEY_FIELDS",
        policy_id="ROUTER_THRESHOLDS",
        facts={"missing": decision.missing, "confidence": decision.output.confidence},
    )


__all__ = ["ScopeNote", "route_and_run"]
