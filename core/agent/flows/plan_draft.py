"""A plan the agent just made is the person's working draft (issue 31): "把外滩删掉" right after "帮我规划两天上海"
edits that plan, never answers that there is no draft.

The plan's visits (place, day, priority) are kept by ``trip.keep_plan`` as a new trip draft of the user's, the
newest, so the next edit without a trip id finds it (``TripStore.latest_trip``). Not when the request named a trip
(the plan is of that trip; saving over it is the confirmed ``trip.persist_plan``), asks to save (that dry run is the
way), is a dry run, or planned nothing."""

from __future__ import annotations

from core.agent.actions.names import ActionName
from core.agent.actions.registry import ActionRegistry
from core.agent.actions.spec import ActionError
from core.agent.lexicon import SAVE
from core.agent.state import AgentContext, log_decision
from core.models.agent import AgentState
from core.models.itinerary_result import ItineraryResult

POLICY = "PLAN_IS_THE_DRAFT"


def keep_plan_as_draft(state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    """Keep the plan just made as the user's newest trip draft (see the module doc); logged with its id."""
    result = state.compute.itinerary
    request = ctx.request
    if (
        not isinstance(result, ItineraryResult)
        or state.result.status != "READY"
        or request.trip_id
        or request.options.dry_run
        or SAVE.search(state.user_input)
    ):
        return
    pack = ctx.provider.region
    nodes = [
        {"name": e.name, "place_id": e.key, "day": day.day_index + 1, "priority": e.priority or "should"}
        for day in result.days
        for e in day.entries
        if e.kind == "visit" and e.key and not e.continues_visit and pack.place_by_id(e.key) is not None
    ]
    if not nodes:
        return
    try:
        out = registry.call(
            ActionName.TRIP_KEEP_PLAN,
            {
                "user_id": request.user_id,
                "region": pack.name,
                "days": max(1, len(result.days)),
                "start_date": result.days[0].date.isoformat() if result.days else None,
                "nodes": nodes,
            },
            state=state,
            ctx=ctx,
        )
    except ActionError as exc:  # the trip store is down: the plan stands, only the draft is not kept (logged)
        log_decision(state, action=ActionName.TRIP_KEEP_PLAN, reason_code="PLAN_NOT_KEPT", policy_id=POLICY,
                     facts={"cause": str((exc.details or {}).get("cause") or exc.code)})  # fmt: skip
        return
    log_decision(state, action=ActionName.TRIP_KEEP_PLAN, reason_code="PLAN_KEPT_AS_DRAFT", policy_id=POLICY,
                 facts={"trip_id": out.trip["trip_id"], "nodes": len(nodes), "days": out.trip["days"]})  # fmt: skip
