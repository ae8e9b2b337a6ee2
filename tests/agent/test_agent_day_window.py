"""The agent's day follows the hours the message states (issue 31), and the plan says which window it used and
where it came from (the message or the default), in both languages."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.support.agent_packs import FIXED_NOW, agent_runner


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
                          "problem": None, "first_day_start": None}  # fmt: skip
    assert "10:00–20:00 (the default)" in r.result.answer_text


def test_hours_that_cannot_make_a_day_leave_the_default_and_say_why(env):
    r = env("规划1天上海行程，晚上8点出发，早上9点前回来")
    window = _window(r)
    assert (window["source"], window["problem"]) == ("default", "END_NOT_AFTER_START")
    assert (window["start"], window["end"]) == ("10:00", "20:00")
    assert "结束早于开始" in r.result.answer_text


@pytest.mark.parametrize(
    ("message", "start", "end"),
    [
        ("plan 1 day in Shanghai with the Bund, from 2 to 9pm", "14:00", "21:00"),
        ("plan 1 day in Shanghai with the Bund, 2-9pm", "14:00", "21:00"),
        ("plan 1 day in Shanghai with the Bund between 1pm and 8pm", "13:00", "20:00"),
        ("one day in Shanghai at Yu Garden, 3pm-10pm", "15:00", "22:00"),
        ("a day in Shanghai with the Bund, 1 till 8 pm", "13:00", "20:00"),
        ("plan a day in Shanghai between 2 and 9 in the evening, the Bund please", "14:00", "21:00"),
        ("plan 1 day in Shanghai from noon to 7, with Yu Garden", "12:00", "19:00"),
        ("plan 1 day in Shanghai, 9am to 3, the Bund and Yu Garden", "09:00", "15:00"),
        ("plan 2 days in Shanghai, 8 to 4 each day", "08:00", "16:00"),
        ("plan 1 day in Shanghai with the Bund, from 8:30 until 5pm", "08:30", "17:00"),
        ("规划1天上海行程，去外滩，下午一点到晚上八点", "13:00", "20:00"),
        ("规划1天上海行程，去豫园，中午到傍晚七点", "12:00", "19:00"),
        ("规划1天上海行程，上午8点-下午4点，去外滩", "08:00", "16:00"),
        ("规划1天上海行程，11点到19点，去外滩和豫园", "11:00", "19:00"),
        ("规划两天上海行程，每天早上九点半至下午五点", "09:30", "17:00"),
        ("上海玩一天，从两点到九点，去外滩", "14:00", "21:00"),
        ("规划1天上海行程，下午3点~晚上10点，去外滩", "15:00", "22:00"),
        ("规划1天上海行程，晚上8点到12点，看外滩夜景", "20:00", "23:59"),  # until midnight: the day's last minute
        ("规划1天上海行程，九点到下午三点，去豫园", "09:00", "15:00"),
        ("plan 1 day in Shanghai, between 10 and 6, the Bund", "10:00", "18:00"),
    ],
)
def test_a_range_said_in_either_language_is_the_day(env, message, start, end):
    r = env(message)
    window = _window(r)
    assert (window["start"], window["end"], window["source"], window["problem"]) == (start, end, "message", None)
    entries = r.result.payload.timeline
    assert entries and min(e["start"] for e in entries) >= start and max(e["end"] for e in entries) <= end


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ("plan 1 day in Shanghai with the Bund, from 9pm to 5", "end before they start"),
        ("规划1天上海行程，去外滩，晚上9点到6点", "结束早于开始"),
    ],
)
def test_a_range_no_reading_makes_a_day_is_said_and_asked_again(env, message, words):
    r = env(message)
    window = _window(r)
    assert (window["source"], window["problem"]) == ("default", "END_NOT_AFTER_START")
    assert words in r.result.answer_text


@pytest.mark.parametrize(
    "message",
    [
        "规划1天上海行程，五天后中午出发，去外滩",
        "plan 1 day in Shanghai with the Bund in five days, starting at noon",
    ],
)
def test_a_day_and_noon_are_the_days_date_and_its_start(env, message):
    r = env(message)
    window = _window(r)
    assert (window["start"], window["end"], window["source"]) == ("12:00", "20:00", "message")
    assert (FIXED_NOW.date() + timedelta(days=5)).isoformat() in r.result.answer_text  # the day, five days on
    assert min(e["start"] for e in r.result.payload.timeline) >= "12:00"


@pytest.mark.parametrize(
    "message",
    [
        "plan a trip in Shanghai from 10 to 12 Dec: the Bund and Yu Garden",
        "plan Shanghai for Dec 10 to 12, with the Bund and Yu Garden",
        "规划12月10日到12日的上海行程，去外滩和豫园",
    ],
)
def test_a_range_of_dates_is_the_trips_days_not_its_hours(env, message):
    r = env(message)
    window = _window(r)
    assert (window["start"], window["end"], window["source"], window["problem"]) == ("10:00", "20:00", "default", None)
    days = sorted({e["date"] for e in r.result.payload.timeline if e.get("date")})
    assert days == ["2025-12-10", "2025-12-11", "2025-12-12"]  # FIXED_NOW is 2025-06-20: the nearest December


# ---- hours that cannot be the day are never answered OK (issue 31) -------------------------------------------------
@pytest.mark.parametrize(
    ("message", "problem", "words"),
    [
        ("规划今天上海行程，去外滩和豫园，下午4点到1点", "END_NOT_AFTER_START", "结束早于开始"),
        ("plan today in Shanghai with the Bund and Yu Garden, from 8pm to 6pm", "END_NOT_AFTER_START",
         "end before they start"),
        ("规划今天的上海行程，上午9点到12点，去外滩", "WINDOW_PAST", "今天已经过去"),  # FIXED_NOW is 15:00
        ("plan a day in Shanghai today, 8am till 1pm, with Yu Garden", "WINDOW_PAST", "already over today"),
    ],
)  # fmt: skip
def test_hours_that_cannot_be_the_day_ask_again_and_are_not_ok(env, message, problem, words):
    r = env(message)
    assert r.result.status == "NEED_MORE_INFO"  # the plan shown is on other hours: never OK
    assert {"code": "missing", "args": {"field": "day_window", "problem": problem}} in [
        s.model_dump() for s in r.result.next_steps
    ]
    window = _window(r)
    assert (window["source"], window["problem"], window["start"], window["end"]) == ("default", problem, "10:00",
                                                                                      "20:00")  # fmt: skip
    assert words in r.result.answer_text and "10:00–20:00" in r.result.answer_text
    assert "DAY_WINDOW_NOT_AS_ASKED" in {e.reason_code for e in r.explain.decision_log}


def test_hours_later_today_are_still_the_window(env):
    r = env("规划今天的上海行程，下午4点到晚上9点，去外滩")  # FIXED_NOW is 15:00: not over
    assert r.result.status == "OK"
    assert (_window(r)["start"], _window(r)["end"], _window(r)["problem"]) == ("16:00", "21:00", None)


# ---- a plan for today starts no earlier than the request (review of issue 31: today's plans began in the past) -----
@pytest.mark.parametrize(
    ("message", "words"),
    [
        ("规划今天上海行程，去外滩", "今天的行程从 15:00 开始"),
        ("plan today in Shanghai with the Bund", "Today's plan begins at 15:00"),
    ],
)
def test_a_plan_for_today_begins_at_the_request_not_at_the_windows_start(env, message, words):
    r = env(message)  # FIXED_NOW is Friday 15:00: the default window (10:00-20:00) began five hours ago
    assert r.result.status == "OK"
    window = _window(r)
    assert (window["start"], window["end"], window["first_day_start"]) == ("10:00", "20:00", "15:00")
    assert min(e["start"] for e in r.result.payload.timeline) == "15:00"
    assert words in r.result.answer_text


def test_a_plan_for_today_asked_between_quarters_begins_at_the_next_quarter(env):
    from core.agent import route_and_run
    from core.app.agent import agent_deps
    from tests.support.agent_packs import FIXED_NOW

    deps = agent_deps(env.settings, env.provider)
    r = route_and_run({"message": "plan today in Shanghai with the Bund", "user_id": "alice"}, deps,
                      now=FIXED_NOW + timedelta(minutes=7))  # fmt: skip
    assert _window(r)["first_day_start"] == "15:15"
    assert min(e["start"] for e in r.result.payload.timeline) == "15:15"


def test_today_is_the_regions_day_whatever_zone_the_request_clock_gives(env):
    """The same moment given in UTC (07:00Z is 15:00 in Shanghai): today's plan still begins at 15:00 there, not at
    the window's 10:00 (07:00 read as the hour of the day)."""
    from datetime import UTC

    from core.agent import route_and_run
    from core.app.agent import agent_deps
    from tests.support.agent_packs import FIXED_NOW

    deps = agent_deps(env.settings, env.provider)
    r = route_and_run({"message": "plan today in Shanghai with the Bund", "user_id": "alice"}, deps,
                      now=FIXED_NOW.astimezone(UTC))  # fmt: skip
    assert _window(r)["first_day_start"] == "15:00"


def test_too_little_of_todays_hours_left_is_not_ok_and_asks_another_day(env):
    r = env("规划今天上海行程，去外滩，下午2点到3点半")  # FIXED_NOW is 15:00: half an hour of the window is left
    assert r.result.status == "NEED_MORE_INFO"
    assert {"code": "missing", "args": {"field": "day_window", "problem": "DAY_OVER"}} in [
        s.model_dump() for s in r.result.next_steps
    ]
    assert "已所剩无几或已经过去" in r.result.answer_text


def test_a_plan_for_another_day_keeps_the_whole_window(env):
    r = env("规划明天上海行程，去外滩")
    assert _window(r)["first_day_start"] is None
    assert min(e["start"] for e in r.result.payload.timeline) == "10:00"
