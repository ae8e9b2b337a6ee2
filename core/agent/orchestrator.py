"""The agent's entry point (docs/ARCHITECTURE.md, "Agent"): ``route_and_run`` routes one request (System 1 fast path or the budgeted
System 2) and wires its dependencies (settings, provider, store, telemetry, browser, LLM). The loop lives in
loop.py, the gated flows in flows/, the trip request from a message in trip_request.py."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import ValidationError

from core.agent import fastpath
from core.agent.accounting import RequestCost, calls_since, ledger_size, request_cost
from core.agent.actions.catalog import default_registry
from core.agent.actions.registry import ActionRegistry
from core.agent.actions.spec import ActionError
from core.agent.browse import BrowserExecutor
from core.agent.flows import booking_followup
from core.agent.flows import memory as memory_flow
from core.agent.flows.browse import run_browse
from core.agent.flows.commit import run_commit_request
from core.agent.flows.conditional import run_conditional
from core.agent.flows.confirm import run_confirmation
from core.agent.flows.reservations import run_reservation
from core.agent.loop import run_plan
from core.agent.router import RouterDecision, route_message
from core.agent.state import AgentContext, log_decision, new_state
from core.agent.steps import BudgetExhausted, finish_on_timeout
from core.agent.telemetry import Telemetry
from core.config import Settings
from core.errors import DatabaseUnreachable, InputError, error_from_validation
from core.geo.base import provider_budget
from core.geo.composite import MapServices
from core.i18n import Lang, t
from core.memory.rules import Said, read_message
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
    unique_steps,
)
from core.stores.db import Database

logger = logging.getLogger(__name__)


def route_and_run(
    request: AgentRequest | dict[str, Any],
    *,
    settings: Settings,
    provider: MapServices,
    now: datetime,
    store: Any = None,
    memory: Any = None,
    telemetry: Telemetry | None = None,
    browser: BrowserExecutor | None = None,
    llm: Any = None,
    registry: ActionRegistry | None = None,
    clock: Callable[[], float] | None = None,
    lang: Lang | None = None,
    progress: Callable[[str, str], None] | None = None,
) -> AgentResponse:
    """Route one request and run it (System 1 or the budgeted System 2). Never raises on bad luck:
    failures become a FAILED/TIMEOUT result with an error code; only an invalid request raises.

    ``provider``: the request's view of the process's map services (the composition root's); ``now``: the
    request's moment (a naive one is read in the conversation's zone); ``clock``: the monotonic clock of its
    durations and deadline."""
    t_start = time.perf_counter()
    if not isinstance(request, AgentRequest):
        request = AgentRequest.model_validate(request)
    from core.stores.trips import LazyTripStore

    store = store or LazyTripStore(Database.from_settings(settings))  # opened by the first action that needs it
    telemetry = telemetry or Telemetry(settings.agent_event_log, request_id=request.request_id)
    if telemetry.request_id is None:
        telemetry.request_id = request.request_id
    if llm is None:
        from core.agent.llm import make_llm

        llm = make_llm(settings)
    browser = browser or BrowserExecutor(
        allowlist=settings.browse_allowlist,
        timeout_s=settings.browse_timeout_s,
        max_bytes=settings.browse_max_bytes,
        telemetry=telemetry,
        chromium=settings.browse_chromium,
        evidence_dir=settings.browse_evidence_dir,
    )
    if browser.telemetry is None:
        browser.telemetry = telemetry
    registry = registry or default_registry()
    tz = request.conversation_context.timezone or provider.region.timezone
    try:
        zone = ZoneInfo(tz)
    except Exception:
        zone = ZoneInfo(provider.region.timezone)
    # the face's moment, in the face's zone (core.app passes its context's now)
    moment = now if now.tzinfo is not None else now.replace(tzinfo=zone)
    ctx = AgentContext(
        settings=settings,
        request=request,
        now=moment,
        provider=provider,
        store=store,
        memory=memory,
        telemetry=telemetry,
        llm=llm,
        browser=browser,
        progress=progress,
        lang=lang,
    )
    if clock is not None:
        ctx.clock = clock
    ctx.started = ctx.clock()

    llm_start = ledger_size(llm)  # this request's model calls are the ones after this (the client may be shared)
    arbiter = llm.arbitrate_route if (llm is not None and settings.llm_router_arbitration) else None
    decision = route_message(
        request.message,
        options=request.options,
        settings=settings,
        arbiter=arbiter,
        recent_messages=request.conversation_context.recent_messages,
        lang=lang,
    )
    decision = booking_followup.reroute(
        decision, ctx, lang=lang
    )  # an answer to the user's pending booking continues it
    telemetry.router_decision(
        route=decision.output.route,
        confidence=decision.output.confidence,
        reasons=list(decision.output.reasons),
        router_ms=decision.router_ms,
        intent=decision.intent,
        policy_id=decision.policy_id,
    )
    state = new_state(request, region=provider.region.name, lang=lang)
    state.observability.router_ms = decision.router_ms
    flow: list[str] = [decision.output.ui_hint.status]

    def report(status: str, message: str = "") -> None:
        if flow == ["awaiting_consent"] and status == "browsing":
            # the router saw no consent on the request, the browse flow found this conversation's earlier one:
            # nothing was awaited
            flow[0] = status
        if not flow or flow[-1] != status:
            flow.append(status)
        if progress is not None:
            try:
                progress(status, message)
            except Exception:  # a UI callback must never break the agent
                pass

    ctx.report = report  # type: ignore[method-assign]
    state.react.step = 0
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
    system_mode = "SYSTEM1" if decision.output.route.startswith("SYSTEM1") else "SYSTEM2"
    # what the message says for the memory (我不吃辣 / forget that…): read from the words, kept per user
    said = read_message(request.message) if request.message and not request.options.confirm_dry_run_id else Said()
    remembered: str | None = None
    with provider_budget(settings.provider_budget_s):  # a hanging provider degrades, never stalls
        try:
            if said.remember:
                remembered = memory_flow.remember(said, state, ctx)
            if request.options.confirm_dry_run_id:
                system_mode = "SYSTEM2"
                run_confirmation(state, ctx, registry)
            elif said.forget_asked:
                memory_flow.forget(said, state, ctx)
            elif said.remember and decision.intent == "clarify":  # only a rule stated ("我不吃辣"): nothing to ask
                state.result.status = "READY"
                state.result.explanations = [remembered or t("agent.memory.known", ctx.reply_lang())]
                remembered = None
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
                run_plan(decision, state, ctx, registry)
        except BudgetExhausted as exc:  # any System 2 path (browse, commit, branches) that ran out of budget
            finish_on_timeout(state, ctx, exc)
        except (InputError, ValidationError) as exc:  # something in the message the user can correct (a date, a day)
            error = error_from_validation(exc) if isinstance(exc, ValidationError) else exc
            state.result.status = "NEED_MORE_INFO"
            state.result.error_code = "INVALID_INPUT"
            lang = ctx.reply_lang()
            state.result.explanations = [t("agent.error.invalid_input", lang, message=error.message)]
            log_decision(
                state,
                action="router.clarify",
                reason_code="INVALID_INPUT",
                policy_id="INPUT_CONTRACT",
                facts={"field": error.field},
            )
        except DatabaseUnreachable as exc:  # met outside an action (a confirmation's gate, a flow's own read)
            _database_down(state, ctx)
            telemetry.fallback_triggered(from_route=decision.output.route, to_route="NONE", reason=exc.code)
        except ActionError as exc:
            if _caused_by_database(exc):  # an action met the outage: the outage's one answer, not a tool's failure
                _database_down(state, ctx)
            else:
                state.result.status = "FAILED"
                state.result.error_code = exc.code if exc.code in ERROR_CODES else "TOOL_CALL_FAILED"
                lang = ctx.reply_lang()
                state.result.explanations = [t("agent.error.tool_failed", lang, message=exc.message)]
                state.observability.fallback_used = True
            telemetry.fallback_triggered(
                from_route=decision.output.route, to_route="NONE", reason=state.result.error_code or exc.code
            )
        except Exception:  # the last guard: a bug must still give a structured answer, with a trace id to find the log
            logger.exception("agent request %s failed unexpectedly", request.request_id)
            state.result.status = "FAILED"
            state.result.error_code = "INTERNAL_ERROR"
            lang = ctx.reply_lang()
            state.result.explanations = [t("agent.error.internal", lang, trace=request.request_id)]
            state.observability.fallback_used = True
    if remembered:  # said before the flow's answer: "I'll remember: no spicy food."
        state.result.explanations.insert(0, remembered)
    final = _final_status(state)
    report(final)
    cost = request_cost(calls_since(llm, llm_start), settings)
    response = _response(request, decision, state, flow, system_mode, t_start, cost)
    # a request to forget is not itself kept; nor a fact question (weather, travel time: nothing to recall, and
    # such a question never waits for the database)
    if not said.forget_asked and decision.intent not in FACT_INTENTS:
        memory_flow.keep_turn(ctx, response)
    telemetry.agent_complete(
        status=response.result.status,
        latency_ms=response.observability.latency_ms,
        cost_units=response.observability.cost_units,
        cost_est_usd=response.observability.cost_est_usd,
        cost_currency=response.observability.cost_currency,
        tokens=response.observability.tokens_est,
        model_calls=response.observability.model_calls,
        tool_calls=response.observability.tool_calls,
        browser_steps=response.observability.browser_steps,
        system_mode=system_mode,
        route=decision.output.route,
        scenario=decision.intent,
        error_code=response.result.error_code,
        fallback_used=response.observability.fallback_used,
    )
    return response


#: the intents whose turns are not kept as snippets
FACT_INTENTS = frozenset({"weather", "travel_time", "rag"})


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
            ),
            error_code=state.result.error_code,
            next_steps=unique_steps(state.result.next_steps),
        ),
        explain=Explain(decision_log=state.react.decision_log, status_flow=flow),
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
    state.result.explanations = [t("agent.error.database_unreachable", ctx.reply_lang())]
    state.observability.fallback_used = True


def _clarify(decision: RouterDecision, state: AgentState, ctx: AgentContext) -> None:
    state.result.status = "NEED_MORE_INFO"
    if decision.error_code:
        state.result.error_code = decision.error_code
    lang = ctx.reply_lang(state.user_input)
    state.result.explanations = [decision.question or t("agent.router.tell_more", lang)]
    state.result.next_steps = [NextStep(code="missing", args={"field": m}) for m in decision.missing]
    log_decision(
        state,
        action="router.clarify",
        reason_code="ASK_KEY_FIELDS",
        policy_id="ROUTER_THRESHOLDS",
        facts={"missing": decision.missing, "confidence": decision.output.confidence},
    )


__all__ = ["route_and_run"]
