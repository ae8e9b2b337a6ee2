"""The half-day planner's events as SSE clients and ``halfday --events`` read them: every variant of the union
(core/models/halfday/events.py) goes to JSON with the wire fields ``type``, ``trace_id``, ``seq``, ``at`` and ``data``, and
comes back as the same typed event."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time

import pytest

from core.models.halfday.events import (
    HALF_DAY_EVENT,
    Clarification,
    DoneClarify,
    DoneError,
    DoneEvent,
    DonePlans,
    EmptyObservation,
    ErrorFacts,
    HalfDayResult,
    IntentData,
    IntentEvent,
    ObservationEvent,
    RelaxedObservation,
    ReservableObservation,
    ResultObservation,
    SkillCallData,
    SkillCallEvent,
    StatusData,
    StatusEvent,
    WarningObservation,
)
from core.models.halfday.facts import (
    CandidateFacts,
    GoalFacts,
    MemoryFacts,
    OriginFacts,
    OtherFacts,
    PlanSetFacts,
    ProfileFacts,
    RelaxedFacts,
    SlotsFacts,
    WarningFacts,
)
from core.models.halfday.goal import DecomposedGoal, Party, TimeWindow
from core.models.halfday.plans import Profile, ScoreWeights, TimeSlots

HEAD = {"trace_id": "t" * 32, "seq": 3, "at": datetime(2026, 11, 27, 1, 0, tzinfo=UTC)}
DAY = date(2026, 11, 28)
GOAL = DecomposedGoal(
    text="周六下午两个人去博物馆",
    language="zh",
    window=TimeWindow(date=DAY, start=time(13, 0), end=time(18, 0), phrase="周六下午"),
    party=Party(adults=2),
    preferences=["museum"],
)
VAGUE = DecomposedGoal(text="带孩子出去玩", language="zh", missing=["time_window"])
RESULT = HalfDayResult(
    trace_id="t" * 32,
    region="shanghai",
    goal=GOAL,
    profile=Profile(
        party=Party(adults=2),
        party_source="goal",
        constraints=GOAL.constraints,
        crowd_tolerance="medium",
        walk_limit_min=15,
    ),
    slots=TimeSlots(date=DAY, start=time(13, 0), end=time(18, 0), slots=[], travel_factor=1.2, travel_buffer_min=5),
    plans=[],
    weights=ScoreWeights(),
    travel_source="offline_estimate",
    tool_log=[{"tool": "decompose_goal", "input": "text=周六下午", "output": "language=zh window{4}"}],
)
FACTS = [
    GoalFacts(parser="rules"),
    MemoryFacts(events=2, preferences=3, visited=1, source="memory_store"),
    ProfileFacts(crowd_tolerance="low", walk_limit_min=10, party_source="memory"),
    SlotsFacts(date=DAY, start=time(13, 0), end=time(18, 0), slots=3),
    OriginFacts(found=True, source="offline"),
    CandidateFacts(candidates=2, place_ids=["a", "b"], excluded={"closed_in_window": 4}),
    PlanSetFacts(plans=2, plan_ids=["p1", "p2"], travel_source="offline_estimate"),
    OtherFacts(),
]
EVENTS = [
    StatusEvent(**HEAD, data=StatusData(stage=5, name="search_places", relaxed=["crowd"])),
    IntentEvent(**HEAD, data=IntentData(goal=GOAL)),
    IntentEvent(**HEAD, data=IntentData(goal=VAGUE, clarification=Clarification(missing=["time_window"]))),
    SkillCallEvent(**HEAD, data=SkillCallData(tool="search_places", stage=5, mocked=True)),
    *[ObservationEvent(**HEAD, data=ResultObservation(tool="t", duration_ms=1.5, attempts=2, facts=f)) for f in FACTS],
    ObservationEvent(**HEAD, data=WarningObservation(code="ORIGIN_UNRESOLVED", facts=WarningFacts(origin="人民广场"))),
    ObservationEvent(**HEAD, data=EmptyObservation(tool="search_places")),
    ObservationEvent(**HEAD, data=RelaxedObservation(code="budget", facts=RelaxedFacts(best_feasibility=0.4))),
    ObservationEvent(**HEAD, data=ReservableObservation(plan_id="p1", place_ids=["a"])),
    DoneEvent(**HEAD, data=DonePlans(result=RESULT)),
    DoneEvent(**HEAD, data=DoneClarify(goal=VAGUE, missing=["time_window"])),
    DoneEvent(**HEAD, data=DoneError(error=ErrorFacts(code="NO_FEASIBLE_PLAN", trace_id="t" * 32, excluded={"x": 1}))),
]


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: f"{e.type}-{getattr(e.data, 'type', '')}")
def test_halfday_event_round_trips_through_json(event):
    wire = event.model_dump_json()
    raw = json.loads(wire)
    assert set(raw) == {"type", "trace_id", "seq", "at", "data"} and isinstance(raw["data"], dict)
    back = HALF_DAY_EVENT.validate_json(wire)
    assert type(back) is type(event) and back == event
    assert HALF_DAY_EVENT.validate_python(raw) == event  # a client's parsed JSON reads back too


def test_halfday_event_union_covers_every_kind():
    kinds = {(e.type, getattr(e.data, "type", None)) for e in EVENTS}
    assert {t for t, _ in kinds} == {"status", "intent", "skill_call", "observation", "done"}
    assert {k for t, k in kinds if t == "observation"} == {"result", "warning", "empty", "relaxed", "reservable"}
    assert {k for t, k in kinds if t == "done"} == {"plans", "clarify", "error"}
    facts = {e.data.facts.kind for e in EVENTS if isinstance(e.data, ResultObservation)}
    assert facts == {"goal", "memory", "profile", "slots", "origin", "candidates", "plans", "other"}


def test_halfday_event_refuses_a_mismatched_body():
    bad = json.loads(EVENTS[0].model_dump_json()) | {"type": "done"}
    with pytest.raises(ValueError):
        HALF_DAY_EVENT.validate_python(bad)
    with pytest.raises(ValueError):
        HALF_DAY_EVENT.validate_python(json.loads(EVENTS[0].model_dump_json()) | {"type": "gossip"})
