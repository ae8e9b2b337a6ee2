"""A conditional request evaluates its branches on facts (issue 31): the arrival against the computed sunset, the
alternative's hours at its arrival; a branch naming a city outside the region is answered as not covered (never
planned); the status is OK only when the branch that applies was evaluated, never OK with nothing evaluated."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from core.agent import route_and_run
from core.agent.flows.conditional import branch_outcome
from core.agent.when import sun_times
from core.app.agent import agent_deps
from tests.support.agent_packs import make_provider, make_settings

SHANGHAI = ZoneInfo("Asia/Shanghai")
AFTERNOON = datetime(2025, 6, 20, 15, 0, tzinfo=SHANGHAI)  # sunset about 19:01
EVENING = datetime(2025, 6, 20, 18, 55, tzinfo=SHANGHAI)  # a few minutes before it


@pytest.fixture
def ask(tmp_path):
    settings = make_settings(tmp_path)
    provider = make_provider(settings)

    def run(message, *, now=AFTERNOON):
        deps = agent_deps(settings, provider)
        return route_and_run({"message": message, "user_id": "alice"}, deps, now=now)

    return run


def _evaluations(r):
    return [(b["evaluation"], b["feasible"]) for b in r.result.payload.branches]


def test_a_switch_to_a_city_outside_the_region_is_not_planned_and_the_answer_is_not_ok(ask):
    r = ask("要是看不到日落，就改去大阪")
    assert r.route.route == "SYSTEM2_REASONING"
    assert _evaluations(r) == [("NEEDS_TARGET_PLACE", None), ("REGION_NOT_COVERED", None)]
    b = r.result.payload.branches[1]
    assert (b["named"], b["place"], b["region"]) == ("大阪", "Osaka", "agentcity")  # the test pack
    assert (r.result.status, r.result.error_code) == ("NEED_MORE_INFO", "REGION_NOT_COVERED")
    assert "大阪" in r.result.answer_text and "REGION_NOT_COVERED" not in r.result.answer_text
    assert [s.code for s in r.result.next_steps] == ["name_branch_place"]
    assert r.result.payload.timeline == []  # nothing planned anywhere


def test_a_missed_sunset_with_a_switch_outside_the_region_fails_said_in_english(ask):
    r = ask("If we miss the sunset at Yu Garden, switch to Yokohama", now=EVENING)
    a, b = r.result.payload.branches
    assert a["evaluation"] == "EVALUATED" and a["feasible"] is False and a["eta"] > a["sunset"]
    assert (b["evaluation"], b["named"]) == ("REGION_NOT_COVERED", "Yokohama")
    assert (r.result.status, r.result.error_code) == ("FAILED", "REGION_NOT_COVERED")
    assert "Yokohama” lies outside the region" in r.result.answer_text


def test_a_made_sunset_is_ok_and_a_missed_one_evaluates_the_alternative(ask):
    made = ask("如果赶不上豫园的日落就改去上海博物馆")
    assert _evaluations(made)[0] == ("EVALUATED", True)
    assert (made.result.status, made.result.error_code) == ("OK", None)
    missed = ask("如果赶不上豫园的日落就改去上海博物馆", now=EVENING)
    a, b = missed.result.payload.branches
    assert a["feasible"] is False
    assert b["evaluation"] == "EVALUATED" and b["open_at_eta"] is False  # the museum has closed by then
    assert missed.result.status == "NEEDS_REVIEW"  # both branches fail: never answered as OK


@pytest.mark.parametrize(
    ("a", "b", "outcome"),
    [
        ({"evaluation": "EVALUATED", "feasible": True}, {"evaluation": "REGION_NOT_COVERED", "feasible": None},
         ("OK", "REGION_NOT_COVERED")),
        ({"evaluation": "EVALUATED", "feasible": False}, {"evaluation": "EVALUATED", "feasible": True}, ("OK", None)),
        ({"evaluation": "EVALUATED", "feasible": False}, {"evaluation": "NOT_IN_KNOWLEDGE_BASE", "feasible": None},
         ("NEED_MORE_INFO", None)),
        ({"evaluation": "CONDITION_NOT_COMPUTABLE", "feasible": None}, {"evaluation": "EVALUATED", "feasible": True},
         ("NEEDS_REVIEW", None)),
        ({"evaluation": "REGION_NOT_COVERED", "feasible": None}, {"evaluation": "EVALUATED", "feasible": True},
         ("FAILED", "REGION_NOT_COVERED")),
    ],
)  # fmt: skip
def test_the_status_follows_the_branch_that_applies(a, b, outcome):
    assert branch_outcome(a, b) == outcome


@pytest.mark.parametrize(
    ("day", "lon", "lat", "zone", "sunset"),
    [
        (date(2025, 6, 20), 121.47, 31.23, "Asia/Shanghai", "19:01"),
        (date(2025, 12, 21), 121.47, 31.23, "Asia/Shanghai", "16:55"),
        (date(2025, 6, 20), 24.94, 60.17, "Europe/Helsinki", "22:50"),
    ],
)
def test_the_sunset_is_the_days_own(day, lon, lat, zone, sunset):
    """The sunset a branch is checked against falls on the day asked (it fell a day late: every arrival made it)."""
    rise, sets = sun_times(day, lon=lon, lat=lat, tz=zone)
    assert rise.date() == day and sets.date() == day
    assert sets.strftime("%H:%M") == sunset
