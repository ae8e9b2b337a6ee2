"""The shared clock, party and trip-day readers (issue 22 §1), on the messages the issue names and their kin."""

from __future__ import annotations

import pytest

from core.phrases.clock import find_clocks, first_clock
from core.phrases.party import find_party
from core.phrases.trip import find_day_assignments, find_day_count, find_start


@pytest.mark.parametrize(
    ("text", "hhmm"),
    [
        ("帮我订明晚7点两个人的本帮菜", "19:00"),  # the 两 of 两个人 is the party, not two minutes
        ("订明天晚上七点的本帮菜，两位", "19:00"),
        ("晚上七点半", "19:30"),
        ("下午两点一刻", "14:15"),
        ("晚上7点三刻", "19:45"),
        ("19:30", "19:30"),
        ("tomorrow at 6:30 pm", "18:30"),
        ("6.30pm", "18:30"),
        ("7pm", "19:00"),
        ("quarter to 8 in the evening", "19:45"),
        ("noon", "12:00"),
        ("中午1点", "13:00"),
        ("上午10点", "10:00"),
        ("晚上12点", "00:00"),
    ],
)
def test_a_time_said_with_its_part_of_the_day_is_one_clock_with_its_minutes(text, hhmm):
    clock = first_clock(text)
    assert clock is not None and clock.hhmm == hhmm


@pytest.mark.parametrize(
    ("text", "readings", "minute"),
    [("7点", (7, 19), 0), ("七点一刻", (7, 19), 15), ("7点半", (7, 19), 30), ("half past 7", (7, 19), 30),
     ("七点零五", (7, 19), 5), ("7点3个人", (7, 19), 0), ("at 7 for 2", (7, 19), 0)],
)  # fmt: skip
def test_a_bare_hour_is_two_readings_until_something_settles_it(text, readings, minute):
    clock = first_clock(text)
    assert clock is not None and clock.hour is None and (clock.readings, clock.minute) == (readings, minute)
    assert clock.settle(evening=True) == readings[1] and clock.settle(evening=False) is None


@pytest.mark.parametrize("text", ["便宜一点", "12.5公里", "2/3 of us", "人均200", "周六中午"])
def test_no_clock_in_words_that_only_look_like_one(text):
    assert find_clocks(text) == []


def test_an_impossible_time_is_a_phrase_that_says_so():
    clock = first_clock("25:00")
    assert clock is not None and not clock.valid and clock.hhmm is None


@pytest.mark.parametrize(
    ("text", "size", "adults", "children"),
    [
        ("帮我订明晚7点两个人的本帮菜", 2, None, None),
        ("订明天晚上七点的本帮菜，两位", 2, None, None),
        ("3人", 3, None, None),
        ("一家三口", 3, None, None),
        ("我们四个去", 4, None, None),
        ("我们一行5人", 5, None, None),
        ("两个大人一个孩子", 3, 2, 1),
        ("2大1小", 3, 2, 1),
        ("for 3 people tomorrow", 3, None, None),
        ("a table for two", 2, None, None),
        ("party of 4", 4, None, None),
        ("2 adults and 1 child", 3, 2, 1),
        ("just me", 1, None, None),
        ("我和老婆", 2, None, None),
    ],
)
def test_party_sizes(text, size, adults, children):
    party = find_party(text)
    assert party is not None and (party.size, party.adults, party.children) == (size, adults, children)


@pytest.mark.parametrize("text", ["人均200", "人民广场", "我们一起去", "for 2 nights", "Book for 2026-12-01"])
def test_no_party_in_words_that_only_look_like_one(text):
    assert find_party(text) is None


@pytest.mark.parametrize(
    ("text", "days"),
    [("帮我规划两天上海行程", 2), ("plan a one-day trip", 1), ("三日游", 3), ("3天2夜", 3), ("2-day trip", 2),
     ("plan 3 days in shanghai", 3), ("Plan a day trip", 1), ("a weekend trip to Shanghai", 2)],
)  # fmt: skip
def test_day_counts(text, days):
    count = find_day_count(text)
    assert count is not None and count.days == days


@pytest.mark.parametrize("text", ["第一天去外滩", "这两天天气怎么样", "两天后出发", "明天去豫园", "28日去"])
def test_no_day_count_in_a_day_of_the_trip_or_a_date(text):
    assert find_day_count(text) is None


def _days(text):
    return [(a.day, a.last, text[a.start : a.end].strip(" ,，;；.")) for a in find_day_assignments(text)]


def test_day_assignments_in_chinese():
    assert _days("帮我规划两天上海行程，第一天外滩和豫园，第二天迪士尼") == [
        (1, False, "外滩和豫园"),
        (2, False, "迪士尼"),
    ]
    assert _days("外滩放第一天，豫园放第二天") == [(1, False, "外滩放"), (2, False, "豫园放")]
    assert _days("D1 外滩 D2 豫园") == [(1, False, "外滩"), (2, False, "豫园")]
    assert _days("最后一天去迪士尼") == [(None, True, "迪士尼")]


def test_day_assignments_in_english_before_or_after_their_marker():
    assert _days("Day 1: the Bund and Yu Garden; day 2: Disneyland") == [
        (1, False, "the Bund and Yu Garden"),
        (2, False, "Disneyland"),
    ]
    said = "I want to see the Bund and Yu Garden on day 1, Disney on day 2"
    assert _days(said) == [(1, False, "I want to see the Bund and Yu Garden"), (2, False, "Disney")]
    assert [d for d, _, _ in _days("the Bund on the first day and Yu Garden on the second day")] == [1, 2]
    assert _days("On the second day we will visit Disneyland.")[0][:2] == (2, False)


def test_the_next_day_follows_the_day_said_before_it_and_a_bare_ordinal_ends_a_day():  # issue 31
    assert _days("头一天去武康大楼，次日去静安寺，隔天去多伦路") == [
        (1, False, "武康大楼"),
        (2, False, "静安寺"),
        (3, False, "多伦路"),
    ]
    assert _days("第二天豫园，翌日外滩") == [(2, False, "豫园"), (3, False, "外滩")]
    assert _days("day 2 Xintiandi; the following day M50") == [(2, False, "Xintiandi"), (3, False, "M50")]
    said = "we'd like Jade Buddha Temple on the second day and M50 on the third"
    (d2, _, words2), (d3, _, words3) = _days(said)
    assert (d2, d3) == (2, 3) and "Jade Buddha Temple" in words2 and "M50" in words3 and "Jade" not in words3
    said = "the Bund on day 1, the next day Yu Garden, and Tianzifang on the last day"
    assert [(d, last) for d, last, _ in _days(said)] == [(1, False), (2, False), (None, True)]
    assert [w.removeprefix("and ") for _, _, w in _days(said)] == ["the Bund", "Yu Garden", "Tianzifang"]
    assert _days("the day after tomorrow we fly; on the third floor") == []


@pytest.mark.parametrize(
    ("text", "name", "hotel"),
    [("从酒店出发", "", True), ("从人民广场出发，去外滩", "人民广场", False), ("住在静安寺附近", "静安寺", False),
     ("starting from People's Square, see the Bund", "People's Square", False),
     ("we are staying at the Peace Hotel and want", "the Peace Hotel", False), ("starting from our hotel", "", True)],
)  # fmt: skip
def test_start_points(text, name, hotel):
    start = find_start(text)
    assert start is not None and (start.name, start.hotel) == (name, hotel)


@pytest.mark.parametrize(
    ("text", "hhmm"),
    [
        ("下午3点 2.5小时", "15:00"),
        ("下午2点 45分钟 喝杯咖啡", "14:00"),
        ("晚上7点30分钟后出发", "19:00"),
        ("下午3点15分", "15:15"),
    ],
)
def test_a_number_after_the_hour_that_measures_time_is_no_minute(text, hhmm):
    """Found by the half-day goal set once the goal reader used this reader: 2.5小时 and 45分钟 are durations."""
    assert first_clock(text).hhmm == hhmm


def test_the_half_day_goal_and_the_booking_reader_read_one_time_the_same():
    """One reader for every face: the half-day goal's start is the booking reader's clock."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from core.halfday.goal import decompose_goal

    now = datetime(2026, 11, 27, 9, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    for text in ("明天下午两点半带孩子去博物馆", "明天下午3点15分去公园", "tomorrow at 2:45 pm, a museum"):
        goal = decompose_goal(text, now=now)
        assert goal.window is not None and goal.window.start.strftime("%H:%M") == first_clock(text).hhmm, text


@pytest.mark.parametrize(
    ("text", "adults", "children"),
    [
        ("明天下午两位去喝咖啡", 2, 0),
        ("明天下午我们四个去公园", 4, 0),
        ("tomorrow afternoon, a table for two at a cafe", 2, 0),
        ("Saturday afternoon for 3 people, a museum", 3, 0),
        ("明天下午2大1小去动物园", 2, 1),
    ],
)
def test_the_half_day_goal_reads_a_party_as_the_booking_reader_does(text, adults, children):
    """One party reader for every face: what the shared reader finds, the half-day goal's party is."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from core.halfday.goal import decompose_goal

    party = decompose_goal(text, now=datetime(2026, 11, 27, 9, 0, tzinfo=ZoneInfo("Asia/Shanghai"))).party
    assert (party.adults, party.children) == (adults, children)
    assert find_party(text).size == adults + children


@pytest.mark.parametrize(
    ("text", "times"),
    [
        ("五天后中午订绿波廊", ["12:00"]),  # 中午 alone: noon where a time of day is needed
        ("周六中午", ["12:00"]),
        ("中午1点出发", ["13:00"]),  # an hour after 中午 is that hour, once
        ("中午 12点", ["12:00"]),
        ("中午到傍晚六点", ["12:00", "18:00"]),
        ("正午出发，晚上9点回", ["12:00", "21:00"]),
        ("下午茶", []),
    ],
)
def test_noon_said_alone_is_a_time_of_day_where_one_is_needed(text, times):
    from core.phrases.clock import find_times_of_day

    assert [c.hhmm for c in find_times_of_day(text)] == times
