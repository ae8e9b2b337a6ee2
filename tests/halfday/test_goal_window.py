"""A window given beside the goal (HalfDayRequest.window, core/halfday/goal_window.py): a named choice resolved
against the request's now, or a whole window; stage 1 takes it instead of a time in the text, and the goal's words
stay as written. Only windows still ahead are offered (at 20:00 "this afternoon" is not)."""

from __future__ import annotations

from datetime import date, datetime, time

import pytest

from core.halfday.goal import decompose_goal
from core.halfday.goal_window import apply_window, offered_choices, resolve_window
from core.models.halfday.goal import ExactWindow, NamedWindow
from core.models.halfday.plans import HalfDayRequest
from tests.halfday.conftest import NOW, SATURDAY, SHANGHAI

FRIDAY_EVENING = datetime(2026, 11, 27, 20, 0, tzinfo=SHANGHAI)
SATURDAY_EVENING = datetime(2026, 11, 28, 20, 0, tzinfo=SHANGHAI)


@pytest.mark.parametrize(
    "choice,now,expected",
    [
        ("this_afternoon", NOW, (date(2026, 11, 27), time(13, 0), time(18, 0))),
        ("tomorrow_morning", NOW, (SATURDAY, time(9, 0), time(12, 0))),
        ("saturday_afternoon", NOW, (SATURDAY, time(13, 0), time(18, 0))),
        (
            "this_afternoon",
            datetime(2026, 11, 27, 15, 5, tzinfo=SHANGHAI),
            (date(2026, 11, 27), time(15, 15), time(18, 0)),
        ),
        ("this_afternoon", FRIDAY_EVENING, None),
        ("saturday_afternoon", SATURDAY_EVENING, None),
    ],
)
def test_a_named_choice_resolves_against_now(choice, now, expected):
    window, assumed = resolve_window(NamedWindow(choice=choice), now)
    assert (window and (window.date, window.start, window.end)) == expected
    if expected is not None and expected[1] != time(13, 0) and expected[1] != time(9, 0):
        assert "start_moved_to_now" in assumed


def test_at_20_00_no_past_window_is_offered():
    assert offered_choices(NOW) == ["this_afternoon", "tomorrow_morning", "saturday_afternoon"]
    assert offered_choices(FRIDAY_EVENING) == ["tomorrow_morning", "saturday_afternoon"]
    assert offered_choices(SATURDAY_EVENING) == ["tomorrow_morning"]  # Saturday afternoon is over
    # 17:10: "this afternoon" would be 50 minutes: not worth offering
    assert "this_afternoon" not in offered_choices(datetime(2026, 11, 27, 17, 10, tzinfo=SHANGHAI))


def test_the_window_takes_the_place_of_the_texts_time_and_keeps_the_words():
    text = "周六下午带孩子出去玩"
    read = decompose_goal(text, now=NOW)
    assert read.window is not None and read.window.date == SATURDAY
    given = apply_window(read, NamedWindow(choice="this_afternoon"), NOW)
    assert given.text == text and given.window is not None and given.window.date == NOW.date()
    assert given.missing == [] and "child_age_unknown" in given.assumed and "date_next_weekday" not in given.assumed
    exact = apply_window(read, ExactWindow(date=SATURDAY, start=time(10, 0), end=time(12, 30)), NOW)
    assert exact.window is not None and (exact.window.start, exact.window.end) == (time(10, 0), time(12, 30))
    assert exact.assumed == ["child_age_unknown"]


def test_a_window_already_over_asks_again():
    vague = decompose_goal("带孩子出去玩", now=FRIDAY_EVENING)
    assert vague.missing == ["time_window"]
    late = apply_window(vague, NamedWindow(choice="this_afternoon"), FRIDAY_EVENING)
    assert late.window is None and late.missing == ["time_window_past"]
    assert apply_window(vague, None, FRIDAY_EVENING) is vague
    backwards = apply_window(vague, ExactWindow(date=SATURDAY, start=time(15, 0), end=time(13, 0)), FRIDAY_EVENING)
    assert backwards.window is None and backwards.missing == ["time_window_invalid"]


def test_a_whole_window_is_on_the_regions_clock():
    w = ExactWindow.model_validate({"date": "2026-11-28", "start": "10:00:00Z", "end": "12:00+08:00"})
    assert w.start == time(10, 0) and w.end == time(12, 0) and w.start.tzinfo is None
    resolved, _ = resolve_window(w, NOW)
    assert resolved is not None and (resolved.start, resolved.end) == (time(10, 0), time(12, 0))


def test_a_quick_answer_plans_through_the_real_parser_without_touching_the_goal(planner):
    goal = "带5岁的孩子去看博物馆"
    asked, events = planner.plan(HalfDayRequest(goal=goal, now=NOW))
    assert asked is None and events[-1].data.type == "clarify"
    result, events = planner.plan(HalfDayRequest(goal=goal, now=NOW, window=NamedWindow(choice="tomorrow_morning")))
    assert result is not None, events[-1].data
    assert result.goal.text == goal and result.goal.party.children_ages == [5]
    assert result.goal.window is not None and result.goal.window.date == SATURDAY
    assert (result.slots.start, result.slots.end) == (time(9, 0), time(12, 0))
    stage1 = next(e for e in events if e.type == "skill_call" and e.data.tool == "decompose_goal")
    assert stage1.data.mocked is False
