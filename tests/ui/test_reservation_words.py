"""The reservation flow's pure parts: the form's default slot (the venue's next slot, the earliest bookable one on
a fixed clock), and the words chosen for codes, prices, policies and fees, in each language (reservations.po)."""

from __future__ import annotations

import inspect
import re
from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

import pytest
from pydantic import ValidationError

from components.reservation_words import (
    booking_words,
    clock_words,
    day_words,
    error_of,
    fee_words,
    moved_words,
    policy_words,
    price_words,
    refusal_words,
    status_words,
)
from components.reservations import note_words, offer_for
from core.models.reservations import CancellationPolicy, Quote, Reservation, ReservationRequest
from core.packs.loader import load_region
from core.reservations import store
from core.reservations.catalog import item_for
from core.reservations.service import ReservationService
from tests.support.db import db_at

PACK = load_region("shanghai")
MUSEUM = item_for(PACK, "sh-science-tech-museum")  # 09:00-16:00 every 30 min, 12 h ahead
RESTAURANT = item_for(PACK, "sh-lao-jesse")  # 11:00-20:30 every 30 min, 1 h ahead
THEATRE = item_for(PACK, "sh-grand-theatre")  # free until 48 h before, then half the total


def service_at(tmp_path, now: datetime) -> ReservationService:
    engine = store.engine_for(db_at(f"sqlite:///{tmp_path / 'words.db'}"))
    return ReservationService(pack=PACK, engine=engine, clock=lambda: now)


def test_a_planned_arrival_is_rounded_up_to_the_venues_next_slot():
    assert MUSEUM.next_slot(time(10, 10)) == time(10, 30)
    assert MUSEUM.next_slot(time(10, 30)) == time(10, 30)
    assert MUSEUM.next_slot(time(8, 0)) == time(9, 0)
    assert MUSEUM.next_slot(time(17, 45)) == time(16, 0)  # after the last slot: the last one


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
    assert service_at(tmp_path, now).earliest_slot(item) == expected


def test_an_offer_keeps_the_trips_day_unless_it_can_no_longer_be_booked(tmp_path):
    service = service_at(tmp_path, datetime(2026, 12, 1, 1, 0, tzinfo=UTC))
    ahead = offer_for(service, MUSEUM.id, key="k", label="x", day=date(2026, 12, 5), at=time(13, 40))
    assert (ahead.default_date, ahead.default_time, ahead.moved_from) == (date(2026, 12, 5), time(14, 0), None)
    assert note_words(ahead, "en") == ""
    past = offer_for(service, MUSEUM.id, key="k", label="x", day=date(2025, 6, 14), at=time(13, 40))
    assert (past.default_date, past.default_time) == (date(2026, 12, 2), time(9, 0))
    assert past.moved_from == (date(2025, 6, 14), time(14, 0))  # the plan's day and the venue's slot after 13:40
    assert note_words(past, "en") == (
        "The plan's Sat 14 Jun 2025 at 14:00 can no longer be booked; showing the earliest bookable slot."
    )
    assert note_words(past, "zh") == "行程中的 2025年6月14日（周六） 14:00 已无法预订，改为最早可订的时段。"
    assert moved_words(date(2025, 6, 14), time(14), "zh") == note_words(past, "zh")
    assert offer_for(service, "sh-oriental-pearl", key="k", label="x") is None  # not bookable in the pack


def test_policies_prices_and_fees_in_words():
    starts = datetime(2026, 12, 5, 19, 0, tzinfo=UTC)
    early = datetime(2026, 12, 1, tzinfo=UTC)
    utc = {"city": "London", "user_zone": "UTC"}  # the reader is on the venue's clock: no zone in these words
    en = policy_words(THEATRE.terms.cancellation, starts, early, lang="en", **utc)
    assert en == "Free cancellation until 48 h before the start (3 Dec 19:00); after that 50% of the total is charged."
    zh = policy_words(THEATRE.terms.cancellation, starts, early, lang="zh", **utc)
    assert zh == "开始前 48 小时（12月3日 19:00）之前可免费取消；之后取消收取总价的 50%。"
    late = datetime(2026, 12, 4, tzinfo=UTC)
    assert policy_words(THEATRE.terms.cancellation, starts, late, lang="en", **utc).endswith(
        "The free period is already over."
    )
    assert policy_words(THEATRE.terms.cancellation, starts, late, lang="zh", **utc).endswith("免费取消的时间已过。")
    assert policy_words(RESTAURANT.terms.cancellation, starts, lang="en", **utc) == "Free cancellation at any time."
    assert policy_words(RESTAURANT.terms.cancellation, starts, lang="zh", **utc) == "随时可免费取消。"

    quote = Quote(price_per_person=280.0, total=840.0, source="region pack shanghai: price_per_person")
    assert price_words(quote, 3, "en") == "¥280 per person, ¥840 for 3 (price from the region pack)."
    assert price_words(quote, 3, "zh") == "人均 ¥280，3 人共 ¥840（价格来自地区数据包）。"
    free = Quote(price_per_person=0.0, total=0.0, source="region pack shanghai: price_per_person")
    assert (price_words(free, 2, "en"), price_words(free, 2, "zh")) == (
        "Free (price from the region pack).",
        "免费（价格来自地区数据包）。",
    )
    unknown = Quote(price_per_person=None, total=None, source="unknown")
    assert price_words(unknown, 2, "zh") == "价格未知（地区数据包中没有价格）。"
    assert price_words(unknown, 2, "en") == "Price unknown (the region pack has none)."
    reservation = Reservation(
        id="r-1", user_id="u", item_id=THEATRE.id, item_name=THEATRE.name, date=date(2026, 12, 5), time=time(19),
        party_size=3, contact="", notes="", status="confirmed", quote=quote,
        policy=CancellationPolicy(free_until_hours=48, fee_share=0.5), created_at=starts,
    )  # fmt: skip
    assert (fee_words(420.0, reservation, "zh"), fee_words(420.0, reservation, "en")) == (
        "现在取消将收取 ¥420。",
        "Cancelling now costs ¥420.",
    )
    assert fee_words(0.0, reservation, "en") == "Cancelling now is free."
    assert fee_words(None, reservation, "zh") == "现在取消不收费。"
    # what is booked, with the venue's name as the page names it
    assert booking_words(reservation, "en", name="Shanghai Grand Theatre") == (
        "Shanghai Grand Theatre, Sat 5 Dec 2026 at 19:00, party of 3"
    )
    assert booking_words(reservation, "zh") == f"{THEATRE.name}，2026年12月5日（周六） 19:00，3 人"
    assert (status_words(reservation, "en"), status_words(reservation, "zh")) == ("confirmed", "已确认")
    assert (day_words(date(2026, 1, 4), "en"), day_words(date(2026, 1, 4), "zh")) == (
        "Sun 4 Jan 2026",
        "2026年1月4日（周日）",
    )


def test_refusal_codes_become_sentences_with_the_venues_terms():
    assert refusal_words({"code": "TOO_LATE", "field": "time"}, MUSEUM, lang="en") == (
        "Bookings for this slot have closed: they close 12 h before it starts. Pick a later time or day."
    )
    assert refusal_words({"code": "TOO_LATE", "field": "time"}, MUSEUM, lang="zh") == (
        "这个时段已截止预订：需在开始前 12 小时预订，请选更晚的时间或日期。"
    )
    assert refusal_words({"code": "SLOT_FULL", "asked": "19:00"}, RESTAURANT, lang="zh") == "19:00 已订满。"
    assert refusal_words({"code": "SLOT_FULL", "asked": "19:00"}, RESTAURANT, lang="en") == "19:00 is fully booked."
    assert refusal_words({"code": "PARTY_TOO_LARGE"}, THEATRE, lang="en") == "At most 8 people per booking."
    assert refusal_words({"code": "NOT_A_SLOT"}, MUSEUM, lang="en", venue="Shanghai Science and Technology Museum") == (
        "Shanghai Science and Technology Museum takes bookings every 30 min from 09:00 to 16:00."
    )
    assert refusal_words({"code": "SOMETHING_NEW"}, lang="en") == "The reservation did not go through."
    assert refusal_words({"code": "SOMETHING_NEW"}, lang="zh") == "预订没有成功。"
    with pytest.raises(ValidationError) as caught:
        ReservationRequest(item_id=MUSEUM.id, date=date(2026, 12, 5), time=time(10), party_size=0)
    error = error_of(caught.value)
    assert (error["code"], error["field"]) == ("INVALID_INPUT", "party_size")
    assert refusal_words(error, lang="zh") == "预订信息有误：人数。"
    assert refusal_words(error, lang="en") == "Something in the booking is not valid: party size."


def test_every_refusal_status_and_unverified_code_has_words_in_both_languages():
    from components import reservation_words as words
    from core import i18n
    from core.reservations import service

    for table in (words.REFUSALS, words.FIELDS, words.STATUS, words.FAILED_BECAUSE, words.UNVERIFIED):
        for code, key in table.items():
            assert i18n.has(key, "zh") and i18n.has(key, "en"), (code, key)
    raised = set(re.findall(r'code="([A-Z_]+)"', inspect.getsource(service)))
    raised |= set(re.findall(r'"([A-Z][A-Z_]+)"', inspect.getsource(service)))
    assert {"SLOT_FULL", "TOO_LATE", "CONSENT_REQUIRED"} <= raised
    refusals = {c for c in raised if c not in words.UNVERIFIED and c not in words.FAILED_BECAUSE}
    assert refusals <= set(words.REFUSALS), refusals - set(words.REFUSALS)


# --- a deadline's clock carries the venue's zone where it is not the user's (issue 32) ---------------------------------
SHANGHAI_0506 = datetime(2026, 12, 8, 5, 6, tzinfo=ZoneInfo("Asia/Shanghai"))


@pytest.mark.parametrize(
    ("user_zone", "lang", "city", "words"),
    [
        (None, "zh", "上海", "05:06（上海时间）"),  # the browser did not say its zone: the venue's is named
        (None, "en", "Shanghai", "05:06 Shanghai time"),
        ("Europe/Helsinki", "en", "Shanghai", "05:06 Shanghai time"),
        ("Europe/Helsinki", "zh", "上海", "05:06（上海时间）"),
        ("Not/A_Zone", "en", "Shanghai", "05:06 Shanghai time"),
        ("Asia/Shanghai", "zh", "上海", "05:06"),  # the user is on the venue's clock: no zone to add
        ("Asia/Taipei", "en", "Shanghai", "05:06"),  # another name, the same offset at that moment
    ],
)
def test_a_deadline_names_the_venues_zone_unless_the_user_is_on_it(user_zone, lang, city, words):
    assert clock_words(SHANGHAI_0506, city=city, user_zone=user_zone, lang=lang) == words


def test_a_zone_with_summer_time_is_compared_at_the_moment_itself():
    helsinki = ZoneInfo("Europe/Helsinki")
    winter, summer = datetime(2026, 1, 10, 9, 0, tzinfo=helsinki), datetime(2026, 7, 10, 9, 0, tzinfo=helsinki)
    assert clock_words(winter, city="Helsinki", user_zone="Africa/Johannesburg", lang="en") == "09:00"  # both +02:00
    assert clock_words(summer, city="Helsinki", user_zone="Africa/Johannesburg", lang="en") == "09:00 Helsinki time"


# --- the free-cancellation time carries the venue's zone where it is not the reader's, as the deadline does ----------
SHANGHAI_SHOW = datetime(2026, 12, 10, 19, 30, tzinfo=ZoneInfo("Asia/Shanghai"))  # 48 h free: until 8 Dec 19:30


@pytest.mark.parametrize(
    ("user_zone", "lang", "city", "until"),
    [
        ("Europe/Stockholm", "en", "Shanghai", "(8 Dec 19:30 Shanghai time)"),
        ("America/Sao_Paulo", "zh", "上海", "（上海时间 12月8日 19:30）"),
        (None, "en", "Shanghai", "(8 Dec 19:30 Shanghai time)"),  # zone unknown: named
        ("Asia/Singapore", "zh", "上海", "（12月8日 19:30）"),  # +08:00 too: the reader's clock reads the same
        ("Asia/Shanghai", "en", "Shanghai", "(8 Dec 19:30)"),
    ],
)
def test_the_free_cancellation_time_names_the_venues_zone_unless_the_reader_is_on_it(user_zone, lang, city, until):
    words = policy_words(THEATRE.terms.cancellation, SHANGHAI_SHOW, lang=lang, city=city, user_zone=user_zone)
    assert until in words
    assert words.count("19:30") == 1


def test_the_free_cancellation_zone_is_compared_at_the_free_periods_end_not_at_the_start():
    # the show is after Helsinki's clocks go back (25 Oct 2026) and its free period ends before: at the show Helsinki
    # and Johannesburg both read +02:00, at the period's end Helsinki reads +03:00 — the words are about that moment
    helsinki = ZoneInfo("Europe/Helsinki")
    show = datetime(2026, 10, 26, 10, 0, tzinfo=helsinki)
    words = policy_words(THEATRE.terms.cancellation, show, lang="en", city="Helsinki", user_zone="Africa/Johannesburg")
    assert "(24 Oct 10:00 Helsinki time)" in words
