"""Every half-day tool has a mock (half_day_planner.md §3.1), switched on by name; a name that is not a tool is
refused when the settings are read; ``mocked`` is true exactly when a mock ran."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.config import HALFDAY_TOOLS, Settings
from core.models.halfday.plans import HalfDayRequest
from tests.halfday.conftest import NOW, planner_on


def _mocked_planner(planner, tools):
    settings = planner.settings.model_copy(update={"halfday_mock_tools": list(tools)})
    return planner_on(planner.provider, settings, memory=planner.memory)


def test_every_registered_tool_has_a_mock_and_the_settings_know_them_all(planner):
    assert sorted(planner.registry.names) == sorted(HALFDAY_TOOLS)
    assert [n for n in planner.registry.names if planner.registry.spec(n).mock is None] == []


def test_an_unknown_tool_in_the_mock_switch_is_refused_naming_it_and_the_known_ones():
    with pytest.raises(ValidationError) as caught:
        Settings(halfday_mock_tools=["decompose_goal", "search_place"])
    message = str(caught.value)
    assert "search_place" in message and "search_places" in message and "mock_reserve" in message


def test_the_environment_switch_is_refused_too(monkeypatch):
    monkeypatch.setenv("OMNI_HALFDAY_MOCK_TOOLS", '["weather"]')
    with pytest.raises(ValidationError, match="unknown tool"):
        Settings()


def test_a_registry_refuses_a_mock_switch_for_a_tool_without_a_mock():
    from core.halfday.tools import ToolRegistry, ToolSpec
    from core.models.halfday.plans import Memory, MemoryQuery

    spec = ToolSpec(name="get_memory", stage=2, input_model=MemoryQuery, output_model=Memory, fn=lambda q: None)
    with pytest.raises(ValueError, match="no mock for get_memory"):
        ToolRegistry([spec], mocked=["get_memory"])


def test_all_tools_mocked_plan_from_the_pack_and_say_so(planner):
    mocked = _mocked_planner(planner, HALFDAY_TOOLS)
    result, events = mocked.plan(HalfDayRequest(goal="anything at all", now=NOW, origin="人民广场"))
    assert result is not None, events[-1].data
    calls = [e.data for e in events if e.type == "skill_call"]
    assert calls and all(c.mocked for c in calls)
    assert all(c["mocked"] for c in result.tool_log)
    assert result.goal.parser == "mock" and result.profile.source == "mock" and result.slots.source == "mock"
    assert result.travel_source == "mock"
    assert result.origin is not None and result.origin.source == "mock"
    pack = planner.provider.region
    origin_place = next(p for p in pack.places if p.name_zh == result.origin.name)
    assert (result.origin.lon, result.origin.lat) == (origin_place.lon, origin_place.lat)  # the pack's point
    for plan in result.plans:
        assert plan.score is not None and plan.score.facts == {"source": "mock"}
        for step in plan.steps:
            place = pack.place_by_id(step.place_id)
            assert place is not None and (step.lon, step.lat) == (place.lon, place.lat)
            assert step.opening_source == "mock"
            assert step.price_per_person == place.price_per_person


def test_mocked_is_false_for_tools_that_ran_for_real(planner):
    from tests.halfday.conftest import goal, with_goal

    mocked = with_goal(_mocked_planner(planner, ["get_memory"]), goal(preferences=["park"]))
    result, events = mocked.plan(HalfDayRequest(goal="test goal", now=NOW))
    assert result is not None
    flags = {c["tool"]: c["mocked"] for c in result.tool_log}
    assert flags["get_memory"] is True
    assert {t for t, m in flags.items() if m} == {"get_memory"}


def test_the_mock_reservation_is_a_quote_from_the_pack_that_confirms_nothing(planner):
    from datetime import date

    from core.models.halfday.plans import ReserveInput
    from core.reservations.catalog import catalogue

    mocked = _mocked_planner(planner, ["mock_reserve"])
    item = next(i for i in catalogue(planner.provider.region) if i.price_per_person is not None)
    slot = item.slots()[0]
    inp = ReserveInput(
        user_id="u1", region="shanghai", place_id=item.id, date=date(2026, 11, 28), time=slot, party_size=2
    )
    dry = mocked.reserve_dry_run(inp)
    assert "MOCK_RESERVATION" in dry.unverified and dry.reservation.status == "quoted"
    assert dry.reservation.quote.total == round(item.price_per_person * 2, 2)
    assert dry.reservation.quote.source.startswith("mock:")
    assert dry.expires_at <= dry.reservation.created_at  # never confirmable
