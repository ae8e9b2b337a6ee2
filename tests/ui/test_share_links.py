"""A planned trip in the URL (issue 12 §4): the route planner's ``?route=`` and the itinerary's ``?trip=``.

A plan made in one AppTest leaves its token in the URL; a fresh AppTest opened on that URL (another browser, or a
reload: a new session) fills the form and shows the same best order and totals without a click. A reload on the same
server takes the plan kept there. A damaged, old-version or foreign token leaves the form empty with a sentence.

Neither the URL nor the link to copy carries the session's identity (components/identity.py keeps it in a cookie,
which AppTest does not have: here it lasts for the session); an old link's ``?sid=`` is removed, never adopted.
"""

from __future__ import annotations

import html
import re
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

import pytest

from core import share
from core.i18n import t
from core.models.route import RoutePlanRequest

pytestmark = pytest.mark.ui

ROUTE_PAGE = "pages/route_planner.py"
IT_PAGE = "pages/itinerary.py"
SCENARIO = "delivery-round"
TRIP = "shanghai_family_day"


def open_page(project_root, page: str, **params):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(project_root / "app.py"), default_timeout=90)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    return at


def best(result):
    """The best candidate's order of stops and its totals."""
    chosen = result.candidates[result.best_index]
    return chosen.stop_order, chosen.full_order_labels, chosen.total_distance_m, chosen.total_duration_s


def visits(result):
    return [[e.key for e in day.entries if e.kind == "visit"] for day in result.days]


def keyed(at, key: str) -> list:
    """The page's containers with that key (``st.container(key=...)``)."""
    return [c for c in at.container if c.key == key]


def link_box(at, key: str) -> str:
    """The address in the "Copy link" box."""
    [box] = keyed(at, key)
    [field] = [h for h in box.get("html") if "<input readonly" in h.proto.body]
    found = re.search(r'<input readonly value="([^"]*)"', field.proto.body)
    assert found, field.proto.body
    return html.unescape(found.group(1))


@pytest.fixture(scope="module")
def planned_route(leaflet_static, project_root):
    """One route plan in English: its result, the URL's token and the link offered for copying."""
    at = open_page(project_root, ROUTE_PAGE, lang="en")
    at.selectbox(key="scenario").set_value(SCENARIO)
    at.button(key="load_scenario").click().run()
    at.button(key="plan").click().run()
    assert not at.exception, at.exception
    result = at.session_state["route_result"]
    assert "sid" not in at.query_params  # the address bar carries no identity either
    return result, at.query_params["route"], link_box(at, "route_share_link"), at.session_state["dashboard_user"]


def test_the_route_link_carries_the_language_and_the_trip_but_not_the_identity(planned_route):
    result, token, link, _ = planned_route
    assert link.startswith("/route_planner?")
    assert "lang=en" in link and f"route={token}" in link
    assert "sid=" not in link  # whoever opens it gets their own reservations, not the sender's
    request, region = share.route_from_token(token)
    assert region == result.region == "shanghai"
    assert [s.address for s in request.stops] == [p.input_address for p in result.resolved_stops]


def test_a_fresh_session_on_the_route_link_shows_the_same_plan(planned_route, project_root):
    result, token, _, user = planned_route
    at = open_page(project_root, ROUTE_PAGE, lang="zh", route=token)
    assert not at.error, [e.value for e in at.error]
    again = at.session_state["route_result"]  # planned on load, no click
    assert best(again) == best(result)
    assert again.route_strategy == result.route_strategy
    assert at.session_state["destination_address"] == "静安区南京西路1038号"
    assert at.session_state["route_request"] == share.route_from_token(token)[0]
    assert not keyed(at, "stale_result")
    assert at.query_params["route"] == token
    assert at.session_state["dashboard_user"] != user  # a new session (no cookie here) has its own identity
    assert "sid" not in at.query_params
    at.run()  # a rerun of the same session does not restore nor plan again
    assert at.session_state["route_result"] is again


def test_a_reload_on_the_same_server_takes_the_kept_plan(planned_route, project_root, monkeypatch):
    import core.route.planner

    def no_planning(*args, **kwargs):
        raise AssertionError("a reload of a planned link must not plan again")

    monkeypatch.setattr(core.route.planner, "plan_route", no_planning)
    result, token, _, _ = planned_route
    at = open_page(project_root, ROUTE_PAGE, lang="en", route=token)
    assert best(at.session_state["route_result"]) == best(result)


def identity_script(at) -> list[str]:
    """The scripts in the identity's hidden box (components/identity.py): each writes the cookie."""
    boxes = keyed(at, "omni_identity")
    return [h.proto.body for box in boxes for h in box.get("html") if h.proto.unsafe_allow_javascript]


@pytest.mark.parametrize(
    "sid",
    [
        "0123456789ab",  # a well-formed sid from someone's old-style address: taking it would share their bookings
        "0123456789AB",
        "0123456789ab; Path=/x",
        "0123456789ab\n",
    ],
)
def test_a_sid_in_the_url_is_never_adopted_and_leaves_the_url(project_root, sid):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(project_root / "app.py"), default_timeout=90)
    at.query_params["lang"] = "en"
    at.query_params["sid"] = sid
    at.run()
    assert not at.exception, at.exception
    user = at.session_state["dashboard_user"]
    assert re.fullmatch(r"dashboard-[0-9a-f]{12}", user) and user != f"dashboard-{sid.strip()}"  # its own identity
    assert "sid" not in at.query_params and at.query_params["lang"] == "en"
    [script] = identity_script(at)  # the cookie takes the new sid, on this run only
    own = user.removeprefix("dashboard-")
    assert f'document.cookie = "omni_sid={own}; Path=/; Max-Age=31536000; SameSite=Strict"' in script
    assert sid.strip() not in script
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["dashboard_user"] == user and identity_script(at) == []  # the session keeps it


def test_a_link_of_another_region_switches_the_sidebar_to_it(leaflet_static, project_root):
    import json

    scenario = json.loads((project_root / "data" / "scenarios" / "helsinki-museums.json").read_text(encoding="utf-8"))
    request = RoutePlanRequest.model_validate(scenario["request"])
    at = open_page(project_root, ROUTE_PAGE, lang="en", route=share.route_token(request, region="helsinki"))
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["region"] == "helsinki"
    result = at.session_state["route_result"]
    assert result.region == "helsinki"
    assert [p.input_address for p in result.resolved_stops] == [s.address for s in request.stops]


@pytest.mark.parametrize(
    ("make", "key"),
    [
        (lambda token: token[: len(token) // 2], "common.share.error.corrupt"),
        (lambda token: "9" + token[1:], "common.share.error.version"),
        (lambda token: "1." + "A" * (share.MAX_TOKEN_CHARS + 10), "common.share.error.too_large"),
        (lambda token: share.encode("trip", {"t": {}}), "common.share.error.kind"),
        (
            lambda token: share.encode("route", {"q": {"origin_mode": "fixed", "stops": []}}),
            "common.share.error.invalid",
        ),
    ],
    ids=["truncated", "old-version", "oversized", "itinerary-link", "rule-breaking"],
)
def test_a_bad_route_link_leaves_the_form_empty_and_says_why(planned_route, project_root, make, key):
    _, token, _, _ = planned_route
    at = open_page(project_root, ROUTE_PAGE, lang="en", route=make(token))
    assert [w.value for w in at.warning] == [t(key, "en")]
    assert "route_result" not in at.session_state
    assert at.session_state["destination_address"] == ""
    assert at.session_state["stops_df"].empty
    assert "route" not in at.query_params  # the bad link is not kept for a reload


# --- the itinerary -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def planned_trip(leaflet_static, project_root):
    """The family day optimised in English, then one place removed by an edit."""
    at = open_page(project_root, IT_PAGE, lang="en")
    at.selectbox(key="trip_demo").set_value(TRIP)
    at.button(key="trip_load").click().run()
    at.button(key="optimise").click().run()
    assert not at.exception, at.exception
    first = at.session_state["it_result"]
    removed = first.request.places[1].key
    at.radio(key="edit_action").set_value("remove")
    at.selectbox(key="edit_stop").set_value(removed)
    at.button(key="edit_apply").click().run()
    assert not at.exception, at.exception
    assert at.session_state["it_edits"] == [{"kind": "remove", "key": removed}]
    return at.session_state["it_result"], at.query_params["trip"], removed, link_box(at, "it_share_link")


def test_a_fresh_session_on_the_itinerary_link_shows_the_same_plan_with_its_edit(planned_trip, project_root):
    result, token, removed, link = planned_trip
    assert link.startswith("/itinerary?") and "lang=en" in link and "sid=" not in link
    at = open_page(project_root, IT_PAGE, lang="zh", trip=token)
    assert not at.error, [e.value for e in at.error]
    again = at.session_state["it_result"]
    assert visits(again) == visits(result)
    assert removed not in {key for day in visits(again) for key in day}
    assert again.totals == result.totals
    assert at.session_state["it_edits"] == [{"kind": "remove", "key": removed}]
    assert at.session_state["trip_start_date"].isoformat() == result.request.days[0].date.isoformat()
    assert not keyed(at, "stale_result")
    assert at.query_params["trip"] == token


def test_an_itinerary_link_the_form_cannot_hold_is_refused(planned_trip, project_root):
    result, _, _, _ = planned_trip
    request = result.request.model_dump(mode="json")
    unknown = {**request, "places": [{"place_id": "sh-no-such-place", "priority": "must"}]}
    token = share.encode("trip", {"t": unknown})
    at = open_page(project_root, IT_PAGE, lang="zh", trip=token)
    assert t("common.share.error.invalid", "zh") in [w.value for w in at.warning]
    assert "it_result" not in at.session_state
    assert not any(entry.get("include") for entry in at.session_state["it_selection"].values())
    assert "trip" not in at.query_params


# --- the half-day page ---------------------------------------------------------------------------------------
HALFDAY_PAGE = "pages/half_day.py"
GOAL = "周六下午两个人去博物馆,再吃点本帮菜"


def test_a_half_day_link_fills_the_goal_and_plans_it_again(leaflet_static, project_root, tmp_path, monkeypatch):
    monkeypatch.setenv("OMNI_DB_URL", f"sqlite:///{tmp_path / 'halfday-share.db'}")
    at = open_page(project_root, HALFDAY_PAGE, lang="en")
    at.text_area(key="hd_goal").input(GOAL)
    at.text_input(key="hd_origin").input("人民广场")
    at.button(key="hd_plan").click().run()
    assert not at.exception, at.exception
    result = at.session_state["hd_result"]
    token = at.query_params["halfday"]
    linked = share.halfday_from_token(token)
    assert (linked.goal, linked.origin, linked.region) == (GOAL, "人民广场", "shanghai")
    assert (linked.window.date, linked.window.start, linked.window.end) == (
        result.goal.window.date,
        result.goal.window.start,
        result.goal.window.end,
    )
    link = link_box(at, "hd_share_link")
    assert link.startswith("/half_day?") and "sid=" not in link

    again = open_page(project_root, HALFDAY_PAGE, lang="zh", halfday=token)
    assert not again.exception, again.exception
    assert again.session_state["hd_goal"] == GOAL and again.session_state["hd_origin"] == "人民广场"
    replanned = again.session_state["hd_result"]  # planned on load, no click
    same = ("date", "start", "end")  # the same Saturday afternoon (given beside the goal: no phrase read)
    assert replanned.goal.window.model_dump(include=set(same)) == result.goal.window.model_dump(include=set(same))
    assert [[step.place_id for step in p.steps] for p in replanned.plans] == [
        [step.place_id for step in p.steps] for p in result.plans
    ]
    assert again.query_params["halfday"] == token

    broken = open_page(project_root, HALFDAY_PAGE, lang="en", halfday=token[:-5])
    assert [w.value for w in broken.warning] == [t("common.share.error.corrupt", "en")]
    assert broken.session_state["hd_goal"] == "" and "hd_result" not in broken.session_state


SHANGHAI = ZoneInfo("Asia/Shanghai")
RELATIVE_GOAL = "后天下午两个人去博物馆"  # read on Thursday 26 November 2026: Saturday the 28th, 13:00-18:00


def pin_clock(monkeypatch, moment: datetime) -> None:
    """Every context's clock (the page's now, the link's reading, the planner's) reads ``moment``: the product's
    clock setting, as a demo would fix it."""
    from core.config import get_settings

    monkeypatch.setenv("OMNI_NOW", moment.isoformat())
    get_settings.cache_clear()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_half_day_link_opened_on_three_successive_days_plans_the_same_day_then_says_it_has_passed(
    leaflet_static, project_root, tmp_path, monkeypatch, lang
):
    monkeypatch.setenv("OMNI_DB_URL", f"sqlite:///{tmp_path / 'halfday-drift.db'}")
    pin_clock(monkeypatch, datetime(2026, 11, 26, 10, 0, tzinfo=SHANGHAI))
    at = open_page(project_root, HALFDAY_PAGE, lang=lang)
    at.text_area(key="hd_goal").input(RELATIVE_GOAL)
    at.button(key="hd_plan").click().run()
    assert not at.exception, at.exception
    made = at.session_state["hd_result"]
    assert (made.goal.window.date, made.goal.window.start) == (date(2026, 11, 28), time(13, 0))
    token = at.query_params["halfday"]
    for opened in (datetime(2026, 11, 26, 21, 0), datetime(2026, 11, 27, 9, 0), datetime(2026, 11, 28, 8, 0)):
        pin_clock(monkeypatch, opened.replace(tzinfo=SHANGHAI))
        again = open_page(project_root, HALFDAY_PAGE, lang=lang, halfday=token)
        assert not again.exception, again.exception
        assert again.session_state["hd_goal"] == RELATIVE_GOAL  # the words as written
        window = again.session_state["hd_result"].goal.window
        assert (window.date, window.start, window.end) == (date(2026, 11, 28), time(13, 0), time(18, 0)), opened
        assert again.query_params["halfday"] == token  # the link published again is the same link
        assert not again.warning

    pin_clock(monkeypatch, datetime(2026, 11, 29, 9, 0, tzinfo=SHANGHAI))
    late = open_page(project_root, HALFDAY_PAGE, lang=lang, halfday=token)
    assert not late.exception, late.exception
    assert "hd_result" not in late.session_state  # nothing planned for a day gone
    assert late.session_state["hd_goal"] == RELATIVE_GOAL
    saturday = {"zh": "11月28日", "en": "28 Nov"}[lang]
    passed = {"zh": "已经过去", "en": "has passed"}[lang]
    [warning] = [w.value for w in late.warning]
    assert saturday in warning and "13:00–18:00" in warning and passed in warning


def test_an_old_half_day_link_is_read_on_its_day_and_says_so(leaflet_static, project_root, tmp_path, monkeypatch):
    monkeypatch.setenv("OMNI_DB_URL", f"sqlite:///{tmp_path / 'halfday-old.db'}")
    pin_clock(monkeypatch, datetime(2026, 11, 27, 10, 0, tzinfo=SHANGHAI))
    old = share.encode("halfday", {"g": "明天下午两个人去博物馆", "r": "shanghai", "d": "2026-11-28"})
    at = open_page(project_root, HALFDAY_PAGE, lang="en", halfday=old)
    assert not at.exception, at.exception
    window = at.session_state["hd_result"].goal.window
    assert (window.date, window.start) == (date(2026, 11, 28), time(13, 0))  # the day it kept, not the 29th
    [note] = [i.value for i in at.info if "earlier version" in i.value]
    assert "Sat 28 Nov" in note and "tomorrow" in note
    fresh = share.halfday_from_token(at.query_params["halfday"])  # the page publishes the absolute link
    assert fresh.legacy_day is None and fresh.window is not None and fresh.window.date == date(2026, 11, 28)


# --- every page ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("param", ["route", "trip", "halfday"])
def test_a_link_to_a_region_not_on_this_server_is_refused_on_every_page(
    planned_route, planned_trip, project_root, param
):
    """components/share.py ``read_link``, as each page reads its link: the reason in words, nothing filled in or
    planned, the sidebar's region kept, the link gone from the URL."""
    request, _ = share.route_from_token(planned_route[1])
    trip = planned_trip[0].request
    token, page, result = {
        "route": (share.route_token(request, region="atlantis"), ROUTE_PAGE, "route_result"),
        "trip": (share.trip_token(trip.model_copy(update={"region": "atlantis"})), IT_PAGE, "it_result"),
        "halfday": (
            share.halfday_token(goal=GOAL, origin=None, region="atlantis", window=None),
            HALFDAY_PAGE,
            "hd_result",
        ),
    }[param]
    at = open_page(project_root, page, lang="en", **{param: token})
    assert [w.value for w in at.warning] == [t("common.share.error.region", "en")]
    assert result not in at.session_state
    assert at.session_state["region"] == "shanghai"
    assert param not in at.query_params
    if param == "halfday":
        assert at.session_state["hd_goal"] == ""
    elif param == "route":
        assert at.session_state["stops_df"].empty
