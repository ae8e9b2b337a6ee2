"""Stage 2: what the planner has learned of the person (memory.py). The mock: nothing learned yet."""

from __future__ import annotations

from core.config import HalfDayToolName
from core.halfday.tools import MOCK, ToolDeps, ToolSpec
from core.models.halfday.facts import MemoryFacts, ToolFacts
from core.models.halfday.plans import Memory, MemoryQuery

NAME = HalfDayToolName.GET_MEMORY


def tool(deps: ToolDeps) -> ToolSpec:
    return ToolSpec(
        name=NAME,
        stage=2,
        input_model=MemoryQuery,
        output_model=Memory,
        fn=lambda q: deps.memory.get(q.user_id),
        mock=mock_memory,
        facts=memory_facts,
    )


def mock_memory(query: MemoryQuery) -> Memory:
    """Nothing learned yet."""
    return Memory(user_id=query.user_id, source=MOCK)


def memory_facts(memory: Memory) -> ToolFacts:
    n = len(memory.preferences)
    return MemoryFacts(events=memory.events, preferences=n, visited=len(memory.visited), source=memory.source)
