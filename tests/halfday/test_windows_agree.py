"""One rule for a range of time (issue 31): the agent's day window (core.phrases.day_window) and the half-day goal
(core.halfday.goal) read the same hours from the same words, both through core.phrases.clock_range. The goals say
tomorrow, so the suite's moment (Friday 09:00) never moves a start."""

from __future__ import annotations

import unicodedata
from datetime import time

import pytest

from core.halfday.goal import decompose_goal
from core.phrases.day_window import find_day_window
from tests.halfday.conftest import NOW, SATURDAY

DEFAULTS = {"default_start": 10 * 60, "default_end": 20 * 60}

WINDOWS = [
    ("from 2 to 9pm", (14, 0), (21, 0)),
    ("2-9pm", (14, 0), (21, 0)),
    ("2pm-9pm", (14, 0), (21, 0)),
    ("2 till 9 pm", (14, 0), (21, 0)),
    ("between 1pm and 8pm", (13, 0), (20, 0)),
    ("between 1 and 8 in the evening", (13, 0), (20, 0)),
    ("from noon to 6", (12, 0), (18, 0)),
    ("10am to 4", (10, 0), (16, 0)),
    ("9 to 5", (9, 0), (17, 0)),
    ("from 3:30 until 7pm", (15, 30), (19, 0)),
    ("下午两点到晚上九点", (14, 0), (21, 0)),
    ("中午到傍晚六点", (12, 0), (18, 0)),
    ("上午9点-下午5点", (9, 0), (17, 0)),
    ("10点到16点", (10, 0), (16, 0)),
    ("早上八点半至十一点", (8, 30), (11, 0)),
    ("九点到下午三点", (9, 0), (15, 0)),
]


@pytest.mark.parametrize(("words", "start", "end"), WINDOWS)
def test_the_agent_and_the_half_day_goal_read_a_range_alike(words, start, end):
    goal = decompose_goal(f"明天 {words} 去逛逛", now=NOW)
    assert goal.window is not None, goal.missing
    assert (goal.window.date, goal.window.start, goal.window.end) == (SATURDAY, time(*start), time(*end))
    said = find_day_window(unicodedata.normalize("NFKC", f"明天 {words} 去逛逛").lower())
    assert said is not None and said.problem(**DEFAULTS) is None
    assert said.resolved(**DEFAULTS) == (start[0] * 60 + start[1], end[0] * 60 + end[1])


@pytest.mark.parametrize("words", ["from 9pm to 5", "下午3点到1点", "晚上9点到6点"])
def test_a_range_neither_can_make_is_refused_by_both(words):
    goal = decompose_goal(f"明天 {words} 去逛逛", now=NOW)
    assert goal.window is None and goal.missing == ["time_window_invalid"]
    said = find_day_window(f"明天 {words} 去逛逛")
    assert said is not None and said.problem(**DEFAULTS) == "END_NOT_AFTER_START"
