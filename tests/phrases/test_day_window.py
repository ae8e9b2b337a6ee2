"""The day's window a trip request states (core/phrases/day_window.py), in Chinese and English."""

from __future__ import annotations

import unicodedata

import pytest

from core.phrases.day_window import find_day_window, hhmm

DEFAULTS = {"default_start": 10 * 60, "default_end": 20 * 60}


def _window(text: str) -> tuple[str | None, str | None, str | None]:
    said = find_day_window(unicodedata.normalize("NFKC", text))
    assert said is not None, text
    start, end = said.resolved(**DEFAULTS)
    return (hhmm(start) if start is not None else None, hhmm(end) if end is not None else None,
            said.problem(**DEFAULTS))  # fmt: skip


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("两天行程，每天上午九点半出发，傍晚6点前回酒店", "09:30", "18:00"),
        ("一天的安排：7点到14点就好", "07:00", "14:00"),
        ("规划一天，玩到晚上8点半为止", "10:00", "20:30"),  # only the end: the default start
        ("明天11点出门", "11:00", "20:00"),  # only the start: the default end
        ("下午1点出发，9点前回来", "13:00", "21:00"),  # a bare 9 after a 13:00 start is 21:00
        ("one day, out at 8:15, home by 4", "08:15", "16:00"),
        ("two days, 10.30am-5pm each day", "10:30", "17:00"),
        ("we'd like to start at 7 and be done by 2pm", "07:00", "14:00"),
        ("plan a day; we have to be back at the hotel before 5 o'clock", "10:00", "17:00"),
        ("leaving at noon, returning by 9pm", "12:00", "21:00"),
        ("two days in Shanghai, from 9 to 5 each day", "09:00", "17:00"),  # a range of bare hours, not 4:51
        ("一天就好，8点至16点", "08:00", "16:00"),
    ],
)
def test_the_window_a_message_states(text, start, end):
    assert _window(text) == (start, end, None)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("晚上9点出发，早上6点前回来", "END_NOT_AFTER_START"),
        ("be back by 9am", "END_NOT_AFTER_START"),  # the default start is 10:00
        ("从25点开始", "TIME_NOT_VALID"),
        ("从25点到3点", "TIME_NOT_VALID"),
    ],
)
def test_a_window_that_cannot_be_a_day_says_why(text, problem):
    assert _window(text)[2] == problem


@pytest.mark.parametrize(
    "text", ["规划两天上海行程", "晚上7点吃饭，规划一天", "plan a day, dinner at 7pm", "book a table at 7 for 2 people"]
)
def test_a_time_that_ends_nothing_is_no_window(text):
    assert find_day_window(text) is None


# ---- ranges of time (issue 31): an end's am/pm carries to the other when that keeps the start first --------------
@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("plan a day in Shanghai, from 2 to 9pm", "14:00", "21:00"),  # not "two minutes to 9pm"
        ("one day at the Bund, 2-9pm", "14:00", "21:00"),
        ("one day, 2pm-9pm please", "14:00", "21:00"),
        ("a day out, 2 till 9 pm", "14:00", "21:00"),
        ("plan a day between 1pm and 8pm", "13:00", "20:00"),
        ("plan a day between 1 and 8 in the evening", "13:00", "20:00"),
        ("from noon to 6, show us the old town", "12:00", "18:00"),
        ("two days, 10am to 4 each day", "10:00", "16:00"),
        ("9 to 5 is enough for us", "09:00", "17:00"),
        ("we can do 11 until 7:30pm", "11:00", "19:30"),
        ("from 8:30 to 3", "08:30", "15:00"),
        ("plan a day from 3 to 11pm", "15:00", "23:00"),
        ("between 7 and 10 in the morning", "07:00", "10:00"),
        ("from eleven to five", "11:00", "17:00"),
        ("规划一天，下午两点到晚上九点", "14:00", "21:00"),
        ("中午到傍晚六点逛逛", "12:00", "18:00"),
        ("上午9点-下午5点", "09:00", "17:00"),
        ("10点到16点", "10:00", "16:00"),
        ("早上七点半到十一点", "07:30", "11:00"),
        ("从一点到八点就行", "13:00", "20:00"),
        ("中午12点至晚上8点半", "12:00", "20:30"),
        ("九点到下午四点", "09:00", "16:00"),
        ("下午1点~6点", "13:00", "18:00"),
        ("一天，8:00-17:30", "08:00", "17:30"),
    ],
)
def test_a_range_of_time_is_the_window(text, start, end):
    assert _window(text) == (start, end, None)


@pytest.mark.parametrize(
    "text",
    [
        "from 9pm to 5",  # no reading of 5 comes after 21:00
        "晚上9点到6点",
        "下午3点到1点",
        "between 10pm and 8am",
    ],
)
def test_a_range_no_reading_makes_a_day_says_so(text):
    assert _window(text)[2] == "END_NOT_AFTER_START"


@pytest.mark.parametrize(
    "text",
    [
        "3-4 people, plan a day",
        "2到5个人一起玩",
        "Dec 1 to 5 in Shanghai",
        "days 1 to 3 in Shanghai",
        "ten to eight",
        "two days, 2 to 3 museums a day",
        "from 4 to 6 sights, please",
        "3到4家店",
        "between 20 and 30 euros each",
        "lunch between 10 and 20 euros",
        "午饭10到20欧",
        "museum tickets 10 to 15 EUR",
        "from 10 to 20 dollars a head",
        "10 to 12 December in Shanghai",
        "we are 2 to 4, plan a day",
        "kids of ages 5 to 10",
        "2 to 3 person",
        "8 to 10 of us",
        "meet at gate 3 to 5",
        "on 2026-12-05, plan a day",
        "12-15出发",
    ],
)
def test_counts_and_days_are_no_range(text):
    from core.phrases.clock_range import find_ranges

    assert find_ranges(unicodedata.normalize("NFKC", text)) == []


# ---- a range of dates is no window of hours (issue 31): "from 10 to 12 Dec" was read as 11:50 ("ten to twelve") ---
@pytest.mark.parametrize(
    "text",
    [
        "plan a trip from 10 to 12 Dec, the Bund and Yu Garden",
        "Shanghai from 10 to 12 December please",
        "two nights, Dec 10 to 12",
        "we fly in Jan 3 to 6 and want museums",
        "from the 4th to the 7th of March, a slow trip",
        "2 to 5 Feb in Helsinki",
        "规划12月10日到12日的上海行程",
        "1月3号到6号去赫尔辛基",
        "12月10-12日，去外滩",
    ],
)
def test_a_range_of_dates_is_no_window(text):
    assert find_day_window(unicodedata.normalize("NFKC", text)) is None


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("Dec 12, from 9 to 5", "09:00", "17:00"),  # a date and a window: the window is the hours
        ("12月12日，早上9点到下午5点", "09:00", "17:00"),
        ("on 3 Jan, leaving at 8 and back by 6", "08:00", "18:00"),
    ],
)
def test_hours_said_beside_a_date_are_still_the_window(text, start, end):
    assert _window(text) == (start, end, None)
