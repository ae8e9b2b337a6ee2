"""Stage 4: the window from now on, its meal slots and the travel policy (profile.py). The mock: the whole window
as one activity slot, travel as its nominal minutes."""

from __future__ import annotations

from core.config import HalfDayToolName
from core.halfday.profile import plan_time_slots
from core.halfday.tools import MOCK, ToolDeps, ToolSpec
from core.models.halfday.facts import SlotsFacts, ToolFacts
from core.models.halfday.plans import Slot, SlotsInput, TimeSlots

NAME = HalfDayToolName.PLAN_TIME_SLOTS


def tool(deps: ToolDeps) -> ToolSpec:
    return ToolSpec(
        name=NAME,
        stage=4,
        input_model=SlotsInput,
        output_model=TimeSlots,
        fn=lambda i: plan_time_slots(i, settings=deps.settings),
        mock=mock_slots,
        facts=slots_facts,
    )


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


def slots_facts(slots: TimeSlots) -> ToolFacts:
    return SlotsFacts(date=slots.date, start=slots.start, end=slots.end, slots=len(slots.slots))
