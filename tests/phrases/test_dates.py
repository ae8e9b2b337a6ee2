"""core.phrases.dates: the one reader of day phrases (issue 19, item 4)."""

from __future__ import annotations

from datetime import date

import pytest

from core.phrases.dates import find_days, first_day, mask_days

FRIDAY = date(2026, 11, 27)


@pytest.mark.parametrize(
    ("text", "day", "kind", "assumed"),
    [
        ("周六天气", "2026-11-28", "weekday", True),
        ("星期天去哪", "2026-11-29", "weekday", True),
        ("周五", "2026-11-27", "weekday", True),  # today is Friday: today
        ("本周六", "2026-11-28", "weekday", False),
        ("这周一", "2026-11-23", "weekday", False),  # this week's, gone by
        ("下周三", "2026-12-02", "weekday", False),
        ("下下周六", "2026-12-12", "weekday", False),
        ("上周六", "2026-11-21", "weekday", False),
        ("这周末", "2026-11-28", "weekend", False),
        ("周末", "2026-11-28", "weekend", True),
        ("下周末", "2026-12-05", "weekend", False),
        ("今晚", "2026-11-27", "relative", False),
        ("明早", "2026-11-28", "relative", False),
        ("大后天", "2026-11-30", "relative", False),
        ("28号", "2026-11-28", "day_of_month", False),
        ("二十八号", "2026-11-28", "day_of_month", False),
        ("3号", "2026-12-03", "day_of_month", False),  # the 3rd has gone by this month: next month's
        ("28日晚上", "2026-11-28", "day_of_month", False),
        ("12月1日", "2026-12-01", "month_day", False),
        ("十二月五号", "2026-12-05", "month_day", False),
        ("1月3日", "2027-01-03", "month_day", False),  # the nearest 3 January is next year's
        ("11月20日", "2026-11-20", "month_day", False),  # the nearest 20 November is a week ago
        ("2月29日", "2028-02-29", "month_day", False),  # only leap years have it: the next one
        ("2026年12月1日", "2026-12-01", "date", False),
        ("2026-12-01", "2026-12-01", "date", False),
        ("tonight", "2026-11-27", "relative", False),
        ("the day after tomorrow", "2026-11-29", "relative", False),
        ("Saturday", "2026-11-28", "weekday", True),
        ("this Saturday", "2026-11-28", "weekday", False),
        ("next Friday", "2026-12-04", "weekday", False),
        ("last Saturday", "2026-11-21", "weekday", False),
        ("next weekend", "2026-12-05", "weekend", False),
        ("on the 3rd", "2026-12-03", "day_of_month", False),
        ("Dec 1", "2026-12-01", "month_day", False),
        ("December 1st", "2026-12-01", "month_day", False),
        ("the 1st of December", "2026-12-01", "month_day", False),
        ("12/1", "2026-12-01", "month_day", False),
        ("12.1", "2026-12-01", "month_day", False),
        ("12-01", "2026-12-01", "month_day", False),
    ],
)
def test_a_day_phrase_is_read_against_today(text: str, day: str, kind: str, assumed: bool) -> None:
    p = first_day(text, today=FRIDAY)
    assert p is not None
    assert (p.day and p.day.isoformat(), p.kind, p.assumed) == (day, kind, assumed)


@pytest.mark.parametrize(
    "text",
    ["坐5号线", "3号楼门口", "3日游", "上午10-12", "10-12点", "12.5公里", "2/3 of the way", "下午2点到6点", "预算300元", "",
     "12:30", "三个小时"],
)  # fmt: skip
def test_numbers_that_only_look_like_days_are_none(text: str) -> None:
    assert find_days(text, today=FRIDAY) == []


@pytest.mark.parametrize("text", ["2月30日", "13月1日", "2026-02-30", "Feb 30"])
def test_a_date_that_cannot_exist_is_a_phrase_without_a_day(text: str) -> None:
    p = first_day(text, today=FRIDAY)
    assert p is not None and p.day is None and p.text == text


def test_every_day_in_order_with_its_span() -> None:
    text = "明天或者下周三，12月5号也行"
    days = find_days(text, today=FRIDAY)
    assert [(p.text, p.day.isoformat() if p.day else None) for p in days] == [
        ("明天", "2026-11-28"),
        ("下周三", "2026-12-02"),
        ("12月5号", "2026-12-05"),
    ]
    assert all(text[p.start : p.end] == p.text for p in days)
    assert mask_days(text) == "  或者   ，     也行"


def test_case_is_ignored_and_the_longest_reading_wins() -> None:
    assert first_day("NEXT SATURDAY please", today=FRIDAY).text == "NEXT SATURDAY"  # type: ignore[union-attr]
    assert first_day("the day after tomorrow", today=FRIDAY).day == date(2026, 11, 29)  # type: ignore[union-attr]


# ---- days or weeks from today (issue 31): a count with 后 / later / from now, or "in N days", is a date -----------
@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("10天后去看看", "2026-12-07"),
        ("三天以后的天气", "2026-11-30"),
        ("5日之后", "2026-12-02"),
        ("两周后出发", "2026-12-11"),
        ("一个星期以后", "2026-12-04"),
        ("in 6 days", "2026-12-03"),
        ("in three days", "2026-11-30"),
        ("in two weeks' time", "2026-12-11"),
        ("in a week", "2026-12-04"),
        ("four days later", "2026-12-01"),
        ("9 days from now", "2026-12-06"),
        ("a week from today", "2026-12-04"),
    ],
)
def test_a_count_of_days_from_today_is_an_absolute_date(text: str, day: str) -> None:
    phrase = first_day(text, today=FRIDAY)
    assert phrase is not None and phrase.kind == "in_days" and phrase.day == date.fromisoformat(day)


@pytest.mark.parametrize("text", ["3天行程", "玩五天", "第2天后去外滩", "a 4 days trip", "each 3 days", "每2天"])
def test_a_count_of_days_without_later_is_no_date(text: str) -> None:
    assert [p for p in find_days(text, today=FRIDAY) if p.kind == "in_days"] == []


def test_only_the_kinds_asked_are_masked() -> None:
    said = "明天订，10天后再去"
    assert mask_days(said, kinds=("in_days",)) == "明天订，" + " " * 4 + "再去"
    assert mask_days(said) == " " * 2 + "订，" + " " * 4 + "再去"


# ---- ranges of days (issue 31): read as their first and last day, never as hours -----------------------------------
@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("plan a trip from 10 to 12 Dec", "2026-12-10", "2026-12-12"),
        ("10-12 Dec in Shanghai", "2026-12-10", "2026-12-12"),  # not October 12
        ("Dec 10 to 12", "2026-12-10", "2026-12-12"),
        ("between 4 and 6 January", "2027-01-04", "2027-01-06"),
        ("the 30th to the 2nd of Jan", "2026-12-30", "2027-01-02"),  # the month named is the last day's
        ("Dec 30 - 2", "2026-12-30", "2027-01-02"),
        ("12月10日到12日", "2026-12-10", "2026-12-12"),
        ("12月10-12日去上海", "2026-12-10", "2026-12-12"),
        ("十二月八号至十号", "2026-12-08", "2026-12-10"),
        ("12月30日到1月2日", "2026-12-30", "2027-01-02"),
        ("30 Dec to 2 Jan", "2026-12-30", "2027-01-02"),  # each month named: across the year's end
        ("Dec 30 to Jan 2 in Shanghai", "2026-12-30", "2027-01-02"),
        ("Nov 30 - Dec 2, 2 people", "2026-11-30", "2026-12-02"),
        ("from 30th January to 2nd February", "2027-01-30", "2027-02-02"),
    ],
)
def test_a_range_of_days_is_its_first_and_last_day(text: str, first: str, last: str) -> None:
    from core.phrases.dates import day_range

    today = date(2026, 11, 27)
    assert day_range(text, today=today) == (date.fromisoformat(first), date.fromisoformat(last))
    assert first_day(text, today=today).day == date.fromisoformat(first)  # type: ignore[union-attr]


@pytest.mark.parametrize("text", ["from 10 to 12", "Dec 10 to 12pm", "3-4 people on Dec 5", "上午10-12点"])
def test_hours_and_counts_are_no_range_of_days(text: str) -> None:
    from core.phrases.dates import day_range

    assert day_range(text, today=date(2026, 11, 27)) is None


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Dec 30 to Jan 2", ["Dec 30", "Jan 2"]),
        ("30 Dec to 2 Jan", ["30 Dec", "2 Jan"]),
        ("12月30日到1月2日", ["12月30", "1月2日"]),
    ],
)
def test_a_range_across_months_is_two_days_each_with_its_month(text: str, said: list[str]) -> None:
    assert [p.text for p in find_days(text, today=date(2026, 11, 27))] == said
