"""The reservation flow's pure parts: the form's default slot (the venue's next slot, the earliest bookable one on
a fixed clock), and the words chosen for codes, prices, policies and fees."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import pytest
from pydantic import ValidationError

from components.reservation_words import error_of, fee_words, policy_words, price_words, refusal_pair
from components.reservations import earliest_slot, next_slot, offer_for
from core.packs.loader import load_region
from core.reservations import store
from core.reservations.catalog import item_for
from core.reservations.models import CancellationPolicy, Quote, Reservation, ReservationRequest
from core.reservations.service import ReservationService

PACK = load_region("shanghai")
MUSEUM = item_for(PACK, "sh-science-tech-museum")  # 09:00-16:00 every 30 min, 12 h ahead
RESTAURANT = item_for(PACK, "sh-lao-jesse")  # 11:00-20:30 every 30 min, 1 h ahead
THEATRE = item_for(PACK, "sh-grand-theatre")  # free until 48 h before, then half the total


def service_at(tmp_path, now: datetime) -> ReservationService:
    engine = store.engine_for(f"sqlite:///{tmp_path / 'words.db'}")
    return ReservationService(pack=PACK, engine=engine, clock=lambda: now)


def test_a_planned_arrival_is_rounded_up_to_the_venues_next_slot():
    assert next_slot(MUSEUM, time(10, 10)) == time(10, 30)
    assert next_slot(MUSEUM, time(10, 30)) == time(10, 30)
    assert next_slot(MUSEUM, time(8, 0)) == time(9, 0)
    assert next_slot(MUSEUM, time(17, 45)) == time(16, 0)  # after the last slot: the last one


@pytest.mark.parametrize(
    "now,item,expected",
    [
        (datetime(2026, 12, 1, 1, 0, tzinfo=UTC), RESTAURANT, (date(2026, 12, 1), time(11, 0))),  # 09:00 local
        (datetime(2026, 12, 1, 5, 10, tzinfo=UTC), RESTAURANT, (date(2026, 12, 1), time(14, 30))),  # 13:10 local
        (datetime(2026, 12, 1, 13, 0, tzinfo=UTC), RESTAURANT, (date(2026, 12, 2), time(11, 0))),  # 21:00 local
        (datetime(2026, 12, 1, 1, 0, tzinfo=UTC), MUSEUM, (date(2026, 12, 2), time(9, 0))),  # 12 h ahead: tomorrow
    ],
)
def test_the_earliest_bookable_slot_is_today_or_tomorrow(tmp_path, now, item, expected):
    assert earliest_slot(service_at(tmp_path, now), item) == expected


def test_an_offer_keeps_the_trips_day_unless_it_can_no_longer_be_booked(tmp_path):
    service = service_at(tmp_path, datetime(2026, 12, 1, 1, 0, tzinfo=UTC))
    ahead = offer_for(service, MUSEUM.id, key="k", label="x", day=date(2026, 12, 5), at=time(13, 40))
    assert (ahead.default_date, ahead.default_time, ahead.note) == (date(2026, 12, 5), time(14, 0), None)
    past = offer_for(service, MUSEUM.id, key="k", label="x", day=date(2025, 6, 14), at=time(13, 40))
    assert (past.default_date, past.default_time) == (date(2026, 12, 2), time(9, 0))
    assert "can no longer be booked" in past.note[1] and "2025年6月14日" in past.note[0]
    assert offer_for(service, "sh-oriental-pearl", key="k", label="x") is None  # not bookable in the pack


def test_policies_prices_and_fees_in_words():
    starts = datetime(2026, 12, 5, 19, 0, tzinfo=UTC)
    zh, en = policy_words(THEATRE.terms.cancellation, starts, datetime(2026, 12, 1, tzinfo=UTC))
    assert en == (
        "Free cancellation until 48 h before the start (03 Dec 19:00); after that 50% of the total is charged."
    )
    assert "48 小时" in zh and "50%" in zh
    late = policy_words(THEATRE.terms.cancellation, starts, datetime(2026, 12, 4, tzinfo=UTC))[1]
    assert late.endswith("The free period is already over.")
    assert policy_words(RESTAURANT.terms.cancellation, starts)[1] == "Free cancellation at any time."

    quote = Quote(price_per_person=280.0, total=840.0, source="region pack shanghai: price_per_person")
    assert price_words(quote, 3)[1] == ("¥280 per person, ¥840 for 3 (price from the region pack).")
    unknown = Quote(price_per_person=None, total=None, source="unknown")
    assert price_words(unknown, 2) == (
        "价格未知（地区数据包中没有价格）。",
        "Price unknown (the region pack has none).",
    )
    reservation = Reservation(
        id="r-1", user_id="u", item_id=THEATRE.id, item_name=THEATRE.name, date=date(2026, 12, 5), time=time(19),
        party_size=3, contact="", notes="", status="confirmed", quote=quote,
        policy=CancellationPolicy(free_until_hours=48, fee_share=0.5), created_at=starts,
    )  # fmt: skip
    assert fee_words(420.0, reservation) == ("现在取消将收取 ¥420。", "Cancelling now costs ¥420.")
    assert fee_words(0.0, reservation)[1] == "Cancelling now is free."


def test_refusal_codes_become_sentences_with_the_venues_terms():
    assert refusal_pair({"code": "TOO_LATE", "field": "time"}, MUSEUM)[1] == (
        "Bookings for this slot have closed: they close 12 h before it starts. Pick a later time or day."
    )
    assert refusal_pair({"code": "SLOT_FULL", "asked": "19:00"}, RESTAURANT) == (
        "19:00 已订满。",
        "19:00 is fully booked.",
    )
    assert refusal_pair({"code": "PARTY_TOO_LARGE"}, THEATRE)[1] == "At most 8 people per booking."
    assert refusal_pair({"code": "SOMETHING_NEW"})[1] == "The reservation did not go through."
    with pytest.raises(ValidationError) as caught:
        ReservationRequest(item_id=MUSEUM.id, date=date(2026, 12, 5), time=time(10), party_size=0)
    error = error_of(caught.value)
    assert (error["code"], error["field"]) == ("INVALID_INPUT", "party_size")
    assert refusal_pair(error) == ("预订信息有误：人数。", "Something in the booking is not valid: party size.")
