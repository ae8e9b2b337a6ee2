"""A lock at a time the plan cannot keep names the real reason (issue 32, X8): the day's end or start when the place
is open then, the opening hours (with the hours) when it is not, in both languages."""

from __future__ import annotations

import pytest

from core.itinerary.edits import reoptimize
from core.itinerary.pipeline import plan_itinerary
from core.models.itinerary import LockEdit, TripRequest
from core.words.itinerary import reason_sentence
from tests.support.itinerary_packs import MONDAY, trip

EVENING_DAY = {"date": MONDAY.isoformat(), "start_time": "09:00", "end_time": "20:00"}


def _refused(provider, settings, place_id: str, start: str, day: dict) -> tuple:
    request = TripRequest.model_validate(trip(["i-jingan", place_id], days=[day]))
    plan = plan_itinerary(request, provider=provider, settings=settings)
    after = reoptimize(plan, [LockEdit(key=place_id, start_time=start)], provider=provider, settings=settings)
    item = next(d for d in after.dropped_items if d.key == place_id)
    return item, after


@pytest.mark.parametrize("start", ["19:00", "19:20", "19:45"])
def test_a_lock_too_late_for_the_day_blames_the_days_end_not_the_hours_of_a_place_always_open(
    provider, settings, start
):
    # The Bund is open round the clock; a 60-minute visit from 19:00 or later, then the way back, ends after 20:00
    item, after = _refused(provider, settings, "i-bund", start, EVENING_DAY)
    assert item.reason_code == "PAST_DAY_END"
    assert item.facts["day_end"] == "20:00" and item.facts["start"] == start
    assert item.facts["open_hours"] == "00:00-24:00"
    zh, en = reason_sentence(item, after, "zh"), reason_sentence(item, after, "en")
    assert "20:00" in zh and start in zh and "开放时间" not in zh
    assert "20:00" in en and start in en and "opening hours" not in en and "open on" not in en


def test_a_lock_before_the_days_start_says_so(provider, settings):
    item, after = _refused(provider, settings, "i-bund", "08:15", EVENING_DAY)
    assert item.reason_code == "BEFORE_DAY_START" and item.facts["day_start"] == "09:00"
    assert reason_sentence(item, after, "en") == "08:15 is before the day starts at 09:00"


def test_a_lock_after_closing_blames_the_opening_hours_and_names_them(provider, settings):
    # Oriental Pearl closes at 21:30: a 90-minute visit from 21:00 does not fit it, on a day that runs to 23:30
    late_day = {"date": MONDAY.isoformat(), "start_time": "09:00", "end_time": "23:30"}
    item, after = _refused(provider, settings, "i-pearl", "21:00", late_day)
    assert item.reason_code == "OUTSIDE_OPENING_HOURS" and item.facts["open_hours"] == "09:00-21:30"
    assert reason_sentence(item, after, "zh") == "从 21:00 开始游览 90 分钟，超出当天的开放时间（09:00–21:30）"
    assert reason_sentence(item, after, "en") == (
        "a 90-minute visit from 21:00 does not fit its opening hours that day (09:00–21:30)"
    )
