"""Issue 32 (the half-day's first card): the composer says each plan the moment it is made, scored and explained as
the ``done`` carries it, before it composes the next; the final result is the same set as before."""

from __future__ import annotations

from datetime import time

from pydantic import BaseModel

from core.halfday.tools import ToolRegistry, ToolSpec, Trace, drained
from core.models.halfday.plans import HalfDayRequest, ScoreWeights
from tests.halfday.conftest import MONDAY, NOW, goal, with_goal


def _plans_said(events):
    return [e for e in events if e.type == "observation" and e.data.type == "plan"]


def test_each_plan_is_said_before_the_composer_returns_and_is_the_one_delivered(planner):
    with_goal(planner, goal(preferences=["museum", "local_food"], start=time(13, 0), end=time(18, 0)))
    weights = ScoreWeights(T=0.1, D=0.1, P=0.1, C=0.6, S=0.1)  # a ranking other than the composing order
    result, events = planner.plan(HalfDayRequest(goal="下午博物馆和本地菜", now=NOW, weights=weights))
    assert result is not None and len(result.plans) >= 2 and result.relaxed == []
    said = _plans_said(events)
    composed = next(
        i
        for i, e in enumerate(events)
        if e.type == "observation" and getattr(e.data, "tool", "") == "rank_places_for_plan"
    )
    assert all(events.index(e) < composed for e in said)  # each one before the composer's own answer
    assert [e.data.plan.plan_id for e in said] == [f"p{n}" for n in range(1, len(said) + 1)]  # as made, in order
    assert all(e.data.round == 0 and e.data.asked == 3 for e in said)
    delivered = {p.plan_id: p for p in result.plans}
    assert {e.data.plan.plan_id for e in said} == set(delivered)  # nothing lost, nothing extra
    for e in said:  # the same steps, score, wishes, intro and reasons as the plan delivered
        early, final = e.data.plan, delivered[e.data.plan.plan_id]
        assert early.score is not None and early.intro is not None
        assert early.model_dump(exclude={"total"}) == final.model_dump(exclude={"total"})


def test_a_relaxed_search_says_the_new_rounds_plans_and_those_are_delivered(planner):
    # nothing opens at 06:00 for a theatre goal: the preferences are relaxed and a second round composes
    with_goal(planner, goal(day=MONDAY, start=time(6, 0), end=time(9, 30), preferences=["theatre"]))
    result, events = planner.plan(HalfDayRequest(goal="early theatre", now=NOW))
    assert result is not None and result.relaxed
    last_round = [e.data.plan for e in _plans_said(events) if e.data.round == len(result.relaxed)]
    assert sorted(p.plan_id for p in last_round) == sorted(p.plan_id for p in result.plans)
    assert {p.plan_id: p.steps for p in last_round} == {p.plan_id: p.steps for p in result.plans}


def test_a_stand_in_for_the_scorer_is_asked_only_by_the_real_call(planner):
    with_goal(planner, goal(preferences=["museum", "local_food"], start=time(13, 0), end=time(18, 0)))
    real = planner.registry.spec("score_plans").fn
    asked = []

    def counting(inp):
        asked.append(len(inp.plans.plans))
        return real(inp)

    planner.registry.replace("score_plans", counting)
    result, events = planner.plan(HalfDayRequest(goal="g", now=NOW))
    assert result is not None and asked == [len(result.plans)]  # once, on the whole set
    said = _plans_said(events)
    assert said and all(e.data.plan.score is None for e in said)  # shown unscored rather than scored by a stand-in


class _In(BaseModel):
    n: int


class _Part(BaseModel):
    k: int


class _Out(BaseModel):
    total: int


def _counting_tool(held: list[int]):
    def parts(inp: _In):
        for k in range(inp.n):
            held.append(k)
            yield {"k": k}
        return {"total": inp.n}

    return ToolSpec(
        name="count", stage=6, input_model=_In, output_model=_Out, fn=drained(parts), parts=parts, part_model=_Part
    )


def test_a_tool_that_shows_its_work_yields_checked_parts_and_logs_its_own_time():
    import time as clock

    made: list[int] = []
    registry = ToolRegistry([_counting_tool(made)])
    trace = Trace()
    calls = registry.call_parts("count", {"n": 3}, trace=trace)
    seen = []
    while True:
        try:
            part = next(calls)
        except StopIteration as end:
            out = end.value
            break
        assert made == list(range(part.k + 1))  # handed on the moment it was made, before the next
        seen.append(part)
        clock.sleep(0.05)  # the caller's time with the part is not the tool's
    assert [p.k for p in seen] == [0, 1, 2] and all(isinstance(p, _Part) for p in seen)
    assert out == _Out(total=3)
    assert trace.calls[-1]["outcome"] == "ok" and trace.calls[-1]["duration_ms"] < 100
    # the plain call answers the same, and a stand-in answers whole, with no parts
    assert registry.call("count", {"n": 2}, trace=trace) == _Out(total=2)
    registry.replace("count", lambda inp: {"total": 7})
    stand_in = registry.call_parts("count", {"n": 2}, trace=trace)
    try:
        next(stand_in)
        raise AssertionError("a stand-in yields no parts")
    except StopIteration as end:
        assert end.value == _Out(total=7)
    assert registry.preview("count", {"n": 2}) is None
