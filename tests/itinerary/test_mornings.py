"""No idle mornings (core/itinerary/routing.py): a day begins with what opens first when a visit fits before the
lunch, instead of an 11:30 lunch and a first visit at 12:30. The solver once priced a day by its span (finish -
departure), so starting late was free; it now prices the finish from the day's start.

The days are the agent's (10:00–20:00) on Sunday 29 November 2026 from the Peace Hotel, lunch 11:30–13:30 for an
hour (so it starts by 12:30)."""

from __future__ import annotations

import pytest

from core.config import get_settings
from core.geo.registry import make_provider
from core.itinerary.pipeline import plan_itinerary
from core.itinerary.problem import day_windows, prepare_problem
from core.models.itinerary import TripRequest
from core.models.itinerary_problem import ItineraryProblem

SUNDAY = "2026-11-29"
#: Long museums (150 min), open from 09:00 (the Shanghai Museum, the Natural History Museum 09:00–17:15)
LONG = ["sh-shanghai-museum", "sh-natural-history-museum"]
#: Short places: Urban Planning (75 min, 09:00–17:00), Jing'an Sculpture Park (45 min, 06:00–21:00), People's
#: Square (30 min, always open), the Ocean Aquarium (120 min, 09:00–18:00)
SHORT = ["sh-urban-planning-center", "sh-jingan-sculpture-park", "sh-peoples-square", "sh-ocean-aquarium"]


@pytest.fixture(scope="module")
def provider():
    return make_provider(None, region="shanghai", settings=get_settings())


def request(place_ids: list[str], *, start: str = "10:00", end: str = "20:00") -> TripRequest:
    return TripRequest.model_validate(
        {
            "trip_name": "mornings",
            "region": "shanghai",
            "hotel": {"place_id": "sh-peace-hotel"},
            "days": [{"date": SUNDAY, "start_time": start, "end_time": end}],
            "places": [{"place_id": p} for p in place_ids],
        }
    )


def fits_before_lunch(problem: ItineraryProblem, day_index: int, key: str) -> bool:
    """The visit, alone from the day's start (robust travel, its opening window), ends by the latest lunch start."""
    day, stop = problem.days[day_index], problem.stop(key)
    if day.lunch_latest_start is None:
        return False
    arrive = day.start_min + problem.matrix.robust()[problem.point_index(day.start_key)][stop.point_index]
    window = next((w for w in day_windows(problem, stop, day) if w.end >= arrive), None)
    return window is not None and max(arrive, window.start) + stop.visit_min <= day.lunch_latest_start


def test_a_day_starts_with_the_place_open_from_nine_not_with_lunch(provider):
    """The Shanghai Museum (150 min) cannot end by 12:30 from a 10:00 start; Urban Planning (75 min, open from
    09:00) can: the day starts with it, leaving the hotel at 10:00, and lunch comes after it."""
    result = plan_itinerary(
        request(["sh-shanghai-museum", "sh-urban-planning-center"]), provider=provider, settings=get_settings()
    )
    [day] = result.days
    events = [e for e in day.entries if e.kind not in ("travel", "wait")]
    assert [(e.kind, e.key) for e in events[:2]] == [("visit", "sh-urban-planning-center"), ("lunch", None)]
    first_leg = day.entries[0]
    assert first_leg.kind == "travel" and first_leg.start.strftime("%H:%M") == "10:00"
    assert events[0].start == first_leg.end  # no idle time before the first visit
    assert {e.key for e in events if e.kind == "visit"} == {"sh-shanghai-museum", "sh-urban-planning-center"}


@pytest.mark.parametrize("long_id", LONG)
@pytest.mark.parametrize("short_id", SHORT)
def test_no_day_begins_with_lunch_when_a_visit_fits_before_it(provider, long_id, short_id):
    settings = get_settings()
    req = request([long_id, short_id])
    problem = prepare_problem(req, provider=provider, settings=settings)
    result = plan_itinerary(req, provider=provider, settings=settings)
    for d, day in enumerate(result.days):
        events = [e for e in day.entries if e.kind not in ("travel", "wait")]
        planned = [e.key for e in events if e.kind == "visit" and e.key]
        assert planned, day.entries
        if events[0].kind == "lunch":
            assert not any(fits_before_lunch(problem, d, k) for k in planned), (long_id, short_id, events)
    # the short place fits before lunch from a 10:00 start in each pair, so no day here begins with lunch
    assert fits_before_lunch(problem, 0, short_id)
    assert result.days[0].entries[1].kind == "visit"
