"""The half-day planner end to end on the bundled shanghai pack: the event stream's contract, plans that are real
(places from the pack, inside their opening hours, travel between them respected, the meal in its window), plans
that differ, the score and its weights, the relaxed re-search, and the three levels of degradation."""

from __future__ import annotations

from datetime import time

import pytest

from core.halfday.score import FEASIBILITY_FLOOR
from core.models.halfday.goal import Party
from core.models.halfday.plans import DIMENSIONS, HalfDayRequest, ScoreWeights, rank_by_weights
from core.packs.loader import load_region
from tests.halfday.conftest import MONDAY, NOW, SATURDAY, goal, planner_on, with_goal

PACK = load_region("shanghai")


def _m(t: time) -> int:
    return t.hour * 60 + t.minute


def _inside_opening(expr: str, step) -> bool:
    from core.itinerary.opening import opening_windows

    windows = opening_windows(expr, [SATURDAY], timezone="Asia/Shanghai", country="CN").by_date[SATURDAY]
    return any(w.start <= _m(step.start) and _m(step.end) <= w.end for w in windows)


def run(planner, g, **request):
    with_goal(planner, g)
    return planner.plan(HalfDayRequest(goal="test goal", now=NOW, **request))


def test_events_follow_the_protocol(planner):
    result, events = run(planner, goal(preferences=["museum", "local_food"]))
    assert result is not None
    types = [e.type for e in events]
    assert types[0] == "status" and types[-1] == "done" and types.count("done") == 1
    assert {e.trace_id for e in events} == {result.trace_id}
    assert [e.seq for e in events] == list(range(len(events)))
    memory = next(i for i, e in enumerate(events) if e.type == "skill_call" and e.data.tool == "get_memory")
    assert types.index("intent") < memory
    stages = [e.data.stage for e in events if e.type == "status"]
    assert stages == sorted(stages) and stages[-1] == 7 and {1, 2, 3, 4, 5, 6, 7} <= set(stages)
    calls = [e.data.tool for e in events if e.type == "skill_call"]
    assert calls == [
        "decompose_goal",
        "get_memory",
        "check_weather",
        "analyze_user_profile",
        "plan_time_slots",
        "search_places",
        "rank_places_for_plan",
        "score_plans",
    ]
    # each call is observed right after it (the composer's plans said on the way), with its duration, and logged
    # with the trace id
    for i, e in enumerate(events):
        if e.type == "skill_call":
            nxt = next(n for n in events[i + 1 :] if not (n.type == "observation" and n.data.type == "plan"))
            assert nxt.type == "observation" and nxt.data.tool == e.data.tool and nxt.data.duration_ms >= 0
    composing = [e for e in events if e.type == "observation" and e.data.type == "plan"]
    before = [events[events.index(e) - 1] for e in composing]  # the composer's call, or the plan made before
    assert composing and all(
        getattr(b.data, "tool", "") == "rank_places_for_plan" or getattr(b.data, "type", "") == "plan" for b in before
    )
    assert [c["tool"] for c in result.tool_log] == calls
    assert all(c["trace_id"] == result.trace_id and c["outcome"] == "ok" for c in result.tool_log)


def test_plans_are_real_places_at_real_times(planner):
    result, _ = run(planner, goal(preferences=["museum", "local_food"]))
    assert result is not None and 2 <= len(result.plans) <= 3
    start, end = _m(result.slots.start), _m(result.slots.end)
    for plan in result.plans:
        assert 0 <= plan.feasibility <= 1
        previous_end = start
        for step in plan.steps:
            place = PACK.place_by_id(step.place_id)
            assert place is not None, step.place_id  # only from the places table
            assert (step.lon, step.lat) == (place.lon, place.lat)
            assert step.price_per_person == place.price_per_person
            travel = step.travel.minutes if step.travel else 0
            assert _m(step.start) >= previous_end + travel, (plan.plan_id, step)
            assert place.opening_hours  # every shanghai place has hours; each visit lies inside them that day
            assert _inside_opening(place.opening_hours, step), (place.id, place.opening_hours, step.start, step.end)
            assert _m(step.end) <= end
            previous_end = _m(step.end)
        lunch = [s for s in plan.steps if s.kind == "meal"]
        assert len(lunch) == 1 and time(11, 30) <= lunch[0].start <= time(13, 15), plan.steps
        assert PACK.place_by_id(lunch[0].place_id).category == "restaurant"
    # the plans really differ: no two share more than half of their places
    sets = [{s.place_id for s in p.steps} for p in result.plans]
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            assert len(sets[i] & sets[j]) <= min(len(sets[i]), len(sets[j])) / 2


def test_museums_closed_on_monday_are_never_planned(planner):
    result, _ = run(planner, goal(day=MONDAY, start=time(13, 0), end=time(17, 30), preferences=["museum"]))
    assert result is not None
    visited = {s.place_id for p in result.plans for s in p.steps}
    closed = {p.id for p in PACK.places if p.opening_hours and "Mo off" in p.opening_hours}
    assert visited and not visited & closed
    assert any(PACK.place_by_id(i).category == "museum" for i in visited)  # the ones open on Monday


def test_score_is_the_weighted_sum_and_weights_rerank(planner):
    result, _ = run(planner, goal(preferences=["park", "cafe"], start=time(13, 0), end=time(18, 0)))
    assert result is not None and len(result.plans) >= 2
    w = ScoreWeights().normalised()
    assert w == pytest.approx({"T": 0.25, "D": 0.20, "P": 0.30, "C": 0.15, "S": 0.10})
    for plan in result.plans:
        values = {d: getattr(plan.score, d) for d in DIMENSIONS}
        assert all(0 <= v <= 1 for v in values.values())
        assert plan.total == pytest.approx(sum(w[d] * values[d] for d in DIMENSIONS), abs=1e-3)
    assert [p.total for p in result.plans] == sorted((p.total for p in result.plans), reverse=True)
    # all weight on one dimension: the plan best on that dimension comes first
    for dim in DIMENSIONS:
        only = ScoreWeights(**{d: (1.0 if d == dim else 0.0) for d in DIMENSIONS})
        ranked = rank_by_weights(result.plans, only)
        assert getattr(ranked[0].score, dim) == max(getattr(p.score, dim) for p in result.plans)


def test_a_child_never_gets_an_adults_only_place_and_gets_kid_friendly_reasons(planner):
    kid = Party(adults=2, children=1, children_ages=[5])
    result, _ = run(planner, goal(party=kid, start=time(14, 0), end=time(22, 0), preferences=["night_view"]))
    assert result is not None
    for plan in result.plans:
        for s in plan.steps:
            place = PACK.place_by_id(s.place_id)
            assert place.suits_age(5), place.id
            assert "alcohol" not in place.tags
    assert result.profile.crowd_tolerance == "medium"


def test_vegetarian_lunch_is_served_where_the_pack_says_so(planner):
    result, _ = run(planner, goal(diet=["vegetarian"], preferences=["history"]))
    assert result is not None
    for plan in result.plans:
        for s in plan.steps:
            if s.kind == "meal":
                place = PACK.place_by_id(s.place_id)
                marks = set(place.tags) | {f"cuisine:{c}" for c in place.cuisine}
                assert marks & {"vegetarian_friendly", "vegan_options", "cuisine:vegetarian"}, place.id


def test_budget_per_person_holds_unless_relaxed(planner):
    result, _ = run(planner, goal(budget_per_person=60, preferences=["local_food", "history"]))
    assert result is not None
    limit = 60 * (1.3 if "budget" in result.relaxed else 1.0)
    for plan in result.plans:
        known = [s.price_per_person for s in plan.steps if s.price_per_person is not None]
        assert sum(known) <= limit, (plan.plan_id, known)


def test_named_place_is_in_every_plan(planner):
    result, _ = run(planner, goal(named=["豫园"], preferences=["local_food"]))
    assert result is not None
    assert all("sh-yuyuan-garden" in {s.place_id for s in p.steps} for p in result.plans)


def test_nothing_matches_then_preferences_are_relaxed_and_said(planner):
    # theatres open at 09:00 or later: an early-morning window matches none, so the search relaxes the preference
    result, events = run(planner, goal(day=MONDAY, start=time(6, 0), end=time(9, 30), preferences=["theatre"]))
    relaxed = [e.data.code for e in events if e.type == "observation" and e.data.type == "relaxed"]
    assert relaxed[:1] == ["preferences"]
    assert result is not None and "preferences" in result.relaxed
    assert all(PACK.place_by_id(s.place_id).category != "theatre" for p in result.plans for s in p.steps)


def test_feasibility_below_the_floor_searches_again_with_relaxed_filters(planner):
    # a toddler makes the crowd tolerance low and the goal asks for kids' places: two soft filters to relax
    kid = Party(adults=1, children=1, children_ages=[2])
    with_goal(planner, goal(party=kid, preferences=["kid_activity"], start=time(13, 0), end=time(18, 0)))
    real_score = planner.registry.spec("score_plans").fn
    rounds = []

    def pessimistic_first(inp):
        out = real_score(inp)
        rounds.append([p.feasibility for p in out.plans])
        if len(rounds) == 1:  # the first plans come back below the floor
            out = out.model_copy(update={"plans": [p.model_copy(update={"feasibility": 0.4}) for p in out.plans]})
        return out

    planner.registry.replace("score_plans", pessimistic_first)
    result, events = planner.plan(HalfDayRequest(goal="test goal", now=NOW))
    relaxed = [e.data for e in events if e.type == "observation" and e.data.type == "relaxed"]
    assert [r.code for r in relaxed] == ["crowd"] and relaxed[0].facts.best_feasibility == 0.4
    searches = [e for e in events if e.type == "status" and e.data.stage == 5]
    assert [s.data.relaxed for s in searches] == [[], ["crowd"]]
    assert result is not None and result.relaxed == ["crowd"] and len(rounds) == 2
    assert result.plans[0].feasibility >= FEASIBILITY_FLOOR


def test_missing_time_window_asks_instead_of_guessing(planner):
    from core.models.halfday.goal import DecomposedGoal

    g = DecomposedGoal(text="带孩子出去玩", language="zh", missing=["time_window"])
    result, events = run(planner, g)
    assert result is None
    intent = next(e for e in events if e.type == "intent")
    assert intent.data.clarification is not None and intent.data.clarification.missing == ["time_window"]
    assert events[-1].data.type == "clarify" and events[-1].data.missing == ["time_window"]
    assert not any(e.type == "skill_call" and e.data.tool == "search_places" for e in events)


def test_bookable_steps_start_on_the_venues_slots_and_book_there(planner):
    """Stage 7 through the registry: every bookable step of every plan can be dry-run at its own start."""
    from core.models.halfday.plans import ReserveInput
    from core.reservations.catalog import item_for

    g = goal(start=time(10, 0), end=time(20, 0), preferences=["theatre", "local_food"])
    result, _ = run(planner, g)
    assert result is not None
    booked = 0
    for plan in result.plans:
        for step in plan.steps:
            if not step.bookable:
                continue
            item = item_for(PACK, step.place_id)
            assert step.start in item.slots(), (step.place_id, step.start)
            dry = planner.reserve_dry_run(
                ReserveInput(
                    user_id="ann",
                    region="shanghai",
                    place_id=step.place_id,
                    date=SATURDAY,
                    time=step.start,
                    party_size=2,
                )
            )
            assert dry.reservation.status == "quoted" and dry.reservation.time == step.start
            booked += 1
    assert booked >= 2


def test_a_long_window_gets_lunch_and_dinner(planner):
    result, _ = run(planner, goal(start=time(11, 30), end=time(21, 0), preferences=["shopping", "local_food"]))
    assert result is not None
    for plan in result.plans:
        meals = [s for s in plan.steps if s.kind == "meal"]
        assert len(meals) == 2, [(s.name_zh, s.start) for s in plan.steps]
        assert time(11, 30) <= meals[0].start <= time(13, 15) and time(17, 30) <= meals[1].start <= time(19, 45)
        assert meals[0].place_id != meals[1].place_id


def test_queue_minutes_are_the_packs_for_the_hour_of_the_visit(planner):
    from datetime import datetime

    from core.packs.queues import queue_estimate

    result, _ = run(planner, goal(preferences=["landmark", "local_food"]))
    seen = 0
    for plan in result.plans:
        for s in plan.steps:
            at = datetime.combine(SATURDAY, time(s.start.hour, 0), tzinfo=NOW.tzinfo)
            est = queue_estimate(PACK, s.place_id, at)
            assert (s.queue_minutes or 0) == (est.minutes if est else 0), (s.place_id, s.start)
            seen += bool(s.queue_minutes)
    assert seen  # the pack's queues show up in the plans


def test_a_named_place_that_is_closed_or_unknown_is_said(planner):
    # 豫园 is closed on Mondays in the pack; "Xyzabc乐园" is no place at all
    result, events = run(planner, goal(day=MONDAY, start=time(13, 0), end=time(17, 0), named=["豫园", "Xyzabc乐园"]))
    warnings = [e.data for e in events if e.type == "observation" and e.data.type == "warning"]
    unavailable = [w for w in warnings if w.code == "NAMED_PLACE_UNAVAILABLE"]
    assert unavailable and unavailable[0].facts.model_dump(exclude_none=True) == {
        "name": "豫园",
        "reason": "closed_in_window",
        "place_id": "sh-yuyuan-garden",
    }
    missing = [w for w in warnings if w.code == "NAMED_PLACE_NOT_FOUND"]
    assert missing and missing[0].facts.name == "Xyzabc乐园"
    assert {"NAMED_PLACE_UNAVAILABLE", "NAMED_PLACE_NOT_FOUND"} <= set(result.warnings)


def test_the_exact_solver_keeps_every_rule(planner, monkeypatch):
    from core.config import get_settings

    monkeypatch.setenv("OMNI_HALFDAY_SOLVER", "cp_sat")
    get_settings.cache_clear()
    exact = with_goal(
        planner_on(planner.provider, get_settings(), memory=planner.memory),
        goal(start=time(11, 0), end=time(17, 0), budget_per_person=150, preferences=["museum", "local_food"]),
    )
    result, _ = exact.plan(HalfDayRequest(goal="test goal", now=NOW))
    assert result is not None and {p.solver for p in result.plans} == {"cp_sat"}
    for plan in result.plans:
        previous_end = _m(result.slots.start)
        for step in plan.steps:
            place = PACK.place_by_id(step.place_id)
            assert _inside_opening(place.opening_hours, step)
            assert _m(step.start) >= previous_end + (step.travel.minutes if step.travel else 0)
            previous_end = _m(step.end)
        assert sum(s.price_per_person or 0 for s in plan.steps) <= 150
        assert sum(s.kind == "meal" for s in plan.steps) == 1
    sets = [{s.place_id for s in p.steps} for p in result.plans]
    assert all(len(a & b) <= min(len(a), len(b)) / 2 for i, a in enumerate(sets) for b in sets[i + 1 :])


def test_a_short_window_that_asks_to_eat_gets_its_meal(planner):
    result, _ = run(planner, goal(start=time(12, 0), end=time(13, 0), preferences=["food"]))
    assert result is not None
    for plan in result.plans:
        meals = [s for s in plan.steps if s.kind == "meal"]
        assert len(meals) == 1 and time(12, 0) <= meals[0].start <= time(12, 15)
        assert PACK.place_by_id(meals[0].place_id).category == "restaurant"
