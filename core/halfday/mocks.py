"""A mock for every half-day tool (half_day_planner.md §3.1: any tool can be swapped for its mock without the
planner knowing), named in ``OMNI_HALFDAY_MOCK_TOOLS``. Each answers from the region pack alone (no model, no
database, no network), keeps to its tool's output schema, and says it is a mock: ``source``/``parser`` ``mock``,
opening hours and visits labelled ``mock``, a reservation quote that can never be confirmed (``MOCK_RESERVATION``).
Figures a mock passes on (a price, a rating, coordinates) are the pack's, under the pack's source."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import time, timedelta
from typing import Any

from core.clock import Clock
from core.errors import InputError
from core.geo.base import LonLat
from core.geo.offline import OfflineProvider
from core.halfday.goal_window import apply_window
from core.halfday.plan_set import compose_plan_set
from core.halfday.profile import analyze_user_profile
from core.halfday.score import rank_by_weights
from core.halfday.search import MEAL_CATEGORIES, NOT_DESTINATIONS, preference_match
from core.halfday.travel import TravelTable
from core.models.halfday.goal import DecomposedGoal, Party, TimeWindow
from core.models.halfday.plans import (
    Candidate,
    Candidates,
    ComposeInput,
    GoalInput,
    Memory,
    MemoryQuery,
    OriginAnswer,
    OriginPoint,
    OriginQuery,
    PlanSet,
    Profile,
    ProfileInput,
    ReserveInput,
    ScoreBreakdown,
    ScoreInput,
    SearchFilters,
    Slot,
    SlotsInput,
    TimeSlots,
)
from core.models.reservations import DryRun, Quote, Reservation
from core.packs.loader import RegionPack
from core.reservations.catalog import item_for

MOCK = "mock"
#: how many activities and meals the mock search offers (enough for two or three plans)
MOCK_ACTIVITIES = 8
MOCK_MEALS = 4
#: a mock visit when the pack gives none
MOCK_VISIT_MIN = 60
#: a mock score for what only the real scorer can judge: the middle of [0, 1]
MOCK_NEUTRAL = 0.5


def mock_goal(inp: GoalInput) -> DecomposedGoal:
    """A fixed, valid goal: tomorrow 13:00–18:00 (or the window given), two adults, museums and local food."""
    day = (inp.now + timedelta(days=1)).date()
    goal = DecomposedGoal(
        text=inp.text[:1000],
        language=inp.lang or "zh",
        window=TimeWindow(date=day, start=time(13, 0), end=time(18, 0), phrase=MOCK),
        party=Party(adults=2),
        preferences=["museum", "local_food"],
        parser=MOCK,
    )
    return apply_window(goal, inp.window, inp.now)


def mock_memory(query: MemoryQuery) -> Memory:
    """Nothing learned yet."""
    return Memory(user_id=query.user_id, source=MOCK)


def mock_profile(inp: ProfileInput) -> Profile:
    """The profile of the goal alone (the memory left out): the rules on an empty memory."""
    empty = Memory(user_id=inp.memory.user_id, source=MOCK)
    profile = analyze_user_profile(inp.model_copy(update={"memory": empty}))
    return profile.model_copy(update={"source": MOCK})


def mock_slots(inp: SlotsInput) -> TimeSlots:
    """The whole window as one activity slot, travel taken as its nominal minutes (factor 1, no buffer)."""
    w = inp.window
    return TimeSlots(
        date=w.date,
        start=w.start,
        end=w.end,
        slots=[Slot(kind="activity", start=w.start, end=w.end)],
        travel_factor=1.0,
        travel_buffer_min=0,
        source=MOCK,
    )


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
            Candidate(
                place_id=p.id,
                name_zh=p.name_zh,
                name_en=p.name_en,
                district=p.district,
                lon=p.lon,
                lat=p.lat,
                category=p.category,
                tags=list(p.tags),
                cuisine=list(p.cuisine),
                role="meal" if p.category in MEAL_CATEGORIES else "activity",
                open_intervals=span,
                opening_source=MOCK,
                opening_assumed=True,
                visit_minutes=p.visit_minutes or MOCK_VISIT_MIN,
                visit_source="pack" if p.visit_minutes else MOCK,
                price_per_person=p.price_per_person,
                price_source="pack" if p.price_per_person is not None else "unknown",
                rating=p.rating,
                min_age=p.min_age,
                match={w: preference_match(p, w) for w in profile.preferences},
                suitability=1.0,
                reasons=[MOCK],
            )
            for p in activities + meals
        ]
        return Candidates(region=pack.name, date=slots.date, items=items, relaxed=list(filters.relaxed), source=MOCK)

    return search


def mock_origin(pack: RegionPack) -> Callable[[OriginQuery], OriginAnswer]:
    """The pack's place whose name is the start's (or contains it); none when no name matches."""

    def origin(query: OriginQuery) -> OriginAnswer:
        text = query.text.strip().lower()
        for place in pack.places:
            names = [n.lower() for n in (place.name_zh, place.name_en) if n]
            if any(text == n or text in n for n in names):
                name = place.name_zh or place.name_en
                return OriginAnswer(origin=OriginPoint(name=name, lon=place.lon, lat=place.lat, source=MOCK))
        return OriginAnswer(origin=None)

    return origin


def mock_compose(pack: RegionPack) -> Callable[[ComposeInput], PlanSet]:
    """The plans on the pack's local travel estimate (no routing service, no breaker), greedy only."""
    local = OfflineProvider(pack)

    def compose(inp: ComposeInput) -> PlanSet:
        def travel(points: list[LonLat]) -> TravelTable:
            return TravelTable(
                walk=local.matrix(points, mode="walking"),
                drive=local.matrix(points, mode="driving"),
                walk_limit_min=inp.profile.walk_limit_min,
                factor=inp.slots.travel_factor,
                buffer_min=inp.slots.travel_buffer_min,
                router_name=local.name,
            )

        plans, notes, _ = compose_plan_set(inp, travel=travel, timezone=pack.timezone, solver="greedy", budget=None)
        return PlanSet(plans=plans, travel_source=MOCK, notes=notes)

    return compose


def mock_score(inp: ScoreInput) -> PlanSet:
    """Feasibility as T, the middle of the scale for what only the real scorer judges, ranked by the weights."""
    scored = [
        p.model_copy(
            update={
                "score": ScoreBreakdown(
                    T=p.feasibility,
                    D=MOCK_NEUTRAL,
                    P=MOCK_NEUTRAL,
                    C=MOCK_NEUTRAL,
                    S=MOCK_NEUTRAL,
                    facts={"source": MOCK},
                )
            }
        )  # fmt: skip
        for p in inp.plans.plans
    ]
    return PlanSet(plans=rank_by_weights(scored, inp.weights), travel_source=inp.plans.travel_source, notes=[MOCK])


def mock_reserve(pack: RegionPack, *, clock: Clock) -> Callable[[ReserveInput], DryRun]:
    """A quote from the pack's terms that holds nothing and is stored nowhere: its token confirms nothing."""

    def reserve(inp: ReserveInput) -> DryRun:
        item = item_for(pack, inp.place_id)
        if item is None:
            raise InputError("that place takes no reservations", field="place_id", code="NOT_BOOKABLE")
        price = item.price_per_person
        now = clock()
        reservation = Reservation(
            id="mock-" + uuid.uuid4().hex[:16],
            user_id=inp.user_id,
            item_id=item.id,
            item_name=item.name,
            date=inp.date,
            time=inp.time,
            party_size=inp.party_size,
            contact=inp.contact,
            notes=MOCK,
            status="quoted",
            quote=Quote(
                price_per_person=price,
                total=None if price is None else round(price * inp.party_size, 2),
                source=f"{MOCK}: region pack {pack.name}: price_per_person" if price is not None else "unknown",
            ),
            policy=item.terms.cancellation,
            created_at=now,
        )
        return DryRun(
            action="reserve",
            reservation=reservation,
            token=f"{MOCK}-{uuid.uuid4().hex}",
            expires_at=now,  # already spent: a mock quote is never confirmed
            unverified=["MOCK_RESERVATION", "MOCK_VENUE"],
        )

    return reserve
