"""A plan the agent just made is the person's working draft (issue 31): "把外滩删掉" right after "帮我规划两天上海"
edits that plan, never answers that there is no draft.

The plan's visits (place, day, priority) are kept as a new trip draft of the user's in the trip store, the newest,
so the next edit without a trip id finds it (``TripStore.latest_trip``). Not when the request named a trip (the plan
is of that trip; saving over it is the confirmed ``trip.persist_plan``), asks to save (that dry run is the way), is a
dry run, or planned nothing."""

from __future__ import annotations

from core.agent.lexicon import SAVE
from core.agent.state import AgentContext, log_decision
from core.models.agent import AgentState
from core.models.itinerary_result import ItineraryResult
from core.stores.trips import TripNode

POLICY = "PLAN_IS_THE_DRAFT"
TITLE = "Planned trip"


def keep_plan_as_draft(state: AgentState, ctx: AgentContext) -> None:
    """Keep the plan just made as the user's newest trip draft (see the module doc); logged with its id."""
    result = state.compute.itinerary
    request = ctx.request
    if (
        not isinstance(result, ItineraryResult)
        or state.result.status != "READY"
        or request.trip_id
        or request.options.dry_run
        or SAVE.search(state.user_input)
        or ctx.store is None
    ):
        return
    nodes = [
        TripNode(name=e.name, place_id=e.key, day=day.day_index + 1, priority=e.priority or "should")
        for day in result.days
        for e in day.entries
        if e.kind == "visit" and e.key and not e.continues_visit and ctx.provider.region.place_by_id(e.key)
    ]
    if not nodes:
        return
    first = result.days[0].date.isoformat() if result.days else None
    draft = ctx.store.create_trip(
        user_id=request.user_id,
        region=ctx.provider.region.name,
        title=TITLE,
        days=max(1, len(result.days)),
        start_date=first,
        nodes=nodes,
        now=ctx.now,
    )
    state.trip.trip_id = draft.trip_id
    log_decision(state, action="trip.keep_plan", reason_code="PLAN_KEPT_AS_DRAFT", policy_id=POLICY,
                 facts={"trip_id": draft.trip_id, "nodes": len(nodes), "days": draft.days})  # fmt: skip
