"""Stage 5: the pack's places that pass the goal's filters (search.py); none passing is an empty answer, worth one
more try, then the stages relax a soft filter. The mock: the pack's best matches, open all the window."""

from __future__ import annotations

from collections.abc import Callable
from datetime import time
from typing import Any

from core.config import HalfDayToolName
from core.errors import ProviderUnavailable
from core.halfday.search import MEAL_CATEGORIES, NOT_DESTINATIONS, preference_match, search_places
from core.halfday.tools import MOCK, EmptyResult, ToolDeps, ToolSpec
from core.models.halfday.facts import CandidateFacts, ToolFacts
from core.models.halfday.plans import Candidate, Candidates, SearchFilters
from core.models.region import RegionPack

NAME = HalfDayToolName.SEARCH_PLACES
#: how many activities and meals the mock search offers (enough for two or three plans)
MOCK_ACTIVITIES = 8
MOCK_MEALS = 4
#: a mock visit when the pack gives none
MOCK_VISIT_MIN = 60


def tool(deps: ToolDeps) -> ToolSpec:
    return ToolSpec(
        name=NAME,
        stage=5,
        input_model=SearchFilters,
        output_model=Candidates,
        fn=_search(deps),
        mock=mock_search(deps.provider.region),
        retry_on=(TimeoutError, ProviderUnavailable, ConnectionError),  # an empty local search gives the same again
        facts=candidate_facts,
    )


def _search(deps: ToolDeps) -> Callable[[SearchFilters], Candidates]:
    def search(filters: SearchFilters) -> Candidates:
        found = search_places(filters, pack=deps.provider.region, settings=deps.settings)
        if not found.items:
            raise EmptyResult("no place passes the filters", details=found.model_dump(mode="json"))
        return found

    return search


def _minutes(t: time) -> int:
    return t.hour * 60 + t.minute


def mock_search(pack: RegionPack) -> Callable[[SearchFilters], Candidates]:
    """The pack's places that best match the profile's preferences, open for the whole window (mock hours: the
    pack's own are not read), the meals only when the slots have one."""

    def search(filters: SearchFilters) -> Candidates:
        profile, slots = filters.profile, filters.slots
        span = [(_minutes(slots.start), _minutes(slots.end))]
        has_meal = any(s.kind == "meal" for s in slots.slots)
        places = [p for p in pack.places if p.category not in NOT_DESTINATIONS and p.id not in profile.avoid_place_ids]
        wanted = [p for p, w in profile.preferences.items() if w > 0]

        def fit(place: Any) -> tuple[float, str]:
            return (-sum(preference_match(place, w) for w in wanted), place.id)

        activities = sorted((p for p in places if p.category not in MEAL_CATEGORIES), key=fit)[:MOCK_ACTIVITIES]
        meals = sorted((p for p in places if p.category in MEAL_CATEGORIES), key=fit)[:MOCK_MEALS] if has_meal else []
        items = [
            Candidate.of_place(
                p,
                role="meal" if p.category in MEAL_CATEGORIES else "activity",
                open_intervals=span,
                opening_source=MOCK,
                opening_assumed=True,
                visit_minutes=p.visit_minutes or MOCK_VISIT_MIN,
                visit_source="pack" if p.visit_minutes else MOCK,
                match={w: preference_match(p, w) for w in profile.preferences},
                suitability=1.0,
                reasons=[MOCK],
            )
            for p in activities + meals
        ]
        return Candidates(region=pack.name, date=slots.date, items=items, relaxed=list(filters.relaxed), source=MOCK)

    return search


def candidate_facts(candidates: Candidates) -> ToolFacts:
    return CandidateFacts(
        candidates=len(candidates.items),
        place_ids=[c.place_id for c in candidates.items],
        excluded=dict(candidates.excluded),
        relaxed=list(candidates.relaxed),
    )
