"""Acting under the budget: policy ids of the decision log, the budget guard, one registered action
per step, the dry run of a commit, and the TIMEOUT result with the best partial answer (docs/ARCHITECTURE.md)."""

from __future__ import annotations

import time
from typing import Any, Literal

from core.agent import fastpath, gates
from core.agent.accounting import spent_usd
from core.agent.actions.names import ActionName
from core.agent.actions.registry import ActionRegistry
from core.agent.actions.spec import ActionError
from core.agent.state import AgentContext, log_decision
from core.i18n import Lang
from core.models.agent import (
    AgentState,
    NextStep,
)
from core.words import agent as words

POLICY_FACTS = "FACTS_FIRST"


POLICY_MATRIX = "MATRIX_BEFORE_OPTIMISE"


POLICY_OPT = "OPTIMISE_AFTER_MATRIX"


POLICY_CHECK = "CHECK_AFTER_OPTIMISE"


POLICY_REPAIR = "REPAIR_ON_CRITIC_FAIL"


POLICY_GATE = "COMMIT_GATE"


POLICY_CONSENT = "CONSENT_GATE"


POLICY_BRANCH = "CONDITIONAL_BRANCHES"


POLICY_BUDGET = "BUDGET_GUARD"


class BudgetExhausted(Exception):
    def __init__(
        self, code: Literal["TIMEOUT_SYSTEM2", "BUDGET_EXCEEDED"], what: str, *, spent_usd: float | None = None
    ):
        super().__init__(what)
        self.code = code
        self.what = what
        #: the USD spent when the cost budget ran out (None: another budget did)
        self.spent_usd = spent_usd


def guard(state: AgentState, ctx: AgentContext, *, action: str) -> None:
    opts = ctx.options
    if ctx.elapsed_s() >= opts.max_seconds:
        raise BudgetExhausted("TIMEOUT_SYSTEM2", f"max_seconds={opts.max_seconds:g} before {action}")
    spent = spent_usd(
        llm=ctx.llm,
        llm_start=ctx.llm_start,
        provider=ctx.provider,
        map_requests_start=ctx.map_requests_start,
        settings=ctx.settings,
    )
    state.observability.spent_usd = spent
    if spent > opts.cost_budget_usd:
        raise BudgetExhausted(
            "BUDGET_EXCEEDED",
            f"cost_budget_usd={opts.cost_budget_usd:g}: {spent:.6f} USD spent before {action}",
            spent_usd=spent,
        )


def act(
    registry: ActionRegistry,
    name: str,
    payload: Any,
    state: AgentState,
    ctx: AgentContext,
    *,
    reason_code: str,
    policy_id: str,
    facts: dict[str, Any] | None = None,
) -> Any:
    """One registry call inside the loop: budget check, call, system2_step event, decision log."""
    guard(state, ctx, action=name)
    t0 = time.perf_counter()
    try:
        out = registry.call(name, payload, state=state, ctx=ctx)
    except ActionError as exc:
        ctx.telemetry.system2_step(
            step=state.react.step,
            action=name,
            ms=(time.perf_counter() - t0) * 1000,
            status="error",
            error_code=exc.code,
        )
        log_decision(
            state,
            action=name,
            reason_code="TOOL_CALL_FAILED",
            policy_id=policy_id,
            facts={**(facts or {}), "error": exc.code},
        )
        raise
    ms = (time.perf_counter() - t0) * 1000
    ctx.telemetry.system2_step(step=state.react.step, action=name, ms=ms, status="ok")
    log_decision(state, action=name, reason_code=reason_code, policy_id=policy_id, facts=facts or {})
    return out


def resolve_entities(
    registry: ActionRegistry, state: AgentState, ctx: AgentContext, names: list[str], *, policy_id: str
) -> Any:
    """The places ``names`` stand for, resolved through the registry (the decision log keeps the first 20 names)."""
    return act(
        registry,
        ActionName.PLACES_RESOLVE_ENTITIES,
        {"names": names},
        state,
        ctx,
        reason_code="UNRESOLVED_ENTITIES",
        policy_id=policy_id,
        facts={"names": names[:20]},
    )


def load_trip_draft(registry: ActionRegistry, state: AgentState, ctx: AgentContext, *, policy_id: str) -> None:
    """The request's trip draft into the state (a request that names a trip plans on what it holds)."""
    act(
        registry,
        ActionName.TRIP_LOAD_DRAFT,
        {"trip_id": ctx.request.trip_id},
        state,
        ctx,
        reason_code="LOAD_TRIP_DRAFT",
        policy_id=policy_id,
    )


def issue_dry_run(
    state: AgentState,
    ctx: AgentContext,
    *,
    action: str,
    params: dict[str, Any],
    evidence: list[dict[str, Any]],
    explain: bool = True,
) -> None:
    """Hold a commit as a dry run until the same user confirms it; ``explain=False`` leaves the words to the caller
    (the reservation flows say it in sentences, without the API's fields)."""
    lang = fastpath.state_lang(state)
    rec = gates.make_dry_run(
        ctx.store,
        ctx.request,
        action=action,
        params=params,
        evidence=evidence,
        now=ctx.now_s(),
        ttl_s=ctx.settings.dry_run_ttl_s,
        lang=lang,
    )
    state.result.dry_run = {
        "dry_run_id": rec.dry_run_id,
        "action": action,
        "evidence": evidence,
        "expires_at": rec.expires_at,
    }
    state.result.evidence.extend({"type": "dry_run", **e} for e in evidence)
    state.result.status = "NEED_CONFIRMATION"
    state.result.next_steps.append(NextStep(code="confirm", args={"dry_run_id": rec.dry_run_id}))
    if explain:
        state.result.explanations.append(_how_to_confirm(rec.dry_run_id, ctx, lang))
    log_decision(
        state,
        action="gate.dry_run",
        reason_code="AWAITING_CONFIRMATION",
        policy_id=POLICY_GATE,
        facts={"action": action, "evidence_items": len(evidence)},
    )
    ctx.report("awaiting_confirmation")


def _how_to_confirm(dry_run_id: str, ctx: AgentContext, lang: Lang) -> str:
    """The preview in words; how to confirm it (its id) is in the response's dry run and next steps, not here."""
    minutes = int(ctx.settings.dry_run_ttl_s // 60)
    return words.preview_line(minutes, lang)


def finish_on_timeout(state: AgentState, ctx: AgentContext, exc: BudgetExhausted) -> None:
    """Budget exhausted: TIMEOUT with the best partial result, fallback_used and next steps."""
    state.result.status = "TIMEOUT"
    state.result.error_code = exc.code
    state.observability.fallback_used = True
    partial = "none"
    c = state.compute
    if c.day_plans and c.problem is not None:
        for p in c.day_plans:
            for i, k in enumerate(p.order):
                state.result.timeline.append(
                    {
                        "day": p.day_index + 1,
                        "kind": "visit",
                        "key": k,
                        "name": c.problem.stop(k).name,
                        "order": i + 1,
                        "verified": False,
                    }
                )
        partial = "unverified_day_orders"
    elif c.clusters is not None and c.problem is not None:
        for a in c.clusters.days:
            for k in a.keys:
                state.result.timeline.append(
                    {
                        "day": a.day_index + 1,
                        "kind": "visit",
                        "key": k,
                        "name": c.problem.stop(k).name,
                        "verified": False,
                    }
                )
        partial = "day_clusters"
    elif state.memory.semantic_facts.pois:
        state.result.candidates.extend(
            {"place_id": p["place_id"], "name": p["name"], "opening_hours": p["opening_hours"]}
            for p in state.memory.semantic_facts.pois
        )
        partial = "poi_facts"
    log_decision(
        state,
        action="orchestrator.fallback",
        reason_code=exc.code,
        policy_id=POLICY_BUDGET,
        facts={"partial": partial, "steps": state.react.step}
        | ({"spent_usd": round(exc.spent_usd, 6), "budget_usd": ctx.options.cost_budget_usd} if exc.spent_usd else {}),
    )
    ctx.telemetry.fallback_triggered(from_route="SYSTEM2_REASONING", to_route="SYSTEM1_PARTIAL", reason=exc.code)
    lang = fastpath.state_lang(state)
    state.result.explanations = [
        words.cost_budget_sentence(partial, lang, spent_usd=exc.spent_usd, budget_usd=ctx.options.cost_budget_usd)
        if exc.spent_usd is not None
        else words.timeout_sentence(partial, lang)
    ]
    state.result.next_steps += [
        NextStep(code="retry_more_time"),
        NextStep(code="plan_less"),
        NextStep(code="ask_one_by_one"),
    ]
