"""core/agent/suggestion_fit.py: a dropped suggestion gives way to the first candidate that fits a day, checked by
the layout; a candidate that fits no day (Shanghai Circus World's 19:00–21:00 show in a day ending at 20:00) is
passed over; the lightest day is filled first."""

from __future__ import annotations

import pytest

from core.agent.suggestion_fit import fitting_replacements
from core.config import get_settings
from core.geo.registry import make_provider
from core.itinerary.pipeline import plan_itinerary
from core.models.itinerary import TripRequest
from core.models.itinerary_problem import DayPlan


@pytest.fixture(scope="module")
def provider():
    return make_provider(None, region="shanghai", settings=get_settings())


def kids_trip() -> TripRequest:
    """Sunday and Monday 10:00–20:00 from the Peace Hotel; the Natural History Museum is closed on Mondays."""
    return TripRequest.model_validate(
        {
            "trip_name": "kids",
            "region": "shanghai",
            "hotel": {"place_id": "sh-peace-hotel"},
            "days": [
                {"date": "2026-11-29", "start_time": "10:00", "end_time": "20:00"},
                {"date": "2026-11-30", "start_time": "10:00", "end_time": "20:00"},
            ],
            "places": [
                {"place_id": "sh-natural-history-museum", "priority": "nice"},
                {"place_id": "sh-century-park", "priority": "nice"},
                {"place_id": "sh-circus-world", "priority": "nice"},
            ],
        }
    )


def test_a_dropped_suggestion_gives_way_to_the_first_candidate_that_fits(provider):
    settings = get_settings()
    request = kids_trip()
    result = plan_itinerary(request, provider=provider, settings=settings)
    dropped = [d.key for d in result.dropped_items]
    assert "sh-circus-world" in dropped  # the show runs past the day's end
    plans = [
        DayPlan(day_index=d.day_index, order=[e.key for e in d.entries if e.kind == "visit" and e.part != 2 and e.key])
        for d in result.days
    ]
    swap = fitting_replacements(
        request,
        plans,
        dropped=["sh-circus-world"],
        candidates=["sh-circus-world", "sh-jingan-sculpture-park", "sh-century-park"],
        provider=provider,
        settings=settings,
    )
    # the circus and Century Park are in the trip already: no candidates; one dropped, one put in
    assert swap.dropped == ["sh-circus-world"]
    assert list(swap.added) == ["sh-jingan-sculpture-park"]
    lightest = min(plans, key=lambda p: (len(p.order), p.day_index)).day_index
    assert swap.added["sh-jingan-sculpture-park"] == lightest


def test_nothing_is_swapped_when_no_candidate_fits(provider):
    settings = get_settings()
    request = kids_trip()
    result = plan_itinerary(request, provider=provider, settings=settings)
    plans = [
        DayPlan(day_index=d.day_index, order=[e.key for e in d.entries if e.kind == "visit" and e.part != 2 and e.key])
        for d in result.days
    ]
    # Legoland's 420-minute visit (the pack: open 10:00–18:00, in Jinshan) must start by 11:00, which the drive
    # from the Peace Hotel after a 10:00 start does not reach: it fits neither day
    swap = fitting_replacements(
        request,
        plans,
        dropped=["sh-circus-world"],
        candidates=["sh-legoland"],
        provider=provider,
        settings=settings,
    )
    assert swap.dropped == [] and swap.added == {}
