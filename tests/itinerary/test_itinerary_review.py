"""Review findings on the itinerary optimiser and its critic: each test failed before its fix.

- a stop that only clashes with the lunch break was reported UNREACHABLE_IN_WINDOW (a false reason);
- a provider pair with no answer (AMap gives inf) crashed the robustness policy;
- an unknown time zone or an edit to a day the trip lacks was a crash / the wrong field;
- the critic trusted the optimiser's nominal times, visit factor, day dates and start places,
  fell back to the optimiser's own opening windows when no pack was passed, let a dropped locked
  stop pass as 'ready', and never checked the opening-hours reasons it was handed;
- ``exact_feasible_order`` (used for DAY_TOO_FULL) said "no order" for more than six stops when
  OR-Tools' first-solution heuristic failed on a feasible, fully hard instance.
"""

from __future__ import annotations

import json
import math
from datetime import timedelta

import pytest

from core.config import Settings
from core.errors import InputError
from core.geo.base import TravelMatrix
from core.geo.composite import MapServices
from core.geo.registry import make_provider
from core.itinerary.critic import check_itinerary
from core.itinerary.edits import reoptimize
from core.itinerary.layout import layout_day
from core.itinerary.pipeline import plan_itinerary
from core.itinerary.problem import prepare_problem
from core.itinerary.routing import exact_feasible_order
from core.models.itinerary import LockEdit, TripRequest
from tests.support.itinerary_packs import MONDAY, TUESDAY, trip


def plan(payload, provider, settings):
    return plan_itinerary(TripRequest.model_validate(payload), provider=provider, settings=settings)


def codes(result, settings, **kw):
    return check_itinerary(result, request=kw.pop("request", result.request), settings=settings, **kw).codes()


# ---------------------------------------------------------------------------------------------
# Reasons
# ---------------------------------------------------------------------------------------------
def test_a_booked_slot_that_only_clashes_with_lunch_is_a_lunch_conflict(provider, settings):
    # The Bund is open 24/7 and next to the hotel; 12:00-13:30 leaves no 60 minutes for lunch in 11:30-13:30.
    booked = {"place_id": "i-bund", "priority": "must", "fixed_start": "12:00", "visit_minutes": 90}
    result = plan(trip([booked, "i-pearl"], days=[TUESDAY]), provider, settings)
    item = next(x for x in result.dropped_items if x.key == "i-bund")
    assert item.reason_code == "LUNCH_CONFLICT"
    assert "lunch" in item.explanation and "11:30-13:30" in item.explanation
    assert result.status == "infeasible" and result.error_code == "PLANNER_INFEASIBLE_HARD_NODES"
    assert result.critic.passed
    # Control: without lunch the same booking fits, so the lunch break really is the cause.
    free = plan(trip([booked, "i-pearl"], days=[TUESDAY], lunch={"enabled": False}), provider, settings)
    assert "i-bund" in {e.key for d in free.days for e in d.entries if e.kind == "visit"}


def test_a_really_unreachable_stop_keeps_its_reason(provider, settings):
    # Far Water Town is open 10:00-12:00 only and over an hour away: travel, not lunch, is the problem.
    result = plan(trip(["i-bund", "i-far"], days=[TUESDAY], lunch={"enabled": False}), provider, settings)
    assert {x.key: x.reason_code for x in result.dropped_items}["i-far"] == "UNREACHABLE_IN_WINDOW"


# ---------------------------------------------------------------------------------------------
# Robustness policy on a matrix with unanswered pairs
# ---------------------------------------------------------------------------------------------
class _GapRouter:
    """The offline router, but pairs touching ``far`` have no answer (inf), as AMap reports them."""

    name = "amap"

    def __init__(self, inner, far):
        self.inner, self.far = inner, far

    def route(self, origin, destination, *, mode):
        return self.inner.route(origin, destination, mode=mode)

    def matrix(self, points, *, mode):
        m = self.inner.matrix(points, mode=mode)
        dur = [list(r) for r in m.durations_s]
        dist = [list(r) for r in m.distances_m]
        bad = [i for i, p in enumerate(points) if (round(p[0], 4), round(p[1], 4)) == self.far]
        for i in range(len(points)):
            for j in range(len(points)):
                if i != j and (i in bad or j in bad):
                    dur[i][j] = dist[i][j] = math.inf
        return TravelMatrix(distances_m=dist, durations_s=dur, source="amap", mode=mode, notes=["gap"])


def test_pairs_the_provider_cannot_answer_make_a_stop_unreachable_not_a_crash(provider, settings):
    century = next(p for p in provider.region.places if p.id == "i-century")
    gappy = MapServices(
        geocoder=provider.geocoder,
        router=_GapRouter(provider.router, (round(century.lon, 4), round(century.lat, 4))),
        region=provider.region,
    )
    result = plan(trip(["i-bund", "i-pearl", "i-century"], days=[TUESDAY]), gappy, settings)
    assert {x.key: x.reason_code for x in result.dropped_items} == {"i-century": "UNREACHABLE_IN_WINDOW"}
    assert result.critic.passed, result.critic.violations
    assert {"i-bund", "i-pearl"} <= {e.key for d in result.days for e in d.entries if e.kind == "visit"}


# ---------------------------------------------------------------------------------------------
# Input errors
# ---------------------------------------------------------------------------------------------
def test_an_unknown_time_zone_exits_2_with_a_structured_error(tmp_path, capsys):
    from core.__main__ import main

    path = tmp_path / "trip.json"
    path.write_text(
        json.dumps(
            {**trip(["sh-bund"], hotel="sh-peace-hotel"), "region": "shanghai", "timezone": "Mars/Olympus_Mons"}
        ),
        encoding="utf-8",
    )
    assert main(["itinerary", "--request", str(path)]) == 2
    error = json.loads(capsys.readouterr().err.strip().splitlines()[-1])["error"]
    assert error["code"] == "INVALID_INPUT" and error["field"] == "timezone" and "Mars/Olympus_Mons" in error["message"]


def test_an_edit_to_a_day_the_trip_lacks_names_the_edit(provider, settings):
    result = plan(trip(["i-bund"]), provider, settings)
    with pytest.raises(InputError) as err:
        reoptimize(result, [LockEdit(key="i-bund", day_index=3)], provider=provider, settings=settings)
    assert err.value.field == "edits.0.day_index"


# ---------------------------------------------------------------------------------------------
# The critic re-derives what it checks
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def good(provider, settings):
    return plan(trip(["i-bund", "i-pearl", "i-museum", "i-xintiandi"], days=[MONDAY, TUESDAY]), provider, settings)


def test_the_critic_re_asks_the_provider_for_nominal_times(good, settings):
    assert codes(good, settings) == set()
    bad = good.model_copy(deep=True)
    leg = next(e for d in bad.days for e in d.entries if e.kind == "travel" and e.nominal_s > 300)
    # A consistent lie: nominal, robust (policy applied to the lie) and the clock all agree with each other.
    leg.nominal_s, leg.nominal_min = 60.0, 1.0
    leg.robust_min = math.ceil(1.0 * bad.policy.factor + bad.policy.buffer_min)
    assert "ROBUST_TIME_NOT_USED" in codes(bad, settings)


def test_the_critic_checks_the_visit_factor_against_settings(good, settings):
    bad = good.model_copy(deep=True)
    bad.policy.visit_factor = 0.5
    assert "VISIT_TOO_SHORT" in codes(bad, settings)


def test_the_critic_takes_dates_and_start_places_from_the_request(good, settings):
    moved = good.model_copy(deep=True)
    moved.days[1].date = moved.days[1].date + timedelta(days=1)
    assert "DAY_MISMATCH" in codes(moved, settings)
    elsewhere = good.model_copy(deep=True)
    elsewhere.days[0].start_key = elsewhere.days[0].end_key = "anchor:i-bund"
    assert "DAY_MISMATCH" in codes(elsewhere, settings)


def test_without_a_pack_the_critic_reads_the_packs_opening_hours_itself(provider, settings):
    # Planned as if the 14:00-14:30 gallery were always open; the critic is then given the real request.
    lie = plan(
        trip([{"place_id": "i-tiny", "opening_hours": "24/7", "priority": "must"}], days=[TUESDAY]), provider, settings
    )
    visit = next(e for d in lie.days for e in d.entries if e.kind == "visit")
    assert visit.start.hour != 14  # it sits outside the real hours
    honest = TripRequest.model_validate(trip([{"place_id": "i-tiny", "priority": "must"}], days=[TUESDAY]))
    assert "TIME_WINDOW_VIOLATION" in codes(lie, settings, request=honest)


def test_a_dropped_locked_stop_cannot_be_called_ready(provider, settings):
    payload = trip(
        [{"place_id": "i-bund", "fixed_start": "15:00"}, {"place_id": "i-xintiandi", "fixed_start": "15:00"}],
        days=[TUESDAY],
    )
    result = plan(payload, provider, settings)
    assert result.status == "infeasible" and codes(result, settings) == set()
    faked = result.model_copy(deep=True)
    faked.status, faked.error_code = "ready", None
    assert "MUST_DROPPED_SILENTLY" in codes(faked, settings)


def test_the_critic_checks_opening_hour_reasons(provider, settings):
    result = plan(trip(["i-bund", "i-tiny", "i-far"], days=[TUESDAY]), provider, settings)
    reasons = {x.key: x.reason_code for x in result.dropped_items}
    assert reasons["i-tiny"] == "OUTSIDE_OPENING_HOURS" and codes(result, settings) == set()
    closed = result.model_copy(deep=True)
    next(x for x in closed.dropped_items if x.key == "i-far").reason_code = "CLOSED_ON_DAY"
    assert "DROP_REASON_UNSUPPORTED" in codes(closed, settings)
    short = result.model_copy(deep=True)
    next(x for x in short.dropped_items if x.key == "i-far").reason_code = "OUTSIDE_OPENING_HOURS"
    assert "DROP_REASON_UNSUPPORTED" in codes(short, settings)


# ---------------------------------------------------------------------------------------------
# DAY_TOO_FULL's feasibility test beyond brute force
# ---------------------------------------------------------------------------------------------
SHANGHAI_13 = [
    "sh-customs-house",
    "sh-city-god-temple",
    "sh-xiaotaoyuan-mosque",
    "sh-wenmiao",
    "sh-sun-yatsen-residence",
    "sh-wukang-mansion",
    "sh-soong-chingling-residence",
    "sh-peoples-square",
    "sh-cool-docks",
    "sh-jinmao-tower",
    "sh-lujiazui-skywalk",
    "sh-bund",
    "sh-waibaidu-bridge",
]


def test_exact_feasible_order_finds_an_order_when_one_exists_beyond_brute_force():
    settings = Settings()
    shanghai = make_provider("offline", region="shanghai", settings=settings)
    request = TripRequest.model_validate(
        {
            "region": "shanghai",
            "hotel": {"place_id": "sh-peace-hotel"},
            "days": [{"date": "2025-06-10", "end_time": "22:30"}],
            "places": [{"place_id": k, "priority": "must"} for k in SHANGHAI_13],
        }
    )
    problem = prepare_problem(request, provider=shanghai, settings=settings)
    assert layout_day(problem, 0, SHANGHAI_13, settings=settings) is not None  # a witness: it is feasible
    order = exact_feasible_order(problem, 0, SHANGHAI_13, settings=settings)
    assert order is not None and sorted(order) == sorted(SHANGHAI_13)
    assert layout_day(problem, 0, order, settings=settings) is not None
