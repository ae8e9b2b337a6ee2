"""System 2's ReAct loop: Plan -> Act -> Observe -> Critic -> Repair over registered actions.

- **Plan** is a deterministic policy: the first phase whose output is missing from the state
  (facts first, then the matrix, then optimise, then check; repair when the critic fails).
- **Act** runs the phase's actions through the registry (validated, logged, counted).
- **Observe** appends compact observations; every step appends ``{step, chosen_action, reason_code, facts,
  policy_id}`` to the decision log (codes and values, never prose).
- **Critic** is the itinerary critic (core/itinerary/assembly.py, the same as the itinerary page).
- **Repair** moves or drops what the critic or the optimiser could not fit, within the budget.

The plan made, core/agent/plan_reply.py words it as the reply (``finish_plan``).
"""

from __future__ import annotations

from core.agent import proposal
from core.agent.actions.names import ActionName
from core.agent.actions.registry import ActionRegistry
from core.agent.flows import memory as memory_flow
from core.agent.plan_reply import finish_plan, nothing_to_plan
from core.agent.proposal import Phase
from core.agent.router import RouterDecision
from core.agent.state import AgentContext, log_decision
from core.agent.steps import (
    POLICY_CHECK,
    POLICY_FACTS,
    POLICY_MATRIX,
    POLICY_OPT,
    POLICY_REPAIR,
    BudgetExhausted,
    act,
    finish_on_timeout,
    guard,
    load_trip_draft,
    resolve_entities,
)
from core.agent.suggestion_fit import MAX_CANDIDATES, fitting_replacements
from core.agent.trip_request import (
    PLACES_PER_DAY,
    build_trip_request,
    matches_preferences,
    mentioned_places,
    read_trip,
    suggest_places,
    suggestion_room,
)
from core.agent.wish_cover import wished_suggestions
from core.itinerary.balance import plans_are_even
from core.models.agent import AgentState
from core.models.common import PRIORITY_RANK


def _next_phase(state: AgentState, repair_pending: bool) -> Phase | None:
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
    """Plan → Act → Observe → Critic → Repair until READY / FAILED / TIMEOUT: one phase a step (``_next_phase``)."""
    opts = ctx.options
    repair_pending = False
    repairs = 0
    try:
        while True:
            planned = _next_phase(state, repair_pending)  # the model may propose another step, within the rules
            phase = planned and proposal.next_phase(state, ctx, registry, planned=planned, may_repair=repairs < 2)
            if phase in (None, "finish"):
                break
            if state.react.step >= opts.max_steps:
                raise BudgetExhausted("BUDGET_EXCEEDED", f"max_steps={opts.max_steps}")
            guard(state, ctx, action=phase)
            state.react.step += 1
            reason, policy = _phase_reason(phase)
            if phase == "facts":
                if not _gather_facts(decision, state, ctx, registry, reason=reason, policy=policy):
                    return  # nothing to plan: the person was asked
            elif phase == "matrix":
                _measure(decision, state, ctx, registry, reason=reason, policy=policy)
            elif phase == "optimise":
                _optimise(state, ctx, registry, reason=reason, policy=policy)
            elif phase == "check":
                passed = _check(state, ctx, registry, reason=reason, policy=policy)
                repair_pending = not passed and repairs < 2
            elif phase == "repair":
                ctx.report("repairing")
                repairs += 1
                repair_pending = False
                _repair_from_critic(state, ctx, registry)
        finish_plan(state, ctx, registry)
    except BudgetExhausted as exc:
        finish_on_timeout(state, ctx, exc)


def _gather_facts(
    decision: RouterDecision,
    state: AgentState,
    ctx: AgentContext,
    registry: ActionRegistry,
    *,
    reason: str,
    policy: str,
) -> bool:
    """The places of the plan (the draft's, those the message names, suggestions for the days left) and their
    facts. False: there is nothing to plan (the person is asked what to see)."""
    pack = ctx.provider.region
    ctx.report("thinking")
    if ctx.request.trip_id:
        load_trip_draft(registry, state, ctx, policy_id=policy)
    mentioned = mentioned_places(state.user_input, pack)
    if mentioned:
        names = [pp.name_zh for p in mentioned if (pp := pack.place_by_id(p))]  # all the pack's own
        resolve_entities(registry, state, ctx, list(dict.fromkeys(names)), policy_id=policy)
        # the places named stay the pack's own, whatever the provider's look-up gave: AMap's geocodes carry no POI id
        # and its search ids are AMap's, so reading ids off its answer dropped a place the person named (issue 31)
    state.memory.user_profile["mentioned"] = mentioned
    suggested = _suggest(decision, state, ctx, mentioned)
    ids = [p for p in [*(n.get("place_id") for n in state.draft.nodes), *mentioned, *suggested] if p]
    if not ids:
        nothing_to_plan(state)
        return False
    act(
        registry,
        ActionName.PLACES_GET_POI_FACTS,
        {"place_ids": list(dict.fromkeys(ids))},
        state,
        ctx,
        reason_code=reason,
        policy_id=policy,
        facts={"mentioned": len(mentioned), "suggested": len(suggested), "draft": len(state.draft.nodes)},
    )
    return True


def _suggest(decision: RouterDecision, state: AgentState, ctx: AgentContext, mentioned: list[str]) -> list[str]:
    """Suggestions for the days the person did not fill (none for a day they filled: issue 22 §1), and the pool of
    the same search's other matching places that can stand in for one that does not fit (suggestion_fit)."""
    pack = ctx.provider.region
    have = {n.get("place_id") for n in state.draft.nodes} | set(mentioned)
    days = decision.features.days or state.trip.days or 1
    said = read_trip(state.user_input, pack)
    want = max(0, PLACES_PER_DAY * days - len(have - {None}))
    if said.day_places:
        want = suggestion_room(said, days=days, have=len(have - {None}))
    rules = memory_flow.rules_for(ctx, state) if want else []
    ranked = (
        suggest_places(
            pack, text=state.user_input, count=want + MAX_CANDIDATES, exclude=have, rules=rules, when=ctx.now
        )
        if want
        else []
    )
    suggested = wished_suggestions(pack, state, mentioned, ranked=ranked, want=want, days=days, rules=rules)
    state.memory.user_profile["suggested"] = suggested
    state.memory.user_profile.pop("suggestions_swapped", None)  # a new request may swap again
    state.memory.user_profile["suggestion_pool"] = [
        p for p in ranked if p not in suggested and matches_preferences(pack, p, state.user_input)
    ]
    return suggested


def _measure(
    decision: RouterDecision,
    state: AgentState,
    ctx: AgentContext,
    registry: ActionRegistry,
    *,
    reason: str,
    policy: str,
) -> None:
    """The trip's problem, its travel-time matrix and the pacing's robust times."""
    trip_request = build_trip_request(decision, state, ctx)
    act(
        registry,
        ActionName.ITINERARY_PREPARE_PROBLEM,
        {"request": trip_request},
        state,
        ctx,
        reason_code="MISSING_PROBLEM",
        policy_id=policy,
        facts={"days": len(trip_request["days"]), "places": len(trip_request["places"])},
    )
    m = act(
        registry,
        ActionName.TRANSPORT_BUILD_TIME_MATRIX,
        {"mode": trip_request["mode"]},
        state,
        ctx,
        reason_code=reason,
        policy_id=policy,
    )
    r = act(
        registry,
        ActionName.TRANSPORT_APPLY_ROBUSTNESS_POLICY,
        {"pacing": trip_request["pacing"]},
        state,
        ctx,
        reason_code="MISSING_ROBUST_TIMES",
        policy_id=policy,
        facts={"points": m.points, "source": m.source},
    )
    state.react.observations.append(
        {"phase": "matrix", "points": m.points, "factor": r.factor, "buffer_min": r.buffer_min, "source": m.source}
    )


def _optimise(state: AgentState, ctx: AgentContext, registry: ActionRegistry, *, reason: str, policy: str) -> None:
    """Days clustered, each day ordered, dropped stops repaired across days, uneven days balanced; suggestions that
    do not fit are swapped (the next phases then plan again)."""
    ctx.report("thinking")
    cl = act(
        registry,
        ActionName.ITINERARY_CLUSTER_DAYS_BALANCED,
        {},
        state,
        ctx,
        reason_code="MISSING_CLUSTERS",
        policy_id=policy,
    )
    opt = act(
        registry,
        ActionName.ITINERARY_OPTIMIZE_DAY_VRPTW,
        {},
        state,
        ctx,
        reason_code=reason,
        policy_id=policy,
        facts={"days": len(cl.days), "unassignable": cl.unassignable},
    )
    dropped = [k for v in opt.dropped.values() for k in v]
    if dropped:
        ctx.report("repairing")
        rep = act(
            registry,
            ActionName.ITINERARY_REPAIR_CROSS_DAY,
            {},
            state,
            ctx,
            reason_code="DROPPED_STOPS",
            policy_id=POLICY_REPAIR,
            facts={"dropped": dropped[:20]},
        )
        state.react.observations.append({"phase": "repair", "moves": len(rep.moves)})
    visits = [len(p.order) for p in state.compute.day_plans]
    if not plans_are_even(state.compute.day_plans):
        bal = act(
            registry,
            ActionName.ITINERARY_REBALANCE_DAYS,
            {},
            state,
            ctx,
            reason_code="UNEVEN_DAYS",
            policy_id=policy,
            facts={"visits": visits},
        )
        state.react.observations.append({"phase": "balance", "moves": len(bal.moves)})
    _swap_unfit_suggestions(state, ctx, registry)  # True: planned again with the suggestions that fit


def _check(state: AgentState, ctx: AgentContext, registry: ActionRegistry, *, reason: str, policy: str) -> bool:
    """The critic's verdict on the plan (feasibility, robustness, the checks): True when it passed."""
    ctx.report("verifying")
    v = act(registry, ActionName.POLICY_VALIDATE_FEASIBILITY, {}, state, ctx, reason_code=reason, policy_id=policy)
    s = act(
        registry, ActionName.POLICY_SCORE_ROBUSTNESS, {}, state, ctx, reason_code="SCORE_ROBUSTNESS", policy_id=policy
    )
    c = act(
        registry,
        ActionName.POLICY_CHECK_ITINERARY,
        {},
        state,
        ctx,
        reason_code="CRITIC_CHECK",
        policy_id=policy,
        facts={"infeasible_hard": v.infeasible_hard, "robustness": s.score},
    )
    ctx.telemetry.critic_result(
        passed=c.passed, violations=c.violations, min_slack=c.min_slack, total_wait=c.total_wait
    )
    state.react.observations.append({"phase": "critic", "passed": c.passed, "violations": c.violations})
    return bool(c.passed)


def _swap_unfit_suggestions(state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> bool:
    """Once per request: the agent's own suggestions the plan dropped give way to other candidates of the same
    search that fit a day (suggestion_fit.fitting_replacements); True when the trip is to be planned again. Places
    the person named are never swapped: they stay dropped with their reason and fix."""
    profile = state.memory.user_profile
    suggested = profile.get("suggested", [])
    if "suggestions_swapped" in profile or not suggested:
        return False
    dropped = [k for p in state.compute.day_plans for k in p.dropped if k in suggested]
    if not dropped:
        return False
    swap = fitting_replacements(
        state.compute.trip_request,
        state.compute.day_plans,
        dropped=dropped,
        candidates=profile.get("suggestion_pool", []),
        provider=ctx.provider,
        settings=ctx.settings,
    )
    profile["suggestions_swapped"] = {"dropped": swap.dropped, "added": list(swap.added)}
    if not swap.added:
        return False
    profile["suggested"] = [p for p in suggested if p not in swap.dropped] + list(swap.added)
    act(
        registry,
        ActionName.PLACES_GET_POI_FACTS,
        {"place_ids": list(swap.added)},
        state,
        ctx,
        reason_code="SUGGESTIONS_DID_NOT_FIT",
        policy_id=POLICY_REPAIR,
        facts={"dropped": swap.dropped, "added": list(swap.added)},
    )
    facts = state.memory.semantic_facts
    facts.pois = [p for p in facts.pois if p["place_id"] not in swap.dropped]
    c = state.compute
    c.time_matrix_robust = c.time_matrix_api = c.clusters = c.problem = c.trip_request = None
    c.day_plans, c.optimization_results = [], []
    c.feasibility = c.itinerary = c.critic = c.robustness = None
    state.react.observations.append({"phase": "suggestions", "dropped": swap.dropped, "added": list(swap.added)})
    return True


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
    log_decision(
        state,
        action=ActionName.ITINERARY_REPAIR_CROSS_DAY,
        reason_code="CRITIC_FAILED",
        policy_id=POLICY_REPAIR,
        facts={"days": bad_days, "violations": sorted(critic.codes())[:10]},
    )
    state.compute.critic = None
    state.compute.feasibility = None
    act(
        registry,
        ActionName.ITINERARY_REPAIR_CROSS_DAY,
        {},
        state,
        ctx,
        reason_code="REPAIR_AFTER_CRITIC",
        policy_id=POLICY_REPAIR,
    )
