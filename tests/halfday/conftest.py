"""Fixtures of the half-day planner's tests: a planner on the bundled shanghai pack with its memory in a temporary
database, and goals built as stage 1's contract so each stage can be tested on a known input."""

from __future__ import annotations

from datetime import date, datetime, time
from zoneinfo import ZoneInfo

import pytest

from core.clock import clock_from_settings
from core.models.halfday.goal import Constraints, DecomposedGoal, Party, TimeWindow

SHANGHAI = ZoneInfo("Asia/Shanghai")
#: a Friday morning; the goals below are for Saturday 2026-11-28 unless they say otherwise
NOW = datetime(2026, 11, 27, 9, 0, tzinfo=SHANGHAI)
SATURDAY = date(2026, 11, 28)
MONDAY = date(2026, 11, 30)


def goal(
    *,
    day: date = SATURDAY,
    start: time = time(11, 0),
    end: time = time(17, 0),
    party: Party | None = None,
    preferences: list[str] | None = None,
    avoid: list[str] | None = None,
    named: list[str] | None = None,
    assumed: list[str] | None = None,
    **constraints,
) -> DecomposedGoal:
    return DecomposedGoal(
        text="test goal",
        language="zh",
        window=TimeWindow(date=day, start=start, end=end),
        party=party or Party(adults=2),
        constraints=Constraints(**constraints),
        preferences=preferences or [],
        avoid=avoid or [],
        named_places=named or [],
        assumed=assumed or [],
    )


@pytest.fixture
def settings(tmp_path, monkeypatch):
    from core.config import get_settings

    monkeypatch.setenv("OMNI_DB_URL", f"sqlite:///{tmp_path / 'halfday.db'}")
    monkeypatch.delenv("OMNI_DATA_DIR", raising=False)
    get_settings.cache_clear()
    yield get_settings()
    get_settings.cache_clear()


def planner_on(provider, settings, *, memory=None, breakers=None, llm=None):
    """A planner on ``provider`` handed what the root hands one (core.app.halfday.planner): its memory on the settings'
    database (``memory``: one to share), the region's reservation service opened by stage 7, the breakers of a root
    (``breakers``: a process's to share; else its own, all closed), stage 1's model client (``llm``: its opener; else
    the settings' model, none without a base URL), the settings' clock."""
    from core.agent.llm import make_llm
    from core.halfday.breaker import HalfDayBreakers
    from core.halfday.memory import MemoryStore
    from core.halfday.service import HalfDayPlanner
    from core.reservations.service import ReservationService
    from core.stores.db import Database

    clock = clock_from_settings(settings)
    return HalfDayPlanner(
        provider=provider,
        settings=settings,
        memory=memory or MemoryStore(database=Database.from_settings(settings), clock=clock),
        open_reservations=lambda: ReservationService.from_settings(settings, provider.region, clock=clock),
        breakers=breakers or HalfDayBreakers(),
        llm=llm or (lambda: make_llm(settings)),
        clock=clock,
    )


@pytest.fixture
def planner(settings):
    from core.geo.registry import make_provider

    return planner_on(make_provider("offline", region="shanghai", settings=settings), settings)


def with_goal(planner, g: DecomposedGoal):
    """The planner with stage 1 answering ``g`` (the registry's swap: schemas still checked)."""
    planner.registry.replace("decompose_goal", lambda _inp: g)
    return planner
