"""Stage 2's memory on SQLite and PostgreSQL (the schema by Alembic): confirmed plans and feedback teach tag
affinities, a family profile fills in the party when a goal names nobody, nobody reads another user's memory, and a
reset forgets everything; stage 3 turns it into the profile."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from core.halfday.memory import MemoryStore
from core.halfday.profile import analyze_user_profile
from core.models.halfday.goal import DecomposedGoal, Party, TimeWindow
from core.models.halfday.plans import FamilyProfile, Memory, MemoryEvent, ProfileInput
from core.reservations import store
from tests.support.clock import SUITE_NOW
from tests.support.databases import fresh_postgres
from tests.support.db import db_at

AT = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgresql"])
def memory(request, tmp_path):
    url = f"sqlite:///{tmp_path / 'memory.db'}" if request.param == "sqlite" else fresh_postgres("halfday_memory")
    return MemoryStore(store.engine_for(db_at(url)), clock=lambda: SUITE_NOW)


def test_confirmed_plans_and_feedback_teach_affinities(memory):
    memory.record("ann", MemoryEvent(kind="confirmed_plan", place_ids=["sh-a", "sh-b"], tags=["museum", "art"], at=AT))
    memory.record("ann", MemoryEvent(kind="liked", place_ids=["sh-a"], tags=["art"], at=AT))
    memory.record("ann", MemoryEvent(kind="disliked", place_ids=["sh-c"], tags=["shopping"], at=AT))
    got = memory.get("ann")
    assert got.events == 3
    assert got.preferences["art"] > got.preferences["museum"] > 0 > got.preferences["shopping"]
    assert all(-1 <= v <= 1 for v in got.preferences.values())
    assert got.visited == ["sh-a", "sh-b"] and got.disliked == ["sh-c"]
    assert memory.get("bob") == Memory(user_id="bob")  # nobody reads another's


def test_family_profile_and_reset(memory):
    memory.set_family("ann", FamilyProfile(adults=2, children_birth_years=[2020], diet=["vegetarian"]))
    memory.set_family("ann", FamilyProfile(adults=2, children_birth_years=[2020, 2023], diet=["vegetarian"]))
    memory.record("ann", MemoryEvent(kind="liked", tags=["park"], at=AT))
    assert memory.get("ann").family.children_birth_years == [2020, 2023]
    assert memory.reset("ann") == 1
    assert memory.get("ann") == Memory(user_id="ann")


def _goal(**kw) -> DecomposedGoal:
    from datetime import time

    return DecomposedGoal(
        text="x", language="zh", window=TimeWindow(date=date(2026, 11, 28), start=time(13), end=time(18)), **kw
    )


def test_profile_takes_the_family_when_the_goal_names_nobody():
    memory = Memory(
        user_id="ann",
        family=FamilyProfile(adults=2, children_birth_years=[2021], mobility=["stroller"], diet=["halal"]),
        preferences={"art": 0.8},
    )
    nobody = analyze_user_profile(
        ProfileInput(goal=_goal(assumed=["party_default_one_adult"]), memory=memory, today=date(2026, 11, 28))
    )
    assert nobody.party_source == "memory" and nobody.party.adults == 2 and nobody.child_ages == [5]
    assert "halal" in nobody.constraints.diet and "stroller" in nobody.constraints.mobility
    assert nobody.preferences["tag:art"] == pytest.approx(0.4)  # learned tastes count half
    assert nobody.crowd_tolerance == "low" and "mobility" in nobody.crowd_reasons
    said = analyze_user_profile(
        ProfileInput(goal=_goal(party=Party(adults=1)), memory=memory, today=date(2026, 11, 28))
    )
    assert said.party_source == "goal" and said.party.children == 0


def test_a_confirmed_plan_reaches_the_next_profile(planner):
    from core.models.halfday.plans import HalfDayRequest
    from tests.halfday.conftest import NOW, goal, with_goal

    with_goal(planner, goal(preferences=["museum"]))
    result, _ = planner.plan(HalfDayRequest(goal="x", user_id="ann", now=NOW))
    assert result is not None
    planner.remember_plan("ann", result, result.plans[0].plan_id)
    again, _ = planner.plan(HalfDayRequest(goal="x", user_id="ann", now=NOW))
    learned = {k for k in again.profile.preferences if k.startswith("tag:")}
    assert "tag:museum" in learned
    assert planner.memory.get("ann").visited == [s.place_id for s in result.plans[0].steps]


def test_a_disliked_place_is_never_planned_again(planner):
    from core.models.halfday.plans import HalfDayRequest
    from tests.halfday.conftest import NOW, goal, with_goal

    with_goal(planner, goal(preferences=["museum"]))
    first, _ = planner.plan(HalfDayRequest(goal="x", user_id="ann", now=NOW))
    favourite = first.plans[0].steps[0].place_id
    planner.feedback("ann", favourite, liked=False)
    again, _ = planner.plan(HalfDayRequest(goal="x", user_id="ann", now=NOW))
    assert favourite in again.profile.avoid_place_ids
    assert all(s.place_id != favourite for p in again.plans for s in p.steps)
