"""One day phrase, one date (issue 19, item 4): the agent's weather answer, the booking reader and the half-day goal
read the same day from the same words, all through core.phrases.dates. FIXED_NOW is Friday 2025-06-20, 15:00."""

from __future__ import annotations

import pytest

from core.agent.booking import booking_slots
from core.halfday.goal import decompose_goal
from tests.support.agent_packs import FIXED_NOW, agent_runner

ZH = [
    ("今天", "2025-06-20"),
    ("今晚", "2025-06-20"),
    ("明天", "2025-06-21"),
    ("明早", "2025-06-21"),
    ("明晚", "2025-06-21"),
    ("后天", "2025-06-22"),
    ("大后天", "2025-06-23"),
    ("周六", "2025-06-21"),
    ("星期天", "2025-06-22"),
    ("礼拜一", "2025-06-23"),
    ("本周六", "2025-06-21"),
    ("这周末", "2025-06-21"),
    ("下周三", "2025-06-25"),
    ("下个星期五", "2025-06-27"),
    ("下周末", "2025-06-28"),
    ("28号", "2025-06-28"),
    ("二十八号", "2025-06-28"),
    ("7月3日", "2025-07-03"),
    ("12月1日", "2025-12-01"),
    ("十二月五号", "2025-12-05"),
    ("2025年7月1日", "2025-07-01"),
    ("2025-07-01", "2025-07-01"),
]
EN = [
    ("today", "2025-06-20"),
    ("tonight", "2025-06-20"),
    ("this evening", "2025-06-20"),
    ("tomorrow", "2025-06-21"),
    ("the day after tomorrow", "2025-06-22"),
    ("Saturday", "2025-06-21"),
    ("on Sunday", "2025-06-22"),
    ("this Saturday", "2025-06-21"),
    ("this weekend", "2025-06-21"),
    ("next Wednesday", "2025-06-25"),
    ("next Friday", "2025-06-27"),
    ("next weekend", "2025-06-28"),
    ("on the 3rd", "2025-07-03"),
    ("on the 28th", "2025-06-28"),
    ("Dec 1", "2025-12-01"),
    ("December 1st", "2025-12-01"),
    ("1 Dec", "2025-12-01"),
    ("July 4th", "2025-07-04"),
    ("12/1", "2025-12-01"),
    ("12-01", "2025-12-01"),
]
CASES = [("zh", p, d) for p, d in ZH] + [("en", p, d) for p, d in EN]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return agent_runner(tmp_path_factory.mktemp("days"))


@pytest.mark.parametrize(("lang", "phrase", "day"), CASES, ids=[f"{lang}:{p}" for lang, p, _ in CASES])
def test_the_same_phrase_is_the_same_day_for_weather_booking_and_half_day(run, lang, phrase, day):
    weather = run(f"{phrase}天气怎么样" if lang == "zh" else f"What's the weather {phrase}?")
    assert weather.route.route == "SYSTEM1_API"
    said = next(e for e in weather.result.payload.evidence if e["type"] == "weather")
    booking = booking_slots(
        f"帮我订位，{phrase}，19:00，2位" if lang == "zh" else f"book a table {phrase} at 7pm for 2",
        pack=run.provider.region,
        today=FIXED_NOW.date(),
    )
    goal = decompose_goal(
        f"{phrase} 19:00-21:00 去博物馆" if lang == "zh" else f"museum {phrase} 19:00-21:00", now=FIXED_NOW
    )
    assert goal.window is not None, goal.missing
    assert (said["date"], booking.date.isoformat(), goal.window.date.isoformat()) == (day, day, day)


def test_saturday_weather_is_saturdays_not_todays(run):
    """The readers disagreed: the weather path read 周六天气 as today's weather, the booking reader as Saturday."""
    answer = run("周六天气")
    assert next(e for e in answer.result.payload.evidence if e["type"] == "weather")["date"] == "2025-06-21"
