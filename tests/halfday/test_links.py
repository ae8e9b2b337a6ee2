"""A shared half-day link keeps its window absolute (issue 22 §1): opened on three successive days it plans the
same day and hours; once that day is over it says so; a link of the earlier format (the goal and a day) is read
once as it was, and says when a relative word in the goal would have named another day."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from core import share
from core.halfday.goal import decompose_goal
from core.halfday.link import read_link_window
from core.models.halfday.goal import ExactWindow

SHANGHAI = ZoneInfo("Asia/Shanghai")
MADE = datetime(2026, 11, 27, 10, 0, tzinfo=SHANGHAI)  # a Friday morning


@pytest.mark.parametrize("goal", ["明天下午带孩子去博物馆", "tomorrow afternoon, a museum with the kids"])
def test_a_link_opened_on_three_successive_days_plans_the_same_window(goal):
    read = decompose_goal(goal, now=MADE).window
    assert read is not None and read.date == date(2026, 11, 28)
    token = share.halfday_token(
        goal=goal, origin=None, region="shanghai", window=ExactWindow(date=read.date, start=read.start, end=read.end)
    )
    link = share.halfday_from_token(token)
    assert link.goal == goal and link.legacy_day is None
    assert link.window == ExactWindow(date=date(2026, 11, 28), start=read.start, end=read.end)
    openings = [MADE, MADE + timedelta(hours=10), datetime(2026, 11, 28, 8, 0, tzinfo=SHANGHAI)]
    readings = [read_link_window(link.goal, window=link.window, legacy_day=None, now=at) for at in openings]
    assert [r.note for r in readings] == ["same", "same", "same"]
    assert [r.window for r in readings] == [link.window] * 3
    # the page publishes the same token again: nothing in it moves
    again = share.halfday_token(goal=goal, origin=None, region="shanghai", window=readings[-1].window)
    assert again == token


def test_a_link_whose_day_is_over_is_past():
    window = ExactWindow(date=date(2026, 11, 28), start=time(13, 0), end=time(18, 0))
    after = datetime(2026, 11, 29, 9, 0, tzinfo=SHANGHAI)
    reading = read_link_window("明天下午去博物馆", window=window, legacy_day=None, now=after)
    assert reading.note == "past" and reading.window == window
    evening = datetime(2026, 11, 28, 18, 30, tzinfo=SHANGHAI)
    assert read_link_window("x", window=window, legacy_day=None, now=evening).note == "past"


def test_an_old_link_is_read_once_on_its_own_day_and_says_when_a_relative_word_is_ambiguous():
    old = share.encode("halfday", {"g": "明天下午带孩子去博物馆", "r": "shanghai", "d": "2026-11-28"})
    link = share.halfday_from_token(old)
    assert link.window is None and link.legacy_day == date(2026, 11, 28)
    reading = read_link_window(link.goal, window=None, legacy_day=link.legacy_day, now=MADE)
    assert reading.note == "legacy_ambiguous"  # "明天" read from 28 November would be the 29th
    assert reading.window is not None and reading.window.date == date(2026, 11, 28)
    saturday = read_link_window("周六下午去博物馆", window=None, legacy_day=date(2026, 11, 28), now=MADE)
    assert saturday.note == "legacy" and saturday.window is not None
    assert saturday.window.date == date(2026, 11, 28)
    gone = read_link_window(link.goal, window=None, legacy_day=date(2026, 11, 20), now=MADE)
    assert gone.note == "past"


@pytest.mark.parametrize(
    "window",
    [
        {"d": "2026-11-28", "s": "13:00"},
        {"d": "2026-11-28", "s": "18:00", "e": "13:00"},
        {"d": "tomorrow", "s": "13:00", "e": "18:00"},
        {"d": "2026-11-28", "s": "afternoon", "e": "18:00"},
        "明天下午",
    ],
    ids=["no-end", "ends-before-start", "relative-day", "word-time", "words"],
)
def test_a_link_window_that_is_not_absolute_is_invalid(window):
    token = share.encode("halfday", {"g": "museum", "w": window})
    with pytest.raises(share.ShareError) as caught:
        share.halfday_from_token(token)
    assert caught.value.code == "SHARE_INVALID"
