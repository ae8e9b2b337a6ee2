"""The trip and booking slot readers on the evaluation set (tests/agent/data/slots_eval.jsonl, issue 22 §1) and on
the messages the issue names, through the agent's own readers."""

from __future__ import annotations

from datetime import date, time

import pytest

from bench.slots import EVAL_SET, TODAY, evaluate, read_lines
from core.agent.booking import booking_slots
from core.agent.trip_request import read_trip, suggestion_room
from core.packs.loader import load_region

MIN_OVERALL = 0.95


@pytest.fixture(scope="module")
def shanghai():
    return load_region("shanghai")


def test_the_evaluation_set_is_read_at_95_percent_of_slots_exactly_right():
    lines = read_lines()
    assert len(lines) >= 200 and {line["lang"] for line in lines} == {"zh", "en"}
    assert {line["kind"] for line in lines} == {"trip", "booking"} and EVAL_SET.name == "slots_eval.jsonl"
    out = evaluate(lines)
    assert out["overall"] >= MIN_OVERALL, out["failures"]
    assert all(share >= 0.9 for share in out["per_slot"].values()), out["per_slot"]


def test_the_first_day_keeps_the_places_said_for_it(shanghai):
    for said in (
        "帮我规划两天上海行程，第一天外滩和豫园",
        "Plan a two-day Shanghai trip, day 1: the Bund and Yu Garden",
    ):
        trip = read_trip(said, shanghai)
        assert trip.days == 2 and trip.day_places == {1: ["sh-bund", "sh-yuyuan-garden"]}
        # day 1 is the person's: suggestions only fill day 2
        assert suggestion_room(trip, days=2, have=2) == 3


def test_a_start_point_said_is_the_start(shanghai):
    assert read_trip("两天上海，从人民广场出发", shanghai).start == "sh-peoples-square"
    assert read_trip("a 2-day trip starting from our hotel", shanghai).start == "hotel"
    assert read_trip("两天上海", shanghai).start is None


def test_a_one_day_trip_is_one_day(shanghai):
    assert read_trip("plan a one-day trip", shanghai).days == 1


@pytest.mark.parametrize(
    ("said", "when", "at", "party"),
    [
        ("帮我订明晚7点两个人的本帮菜", date(2026, 11, 28), time(19, 0), 2),
        ("订明天晚上七点的本帮菜，两位", date(2026, 11, 28), time(19, 0), 2),
        ("Book a Shanghainese restaurant for 3 people tomorrow at 6:30 pm", date(2026, 11, 28), time(18, 30), 3),
        # a day and 中午 / noon: that day at 12:00, not a question for the time (issue 31)
        ("五天后中午订绿波廊，两个人", date(2026, 12, 2), time(12, 0), 2),
        ("下周二中午帮我订个本帮菜，三位", date(2026, 12, 1), time(12, 0), 3),
        ("book Lu Bo Lang for 2 people in five days at noon", date(2026, 12, 2), time(12, 0), 2),
        ("a table for 4 the day after tomorrow at midday, Shanghainese food", date(2026, 11, 29), time(12, 0), 4),
    ],
)
def test_the_booking_reads_date_time_with_minutes_party_and_the_regions_city(shanghai, said, when, at, party):
    s = booking_slots(said, pack=shanghai, today=TODAY)
    assert (s.date, s.time, s.party, s.city) == (when, at, party, "shanghai")
    assert "date" not in s.missing() and "time" not in s.missing() and "party_size" not in s.missing()


def test_a_venue_name_with_a_fraction_is_no_date(shanghai):
    s = booking_slots("Book 8 1/2 Otto e Mezzo Bombana Shanghai tomorrow 7pm for 2", pack=shanghai, today=TODAY)
    assert s.date == date(2026, 11, 28)
