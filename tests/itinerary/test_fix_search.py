"""The fast drop-reason path (issue 23 §5) says what the thorough one says: the same reason, per-day reasons and
smallest fix for every dropped place, on real Shanghai pack trips with many drops; and a forced day solve the
layout proves infeasible is answered as the solver answers it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.config import Settings, get_settings
from core.geo.registry import make_provider
from core.itinerary.drop_reasons import validate_feasibility
from core.itinerary.pipeline import solve_multi_vehicle, solve_per_day
from core.itinerary.problem import prepare_problem
from core.itinerary.routing import _forced_day_proven_infeasible, _solve_routing, optimize_day_vrptw
from core.models.itinerary import TripRequest
from tests.support.itinerary_packs import trip, write_itinerary_pack

TRIPS = Path(__file__).resolve().parents[2] / "data" / "trips"

# (trip file, mode, pacing): the bench's many-drops trip and others made tight by walking or relaxed pacing
CASES = [
    ("shanghai_2day_many_drops.json", "driving", "relaxed"),
    ("shanghai_2day_many_drops.json", "walking", "normal"),
    ("shanghai_2day_many_drops.json", "walking", "relaxed"),
    ("shanghai_family_day.json", "walking", "normal"),
    ("shanghai_2day_monday_museum.json", "walking", "relaxed"),
]


def planned(name: str, mode: str, pacing: str, variant: str):
    settings = get_settings()
    payload = json.loads((TRIPS / name).read_text(encoding="utf-8")) | {"mode": mode, "pacing": pacing}
    request = TripRequest.model_validate(payload)
    provider = make_provider(None, region=request.region, settings=settings)
    problem = prepare_problem(request, provider=provider, settings=settings)
    solve = solve_per_day if variant == "per_day" else solve_multi_vehicle
    return problem, solve(problem, settings=settings), settings


@pytest.mark.parametrize("variant", ["per_day", "multi_vehicle"])
@pytest.mark.parametrize(("name", "mode", "pacing"), CASES)
def test_fast_fix_search_gives_the_thorough_reasons_and_fixes(name, mode, pacing, variant):
    problem, plans, settings = planned(name, mode, pacing, variant)
    thorough = validate_feasibility(problem, plans, settings=settings, thorough=True)
    fast = validate_feasibility(problem, plans, settings=settings)
    assert thorough.dropped_items, "each case drops places"
    assert [d.model_dump() for d in fast.dropped_items] == [d.model_dump() for d in thorough.dropped_items]
    assert fast.infeasible_hard == thorough.infeasible_hard
    assert not any(d.facts.get("fix_search") == "budget_exhausted" for d in fast.dropped_items)


def test_the_many_drops_trip_explains_eleven_drops_and_fixes_most():
    problem, plans, settings = planned("shanghai_2day_many_drops.json", "driving", "relaxed", "per_day")
    report = validate_feasibility(problem, plans, settings=settings)
    assert len(report.dropped_items) == 11
    assert all(d.reason_code and d.per_day_reasons for d in report.dropped_items)
    with_fix = [d for d in report.dropped_items if d.smallest_fix is not None]
    assert len(with_fix) >= 9
    for d in with_fix:  # every claimed fix was laid out: its order holds the dropped place
        assert d.key in d.smallest_fix.facts["order"]


def test_a_small_budget_is_reported_not_silently_short():
    problem, plans, settings = planned("shanghai_2day_many_drops.json", "driving", "relaxed", "per_day")
    small = settings.model_copy(update={"itinerary_fix_search_max_solves": 5})
    report = validate_feasibility(problem, plans, settings=small)
    assert report.checks == 5
    assert any(d.facts.get("fix_search") == "budget_exhausted" for d in report.dropped_items)


@pytest.fixture(scope="module")
def two_musts(tmp_path_factory):
    settings = Settings(data_dir=write_itinerary_pack(tmp_path_factory.mktemp("data")), region="itintest")
    provider = make_provider("offline", settings=settings)
    # Two 90-min musts that both must start by 09:30: no order keeps both.
    request = TripRequest.model_validate(
        trip(
            [
                {"place_id": "i-pearl", "priority": "must", "visit_minutes": 90, "opening_hours": "Mo-Su 09:00-11:00"},
                {"place_id": "i-jingan", "priority": "must", "visit_minutes": 90, "opening_hours": "Mo-Su 09:00-11:00"},
                {"place_id": "i-bund", "priority": "should", "visit_minutes": 60},
            ],
            days=[{"date": "2025-06-03", "start_time": "08:00", "end_time": "18:00"}],
            lunch={"enabled": False},
        )
    )
    return prepare_problem(request, provider=provider, settings=settings), settings


KEYS = ["i-pearl", "i-jingan", "i-bund"]


def test_a_forced_day_the_layout_proves_infeasible_is_one_the_solver_cannot_solve(two_musts):
    problem, settings = two_musts
    kw = dict(settings=settings, end_min=None)
    assert _forced_day_proven_infeasible(problem, 0, KEYS, ["i-pearl"], displace_musts=False, **kw)
    routes, _, _, _ = _solve_routing(problem, [0], KEYS, settings=settings, force_keys=["i-pearl"])
    assert routes is None
    plan = optimize_day_vrptw(problem, day_index=0, keys=KEYS, settings=settings, force_keys=["i-pearl"])
    assert plan.order == [] and plan.dropped == KEYS and plan.solver_status.startswith("FORCED_INFEASIBLE")


def test_no_proof_when_the_forced_stop_may_displace_the_other_must(two_musts):
    problem, settings = two_musts
    kw = dict(settings=settings, end_min=None)
    assert not _forced_day_proven_infeasible(problem, 0, KEYS, ["i-pearl"], displace_musts=True, **kw)
    plan = optimize_day_vrptw(
        problem, day_index=0, keys=KEYS, settings=settings, force_keys=["i-pearl"], displace_musts=True
    )
    assert set(plan.order) == {"i-pearl", "i-bund"} and plan.dropped == ["i-jingan"]
