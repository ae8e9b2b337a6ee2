"""Issue 31: a slot time with an offset (12:00+08:00, or the same moment in UTC) is the venue's own slot, read in the
venue's zone; a time whose offset puts it off the venue's slots is still refused, and one past midnight there moves
to the venue's day."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, timezone

import pytest

from core.models.reservations import ReservationRequest
from core.packs.loader import load_region
from core.reservations import store
from core.reservations.catalog import catalogue
from core.reservations.service import ReservationError, ReservationService
from tests.support.db import db_at

PACK = load_region("shanghai")  # Asia/Shanghai, +08:00
NOW = datetime(2026, 12, 1, 1, 0, tzinfo=UTC)
DAY = date(2026, 12, 6)
RESTAURANT = next(i for i in catalogue(PACK) if i.category == "restaurant")  # slots every 30 min, 11:00-20:30


@pytest.fixture
def service(tmp_path):
    return ReservationService(
        pack=PACK, engine=store.engine_for(db_at(f"sqlite:///{tmp_path / 'r.db'}")), clock=lambda: NOW
    )


def request_at(raw: str, day: date = DAY) -> ReservationRequest:
    """The request as the API receives it: the time is JSON text."""
    return ReservationRequest.model_validate(
        {"item_id": RESTAURANT.id, "date": day.isoformat(), "time": raw, "party_size": 2}
    )


@pytest.mark.parametrize(
    ("raw", "slot"),
    [("12:00+08:00", time(12, 0)), ("04:30:00Z", time(12, 30)), ("06:00-00:00", time(14, 0)), ("13:30", time(13, 30))],
)
def test_a_time_with_an_offset_is_the_venues_slot(service, raw, slot):
    assert RESTAURANT.terms.first_slot <= slot <= RESTAURANT.terms.last_slot
    dry = service.dry_run("alice", request_at(raw))
    assert (dry.reservation.date, dry.reservation.time) == (DAY, slot)


def test_an_offset_that_puts_the_time_off_the_slots_is_refused(service):
    with pytest.raises(ReservationError) as caught:  # 12:00 in Helsinki is 18:00 in Shanghai: fine; 12:10 is not
        service.dry_run("alice", request_at("12:10+02:00"))
    assert caught.value.code == "NOT_A_SLOT"
    assert service.dry_run("alice", request_at("12:00+02:00")).reservation.time == time(18, 0)


def test_the_offset_can_move_the_day_to_the_venues(service):
    late = datetime.combine(DAY, time(19, 30), tzinfo=timezone(timedelta(hours=-8)))  # 11:30 next day in Shanghai
    dry = service.dry_run("alice", request_at("19:30-08:00"))
    assert late.astimezone(service.zone).date() == DAY + timedelta(days=1)
    assert (dry.reservation.date, dry.reservation.time) == (DAY + timedelta(days=1), time(11, 30))


@pytest.mark.parametrize(("raw", "day"), [("00:00+00:22", date(1, 1, 1)), ("23:59-05:00", date(9999, 12, 31))])
def test_a_moment_with_no_date_in_the_venues_zone_is_bad_input_not_a_crash(service, raw, day):
    from core.errors import InputError

    with pytest.raises(InputError) as caught:  # found by the API contract test: an OverflowError answered 500
        service.dry_run("alice", request_at(raw, day))
    assert caught.value.field == "date" and day.isoformat() in caught.value.message
