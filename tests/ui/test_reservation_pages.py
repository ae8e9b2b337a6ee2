"""Reservations on the route planner and itinerary pages (AppTest): plan → Reserve on a bookable stop → check →
consent → confirm in the dialog → receipt → My reservations → cancellation dry run → confirm → cancelled; a full
slot offers the free slots near it; without consent nothing is booked; a repeated confirmation books once. The flow
speaks the dashboard's language (English unless the URL or the browser says Chinese), venues by their name in it.

Every test runs on its own SQLite database (OMNI_DB_URL) and reads it back through the reservation service."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from core.config import get_settings
from core.models.reservations import ReservationRequest
from core.packs.loader import load_region
from core.reservations import store
from core.reservations.catalog import item_for
from core.reservations.service import ReservationService
from tests.support.clock import SUITE_NOW, suite_today
from tests.support.db import db_at

pytestmark = pytest.mark.ui

PACK = load_region("shanghai")
ZONE = ZoneInfo(PACK.timezone)
DIALOG = "reservation_dialog"  # components.reservations.DIALOG: the prefix whose confirmation dialog is open


@pytest.fixture
def db_url(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'reservations.db'}"
    monkeypatch.setenv("OMNI_DB_URL", url)
    get_settings.cache_clear()
    yield url
    get_settings.cache_clear()


@pytest.fixture
def service(db_url) -> ReservationService:
    return ReservationService(pack=PACK, engine=store.engine_for(db_at(db_url)), clock=lambda: SUITE_NOW)


def app_on(page: str, lang: str = "en"):
    from streamlit.testing.v1 import AppTest

    from tests.support.paths import ROOT

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["lang"] = lang
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    return at


def ok(at):
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def texts(at) -> str:
    return "\n".join(str(e.value) for e in [*at.markdown, *at.caption, *at.success, *at.warning, *at.info])


def keys(at, prefix: str) -> set[str]:
    return {b.key for b in at.button if b.key and b.key.startswith(prefix)}


def my_list(at) -> str:
    """The text of the "My reservations" section."""
    [section] = [e for e in at.expander if e.label.startswith("My reservations")]  # the page's language: English
    return "\n".join(m.value for m in section.markdown)


def name_en(item_id: str) -> str:
    """A venue's English name in the pack (what the English page calls it)."""
    return PACK.place_by_id(item_id).name_en


def en_day(day: date) -> str:
    return f"{day:%a} {day.day} {day:%b %Y}"


def a_week_ahead() -> date:
    return suite_today(ZONE) + timedelta(days=7)


def check(at, p: str, *, day: date, at_time: time, party: int, contact: str = "王先生 13800000000"):
    at.date_input(key=f"{p}_date").set_value(day)
    at.selectbox(key=f"{p}_time").set_value(at_time)
    at.number_input(key=f"{p}_party").set_value(party)
    at.text_input(key=f"{p}_contact").set_value(contact)
    at.button(key=f"{p}_check").click().run()
    return ok(at)


def consent_and_confirm(at, p: str):
    assert at.button(key=f"{p}_book").disabled  # no consent yet: the confirm button cannot be pressed
    at.checkbox(key=f"{p}_consent").check().run()
    assert not at.button(key=f"{p}_book").disabled
    at.button(key=f"{p}_book").click().run()
    ok(at)
    assert at.session_state[DIALOG] == p
    at.button(key=f"{p}_dialog_yes").click().run()
    ok(at)
    assert DIALOG not in at.session_state  # the dialog closed


def cancel_from_my_reservations(at, my: str, rid: str):
    at.button(key=f"{my}_cancel_{rid}").click().run()
    ok(at)
    assert at.button(key=f"{my}_cancel_confirm_{rid}").disabled  # no consent yet
    at.checkbox(key=f"{my}_consent_{rid}").check().run()
    at.button(key=f"{my}_cancel_confirm_{rid}").click().run()
    return ok(at)


# --- route planner -----------------------------------------------------------------------------


@pytest.fixture
def planned_route(db_url, leaflet_static):
    at = app_on("pages/route_planner.py")
    at.selectbox(key="scenario").set_value("sightseeing-day")
    at.button(key="load_scenario").click().run()
    at.button(key="plan").click().run()
    return ok(at)


def test_route_planner_reserve_confirm_receipt_and_cancel(planned_route, service):
    at = planned_route
    result = at.session_state["route_result"]
    points = [*result.resolved_stops, result.resolved_destination]
    bookable = {p.poi_id for p in points if p.poi_id and item_for(PACK, p.poi_id) is not None}
    assert {"sh-yuyuan-garden", "sh-lao-jesse"} <= bookable  # a landmark stop and the dinner destination
    assert keys(at, "rp_res_open_") == {f"rp_res_open_{poi}" for poi in bookable}

    venue = item_for(PACK, "sh-lao-jesse")
    at.button(key="rp_res_open_sh-lao-jesse").click().run()
    p = "rp_res_sh-lao-jesse"
    ok(at)
    # The form opens on today's or tomorrow's earliest slot that still takes bookings.
    opened = datetime.combine(at.date_input(key=f"{p}_date").value, at.selectbox(key=f"{p}_time").value, ZONE)
    assert opened.date() - suite_today(ZONE) in (timedelta(0), timedelta(days=1))
    assert opened - timedelta(hours=venue.terms.lead_time_hours) >= SUITE_NOW

    day = a_week_ahead()
    check(at, p, day=day, at_time=time(19, 0), party=3)
    text = texts(at)
    assert f"You are about to reserve **{name_en('sh-lao-jesse')}, {en_day(day)} at 19:00, party of 3**" in text
    assert f"¥{venue.price_per_person:.0f} per person, ¥{venue.price_per_person * 3:.0f} for 3" in text
    assert "from the region pack" in text and "Free cancellation at any time" in text
    assert "This is a demo booking" in text  # what the mock cannot verify
    assert re.search(r"Confirm before \d\d:\d\d Shanghai time\.", text), text  # the venue's clock, named
    [section] = [e for e in at.expander if e.label.startswith("My reservations")]
    assert [c.value for c in section.caption] == ["No reservations yet."]  # the dry run is a quote: nothing listed
    assert service.reservations_of(at.session_state["dashboard_user"]) == []

    consent_and_confirm(at, p)
    user = at.session_state["dashboard_user"]
    [mine] = service.reservations_of(user)
    assert (mine.status, mine.item_name, mine.date, mine.time, mine.party_size) == (
        "confirmed", "老吉士酒家", day, time(19, 0), 3,
    )  # fmt: skip
    assert mine.contact == "王先生 13800000000"
    receipt = texts(at)
    assert f"**Reservation number:** `{mine.id}`" in receipt
    assert "Status: **confirmed**" in receipt and "To cancel: open “My reservations”" in receipt

    # A second press of the dialog's button (a double click, a rerun) replays: one booking, the same number.
    at.session_state[DIALOG] = p
    at.run()
    at.button(key=f"{p}_dialog_yes").click().run()
    ok(at)
    assert "nothing was booked twice" in texts(at)
    assert [(r.id, r.status) for r in service.reservations_of(user)] == [(mine.id, "confirmed")]

    # My reservations: confirmed, then cancelled through the cancellation dry run.
    assert f"rp_my_cancel_{mine.id}" in keys(at, "rp_my_cancel_")
    assert "Status: **confirmed**" in my_list(at)
    cancel_from_my_reservations(at, "rp_my", mine.id)
    assert service.get(user, mine.id).status == "cancelled"
    assert "Status: **cancelled**" in my_list(at)
    assert "Cancelling now is free." in texts(at)
    assert f"rp_my_cancel_{mine.id}" not in keys(at, "rp_my_cancel_")  # nothing left to cancel


def test_the_reservation_flow_speaks_chinese_on_a_chinese_page(db_url, leaflet_static, service):
    at = app_on("pages/route_planner.py", lang="zh")
    at.selectbox(key="scenario").set_value("sightseeing-day")
    at.button(key="load_scenario").click().run()
    at.button(key="plan").click().run()
    ok(at)
    assert at.button(key="rp_res_open_sh-lao-jesse").label == "预订"
    at.button(key="rp_res_open_sh-lao-jesse").click().run()
    p = "rp_res_sh-lao-jesse"
    labels = {w.key: w.label for kind in ("date_input", "selectbox", "number_input", "text_input", "button")
              for w in at.get(kind) if (w.key or "").startswith(p)}  # fmt: skip
    assert (labels[f"{p}_date"], labels[f"{p}_time"], labels[f"{p}_party"]) == ("日期", "时间", "人数")
    assert (labels[f"{p}_contact"], labels[f"{p}_check"]) == ("联系人（姓名或电话）", "查询空位")
    day = a_week_ahead()
    check(at, p, day=day, at_time=time(19, 0), party=3)
    zh_day = f"{day.year}年{day.month}月{day.day}日（周{'一二三四五六日'[day.weekday()]}）"
    text = texts(at)
    assert f"将预订：**老吉士酒家，{zh_day} 19:00，3 人**。" in text
    assert "人均 ¥" in text and "随时可免费取消。" in text and "这是演示用的模拟预订" in text
    # the deadline is on the venue's clock, and the page does not know the reader's zone: it names the venue's
    assert re.search(r"请在 \d\d:\d\d（上海时间） ?前确认。", text), text
    assert at.checkbox(key=f"{p}_consent").label == f"我同意预订老吉士酒家，{zh_day} 19:00，3 人"
    assert at.button(key=f"{p}_book").label == "确认预订"
    at.checkbox(key=f"{p}_consent").check().run()
    at.button(key=f"{p}_book").click().run()
    assert at.button(key=f"{p}_dialog_yes").label == "是的，预订"
    at.button(key=f"{p}_dialog_yes").click().run()
    ok(at)
    [mine] = service.reservations_of(at.session_state["dashboard_user"])
    receipt = texts(at)
    assert "预订成功。" in receipt and "状态：**已确认**" in receipt and f"**预订号：** `{mine.id}`" in receipt
    assert at.button(key=f"rp_my_cancel_{mine.id}").label == "取消预订"
    for english in ("Status", "Reservation", "Booked", "Cancel", "party of"):
        assert english not in receipt


def test_a_full_slot_offers_free_slots_nearby_and_one_can_be_picked(planned_route, service):
    at = planned_route
    venue = item_for(PACK, "sh-lao-jesse")
    day = a_week_ahead()
    for n in range(venue.terms.capacity_per_slot):  # other people fill 19:00
        dry = service.dry_run(
            f"someone-{n}", ReservationRequest(item_id=venue.id, date=day, time=time(19), party_size=2)
        )
        service.confirm(f"someone-{n}", dry.reservation.id, token=dry.token, idempotency_key=f"k{n}", consent=True)

    at.button(key="rp_res_open_sh-lao-jesse").click().run()
    p = "rp_res_sh-lao-jesse"
    check(at, p, day=day, at_time=time(19, 0), party=2)
    assert "19:00 is fully booked." in texts(at)
    assert f"{p}_book" not in keys(at, p)  # nothing to confirm
    assert keys(at, f"{p}_slot_") == {f"{p}_slot_1830", f"{p}_slot_1930", f"{p}_slot_1800"}
    assert any(e.label.startswith("Details") for e in at.expander)  # the code only under "details"
    assert "SLOT_FULL" not in texts(at).replace("code: SLOT_FULL", "")

    at.button(key=f"{p}_slot_1830").click().run()
    ok(at)
    assert at.selectbox(key=f"{p}_time").value == time(18, 30)
    assert f"{name_en('sh-lao-jesse')}, {en_day(day)} at 18:30, party of 2" in texts(at)
    consent_and_confirm(at, p)
    user = at.session_state["dashboard_user"]
    assert [(r.time, r.status) for r in service.reservations_of(user) if r.status == "confirmed"] == [
        (time(18, 30), "confirmed")
    ]
    # Nobody sees another's: the six other parties are not in this user's list.
    listed = my_list(at)
    assert listed.count("Status: **") == 1 and "at 18:30" in listed and "19:00" not in listed


def test_without_consent_nothing_is_booked(planned_route, service):
    at = planned_route
    at.button(key="rp_res_open_sh-yuyuan-garden").click().run()
    p = "rp_res_sh-yuyuan-garden"
    day = a_week_ahead()
    check(at, p, day=day, at_time=time(10, 0), party=2)
    assert at.button(key=f"{p}_book").disabled
    at.session_state[DIALOG] = p  # the dialog forced open without the box ticked: the service refuses
    at.run()
    at.button(key=f"{p}_dialog_yes").click().run()
    ok(at)
    assert "Tick the consent box before confirming." in texts(at)
    user = at.session_state["dashboard_user"]
    assert service.reservations_of(user) == []  # refused: the quote stays a quote, nothing is listed


def test_a_refusal_is_a_sentence_with_the_venues_terms(planned_route):
    at = planned_route
    at.button(key="rp_res_open_sh-lao-jesse").click().run()
    p = "rp_res_sh-lao-jesse"
    check(at, p, day=suite_today(ZONE) - timedelta(days=1), at_time=time(12, 0), party=2)
    venue = item_for(PACK, "sh-lao-jesse")
    assert f"they close {venue.terms.lead_time_hours} h before it starts" in texts(at)
    assert "TOO_LATE" not in "\n".join(w.value for w in at.warning)
    assert not at.exception


# --- itinerary ---------------------------------------------------------------------------------


@pytest.fixture
def itinerary_app(db_url, leaflet_static):
    at = app_on("pages/itinerary.py")
    at.selectbox(key="trip_demo").set_value("shanghai_family_day")
    at.button(key="trip_load").click().run()
    return ok(at)


def bookable_visits(result):
    places = {p.key: p.place_id for p in result.request.places}
    return [
        (day, e)
        for day in result.days
        for e in day.entries
        if e.kind == "visit" and not e.continues_visit and item_for(PACK, places.get(e.key) or "") is not None
    ]


def test_itinerary_reserve_on_the_trips_day_then_cancel(itinerary_app, service):
    at = itinerary_app
    start = a_week_ahead()
    at.date_input(key="trip_start_date").set_value(start)
    at.button(key="optimise").click().run()
    result = ok(at).session_state["it_result"]
    visits = bookable_visits(result)
    assert visits, "the family day has bookable stops"
    assert keys(at, "it_res_open_") == {f"it_res_open_d{d.day_index}_{e.key}" for d, e in visits}

    day, entry = visits[0]
    item = item_for(PACK, next(p.place_id for p in result.request.places if p.key == entry.key))
    at.button(key=f"it_res_open_d{day.day_index}_{entry.key}").click().run()
    p = f"it_res_d{day.day_index}_{entry.key}"
    ok(at)
    # The trip's date, and the planned arrival rounded up to the venue's slot grid.
    arrival = entry.arrival.astimezone(ZONE)
    first = datetime.combine(arrival.date(), item.terms.first_slot, ZONE)
    steps = max(0, -(-int((arrival - first).total_seconds() // 60) // item.terms.slot_minutes))
    expected = min(
        (first + timedelta(minutes=steps * item.terms.slot_minutes)).time(), item.terms.last_slot
    )  # fmt: skip
    assert at.date_input(key=f"{p}_date").value == start == day.date
    assert at.selectbox(key=f"{p}_time").value == expected

    at.text_input(key=f"{p}_contact").set_value("Li 13900000000")
    at.button(key=f"{p}_check").click().run()
    ok(at)
    assert f"{name_en(item.id)}, {en_day(start)} at {expected:%H:%M}, party of 2" in texts(at)
    consent_and_confirm(at, p)
    user = at.session_state["dashboard_user"]
    [mine] = service.reservations_of(user)
    assert (mine.status, mine.item_id, mine.date, mine.time) == ("confirmed", item.id, start, expected)
    assert f"`{mine.id}`" in texts(at) and "Status: **confirmed**" in texts(at)

    listed = my_list(at)
    assert name_en(item.id) in listed and "Status: **confirmed**" in listed
    cancel_from_my_reservations(at, "it_my", mine.id)
    assert service.get(user, mine.id).status == "cancelled"
    assert "Status: **cancelled**" in my_list(at)


def test_a_past_trip_day_offers_the_earliest_bookable_slot_and_says_so(itinerary_app):
    at = itinerary_app
    # a trip planned for a day gone by (a demo is moved to an upcoming day on Load: set the file's own date back)
    at.date_input(key="trip_start_date").set_value(date(2025, 6, 14))
    result = at.button(key="optimise").click().run().session_state["it_result"]
    ok(at)
    day, entry = bookable_visits(result)[0]
    assert day.date < suite_today(ZONE)
    at.button(key=f"it_res_open_d{day.day_index}_{entry.key}").click().run()
    p = f"it_res_d{day.day_index}_{entry.key}"
    ok(at)
    assert at.date_input(key=f"{p}_date").value >= suite_today(ZONE)
    assert "can no longer be booked; showing the earliest bookable slot" in texts(at)
