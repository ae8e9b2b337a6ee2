"""The calendar at its edges, through the product's clock (OMNI_NOW), on every face's path (core.app):

- 23:30 in Shanghai on New Year's Eve, when UTC is still at 15:30: "tomorrow" is 1 January of the next year;
- 23:30 in Shanghai on 29 February (15:30 UTC): "tomorrow" is 1 March, and a booking for the 29th is too late;
- 00:30 in Shanghai on 1 March, when Helsinki is still on the leap day: each region's "today" is its own.

These are the moments at which a product that took the machine's day, or UTC's, would answer with the wrong date.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from core.app import agent as agent_app
from core.app import halfday as halfday_app
from core.app import reservations as reservations_app
from core.app.context import AppServices
from core.config import Settings
from core.errors import OmniError
from core.models.halfday.plans import HalfDayRequest
from core.models.reservations import ReservationRequest

SHANGHAI = ZoneInfo("Asia/Shanghai")
NEW_YEARS_EVE = datetime(2026, 12, 31, 23, 30, tzinfo=SHANGHAI)
LEAP_NIGHT = datetime(2028, 2, 29, 23, 30, tzinfo=SHANGHAI)


def services_at(tmp_path, moment: datetime, **more) -> AppServices:
    settings = Settings(
        now=moment.isoformat(), db_url=f"sqlite:///{tmp_path / 'edge.db'}", cache_dir=None, provider="offline", **more
    )
    return AppServices(settings)


@pytest.mark.parametrize(
    "moment,tomorrow",
    [(NEW_YEARS_EVE, date(2027, 1, 1)), (LEAP_NIGHT, date(2028, 3, 1))],
    ids=["new-years-eve", "leap-night"],
)
def test_tomorrow_is_the_regions_tomorrow_late_at_night(tmp_path, moment, tomorrow):
    ctx = services_at(tmp_path, moment).context(user="alice", lang="en", region="shanghai")
    assert ctx.now().astimezone(UTC).hour == 15  # the machine's UTC day is still the day before
    weather = agent_app.ask(ctx, {"message": "What's the weather tomorrow?"})
    assert f"on {tomorrow.isoformat()}" in weather.result.answer_text, weather.result.answer_text
    events = list(halfday_app.plan_half_day(ctx, HalfDayRequest(goal="明天下午两个人去博物馆")))
    done = events[-1].data
    assert done.type == "plans", done
    assert done.result.goal.window.date == tomorrow


def test_a_booking_on_the_leap_day_closes_before_midnight_in_shanghai(tmp_path):
    ctx = services_at(tmp_path, LEAP_NIGHT).context(user="alice", lang="en", region="shanghai")
    service = ctx.reservations()
    item = next(i for i in (service.item(p.id) for p in service.pack.places) if i is not None)
    late = ReservationRequest(item_id=item.id, date=date(2028, 2, 29), time=item.slots()[-1], party_size=2)
    with pytest.raises(OmniError) as refused:
        reservations_app.dry_run(ctx, late)
    assert refused.value.code == "TOO_LATE"
    first_day, first_slot = service.earliest_slot(item)
    assert first_day >= date(2028, 3, 1)
    closes = datetime.combine(first_day, first_slot, SHANGHAI) - timedelta(hours=item.terms.lead_time_hours)
    assert closes >= LEAP_NIGHT
    ok = reservations_app.dry_run(
        ctx, ReservationRequest(item_id=item.id, date=first_day, time=first_slot, party_size=2)
    )
    assert ok.reservation.date == first_day and ok.expires_at == LEAP_NIGHT + timedelta(minutes=10)


def test_each_region_keeps_its_own_today_across_the_leap_day(tmp_path):
    services = services_at(tmp_path, datetime(2028, 3, 1, 0, 30, tzinfo=SHANGHAI))
    assert services.context(region="shanghai").today() == date(2028, 3, 1)
    assert services.context(region="helsinki").today() == date(2028, 2, 29)
    assert services.context(region="shanghai", timezone="Europe/Helsinki").today() == date(2028, 2, 29)


def test_a_demo_trip_moves_with_the_clock_not_the_machine():
    from core.app import itinerary as itinerary_app

    trip = {"region": "shanghai", "days": [{"date": "2025-12-29"}, {"date": "2025-12-31"}]}  # a Monday, a Wednesday
    moved = itinerary_app.demo_trip_from_today(trip, timezone="Asia/Shanghai", now=lambda: NEW_YEARS_EVE)
    # the first Monday on or after Thursday 31 December 2026 in Shanghai; the Wednesday two days after it
    assert [d["date"] for d in moved["days"]] == ["2027-01-04", "2027-01-06"]
