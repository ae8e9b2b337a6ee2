"""Stage 1: the goal read from the person's words (goal.py's rules, or goal_llm.py when an LLM is configured); a
window given beside the goal takes the place of the time read from its text. The mock: a fixed, valid goal."""

from __future__ import annotations

from collections.abc import Callable
from datetime import time, timedelta

from core.config import HalfDayToolName
from core.halfday.goal_window import apply_window
from core.halfday.tools import MOCK, ToolDeps, ToolSpec
from core.models.halfday.facts import GoalFacts, ToolFacts
from core.models.halfday.goal import DecomposedGoal, Party, TimeWindow
from core.models.halfday.plans import GoalInput

NAME = HalfDayToolName.DECOMPOSE_GOAL


def tool(deps: ToolDeps) -> ToolSpec:
    return ToolSpec(
        name=NAME,
        stage=1,
        input_model=GoalInput,
        output_model=DecomposedGoal,
        fn=_decompose(deps),
        mock=mock_goal,
        facts=goal_facts,
    )


def _decompose(deps: ToolDeps) -> Callable[[GoalInput], DecomposedGoal]:
    def decompose(inp: GoalInput) -> DecomposedGoal:
        """The LLM's reading when one is configured (validated; the rules' after two bad answers), else the
        rules'."""
        from core.halfday.goal import decompose_goal
        from core.halfday.goal_llm import decompose_goal_llm

        llm = deps.open_llm()
        if llm is None:
            goal = decompose_goal(inp.text, now=inp.now, lang=inp.lang)
        else:
            goal = decompose_goal_llm(inp.text, now=inp.now, client=llm, lang=inp.lang)
        return apply_window(goal, inp.window, inp.now)

    return decompose


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


def goal_facts(goal: DecomposedGoal) -> ToolFacts:
    return GoalFacts(parser=goal.parser, missing=list(goal.missing))
