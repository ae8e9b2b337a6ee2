"""The agent's day follows the hours the message states (issue 31), and the plan says which window it used and
where it came from (the message or the default), in both languages."""

from __future__ import annotations

import pytest

from tests.support.agent_packs import agent_runner


@pytest.fixture
def env(tmp_path):
    return agent_runner(tmp_path)


def _window(r):
    return next(e for e in r.result.payload.evidence if e["type"] == "day_window")


def test_a_chinese_window_sets_the_days_and_is_said(env):
    r = env("规划1天上海行程，去外滩和豫园，早上7点半出门，下午2点前回酒店")
    assert r.result.status == "OK"
    window = _window(r)
    assert (window["start"], window["end"], window["source"]) == ("07:30", "14:00", "message")
    timeline = r.result.payload.timeline
    assert timeline[0]["start"] == "07:30"  # the day starts when the person said, not at 10:00
    assert max(e["end"] for e in timeline) <= "14:00"
    assert "07:30–14:00" in r.result.answer_text and "您说的" in r.result.answer_text


def test_an_english_window_sets_the_days_and_is_said(env):
    r = env("plan 2 days in Shanghai with the Bund and Yu Garden, leaving at 11am and back by 7:30pm")
    window = _window(r)
    assert (window["start"], window["end"], window["source"]) == ("11:00", "19:30", "message")
    for day in {e["day"] for e in r.result.payload.timeline}:
        entries = [e for e in r.result.payload.timeline if e["day"] == day]
        assert entries[0]["start"] == "11:00" and max(e["end"] for e in entries) <= "19:30"
    assert "11:00–19:30, as you asked" in r.result.answer_text


def test_without_hours_the_default_is_used_and_said(env):
    r = env("plan 1 day in Shanghai with the Bund")
    assert _window(r) == {"type": "day_window", "start": "10:00", "end": "20:00", "source": "default", "said": None,
                          "problem": None}  # fmt: skip
    assert "10:00–20:00 (the default)" in r.result.answer_text


def test_hours_that_cannot_make_a_day_leave_the_default_and_say_why(env):
    r = env("规划1天上海行程，晚上8点出发，早上9点前回来")
    window = _window(r)
    assert (window["source"], window["problem"]) == ("default", "END_NOT_AFTER_START")
    assert (window["start"], window["end"]) == ("10:00", "20:00")
    assert "结束早于开始" in r.result.answer_text
