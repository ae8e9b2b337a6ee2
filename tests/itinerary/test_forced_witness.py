"""A forced solve without ``displace_musts`` never drops a must that was not forced (routing._forced_witness)."""

from __future__ import annotations

import pytest

from core.config import Settings
from core.geo.registry import make_provider
from core.itinerary.problem import prepare_problem
from core.itinerary.routing import _forced_witness, optimize_day_vrptw
from core.models.itinerary import TripRequest
from tests.support.itinerary_packs import trip, write_itinerary_pack


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    settings = Settings(data_dir=write_itinerary_pack(tmp_path_factory.mktemp("data")), region="itintest")
    provider = make_provider("offline", settings=settings)
    # Two 90-min musts open 09:00-11:00 (both must start by 09:30): they cannot both be kept.
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
    problem = prepare_problem(request, provider=provider, settings=settings)
    assert [w.start for w in problem.stop("i-pearl").windows_by_day[0]] == [9 * 60]
    assert [w.end for w in problem.stop("i-jingan").windows_by_day[0]] == [9 * 60 + 30]
    return problem, settings


KEYS = ["i-pearl", "i-jingan", "i-bund"]


def test_without_displace_musts_no_witness_drops_a_must(problem):
    problem, settings = problem
    witness = _forced_witness(problem, 0, KEYS, ["i-pearl"], settings=settings, end_min=None, displace_musts=False)
    assert witness is None
    plan = optimize_day_vrptw(problem, day_index=0, keys=KEYS, settings=settings, force_keys=["i-pearl"])
    assert plan.order == [] and plan.solver_status.startswith("FORCED_INFEASIBLE")


def test_with_displace_musts_the_forced_stop_displaces_the_other_must(problem):
    problem, settings = problem
    routes, dropped, _, _ = _forced_witness(
        problem, 0, KEYS, ["i-pearl"], settings=settings, end_min=None, displace_musts=True
    )
    assert "i-pearl" in routes[0] and "i-bund" in routes[0] and dropped == ["i-jingan"]
    plan = optimize_day_vrptw(
        problem, day_index=0, keys=KEYS, settings=settings, force_keys=["i-pearl"], displace_musts=True
    )
    assert set(plan.order) == {"i-pearl", "i-bund"} and plan.dropped == ["i-jingan"]
