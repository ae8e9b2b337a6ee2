"""One assembly of ItineraryResult: the agent's action path and the page's pipeline reach the same plan,
the same drop reasons and the same critic verdict (with the pack and the provider) for the same request."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from core.agent.actions.catalog import default_registry
from core.agent.state import AgentContext, new_state
from core.app.agent import agent_deps
from core.config import get_settings
from core.geo.registry import make_provider
from core.itinerary.pipeline import plan_itinerary
from core.models.agent import AgentRequest
from core.models.itinerary import TripRequest
from tests.support.paths import ROOT


def _request() -> TripRequest:
    data = json.loads((ROOT / "data" / "trips" / "shanghai_2day_monday_museum.json").read_text(encoding="utf-8"))
    return TripRequest.model_validate(data)


def _agent_result(request: TripRequest, provider, settings):
    registry = default_registry()
    agent_request = AgentRequest.model_validate({"message": "plan", "user_id": "u1"})
    state = new_state(agent_request, region="shanghai")
    deps = agent_deps(settings, provider)  # what the root hands the agent: its database, its reservation service
    ctx = AgentContext(
        settings=settings,
        request=agent_request,
        provider=provider,
        database=deps.database,
        reservations=deps.reservations,
        now=datetime(2027, 3, 6, 2, tzinfo=UTC),
    )
    ctx.started = ctx.clock()
    for name, payload in [
        ("places.get_poi_facts", {"place_ids": [p.place_id for p in request.places]}),
        ("itinerary.prepare_problem", {"request": request.model_dump(mode="json")}),
        ("transport.build_time_matrix", {"mode": request.mode}),
        ("transport.apply_robustness_policy", {"pacing": request.pacing}),
        ("itinerary.cluster_days_balanced", {}),
        ("itinerary.optimize_day_vrptw", {}),
        ("itinerary.repair_cross_day", {}),
        ("policy.validate_feasibility", {}),
        ("policy.score_robustness", {}),
        ("policy.check_itinerary", {}),
    ]:
        registry.call(name, payload, state=state, ctx=ctx)
    return state.compute.itinerary


def _shape(result):
    days = [[(e.kind, e.key, e.start.isoformat(), e.end.isoformat()) for e in d.entries] for d in result.days]
    dropped = sorted((d.key, d.reason_code) for d in result.dropped_items)
    return days, dropped, result.status, result.critic.passed, sorted(result.critic.codes())


def test_agent_actions_and_the_page_pipeline_assemble_the_same_result():
    settings = get_settings().model_copy(update={"itinerary_variant": "per_day"})
    provider = make_provider("offline", region="shanghai", settings=settings)
    request = _request()
    page = plan_itinerary(request, provider=provider, settings=settings)
    agent = _agent_result(request, provider, settings)
    assert _shape(agent) == _shape(page)
    # the museum is closed on Monday: both paths keep it on Tuesday and the critic passes both
    museum_days = [d.day_index for d in page.days for e in d.entries if e.key == "sh-shanghai-museum"]
    assert museum_days == [1]
    assert agent.critic.passed and "provider_travel" in agent.critic.checks


def test_day_timelines_carry_their_anchors_with_coordinates():
    settings = get_settings()
    provider = make_provider("offline", region="shanghai", settings=settings)
    result = plan_itinerary(_request(), provider=provider, settings=settings)
    hotel = provider.region.place_by_id("sh-jinjiang-hotel")
    for day in result.days:
        assert day.start_anchor is not None and day.end_anchor is not None
        assert (day.start_anchor.lon, day.start_anchor.lat) == (hotel.lon, hotel.lat)
        assert day.start_anchor.name == hotel.name_zh
        assert day.start_anchor.key == day.start_key
