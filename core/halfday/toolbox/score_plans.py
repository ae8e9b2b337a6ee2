"""Stage 6: each plan scored on T, D, P, C and S with their facts, feasibility and risks (score.py), ranked by the
request's weights. The mock: feasibility as T, the middle of the scale for the rest."""

from __future__ import annotations

from collections.abc import Callable

from core.config import HalfDayToolName
from core.halfday.score import score_plans
from core.halfday.toolbox.rank_places_for_plan import plan_set_facts
from core.halfday.tools import MOCK, ToolDeps, ToolSpec
from core.models.halfday.plans import PlanSet, ScoreBreakdown, ScoreInput, rank_by_weights

NAME = HalfDayToolName.SCORE_PLANS
#: a mock score for what only the real scorer can judge: the middle of [0, 1]
MOCK_NEUTRAL = 0.5


def tool(deps: ToolDeps) -> ToolSpec:
    return ToolSpec(
        name=NAME,
        stage=6,
        input_model=ScoreInput,
        output_model=PlanSet,
        fn=_score(deps),
        mock=mock_score,
        facts=plan_set_facts,
    )


def _score(deps: ToolDeps) -> Callable[[ScoreInput], PlanSet]:
    def score(inp: ScoreInput) -> PlanSet:
        by_id = {c.place_id: c for c in inp.candidates.items}
        return score_plans(inp, candidates=by_id, reference_cost=deps.settings.halfday_reference_cost)

    return score


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
    return inp.plans.model_copy(update={"plans": rank_by_weights(scored, inp.weights), "notes": [MOCK]})
