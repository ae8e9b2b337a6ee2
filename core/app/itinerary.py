"""Plan and edit a multi-day itinerary (job 2), including the refusal of an edit the plan cannot keep."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from core.app.context import RequestContext
from core.itinerary.edits import reoptimize
from core.itinerary.pipeline import ProgressCallback
from core.itinerary.pipeline import plan_itinerary as _plan_itinerary
from core.models.itinerary import TripRequest, UserEdit
from core.models.itinerary_result import ItineraryResult


def plan_itinerary(
    ctx: RequestContext,
    request: TripRequest,
    *,
    edits: Sequence[UserEdit] = (),
    progress: ProgressCallback | None = None,
) -> ItineraryResult:
    """A day-by-day plan that can really be carried out, checked by the critic, on the request's providers.

    ``edits``: applied to the request first and planned afresh (``python -m core itinerary`` with a file of
    ``{request, edits}``); editing a plan already shown, with its refusals, is ``edit_itinerary``."""
    if edits:
        return reoptimize(request, edits, provider=ctx.providers, settings=ctx.settings, progress=progress)
    return _plan_itinerary(request, provider=ctx.providers, settings=ctx.settings, progress=progress)


class EditOutcome(BaseModel):
    """What an edit did: the new plan, or a refusal that keeps the plan before it (``result`` is then the plan
    the edit would have made, for the reasons; the face keeps showing the previous one)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    status: Literal["applied", "refused"]
    result: ItineraryResult
    refusal: Literal["LOCK_NOT_KEPT", "MADE_INFEASIBLE"] | None = None
    edited_key: str | None = None
    newly_dropped: list[str] = Field(default_factory=list, description="Keys on the plan before, not after")


def visited_keys(result: ItineraryResult) -> set[str]:
    return {e.key for d in result.days for e in d.entries if e.kind == "visit" and e.key}


def edit_itinerary(
    ctx: RequestContext,
    previous: ItineraryResult,
    edits: Sequence[UserEdit],
    *,
    base: TripRequest | None = None,
    progress: ProgressCallback | None = None,
) -> EditOutcome:
    """Apply ``edits`` (the last one is new) to the plan ``previous`` made from ``base`` and re-plan.

    A lock or a move the new plan does not keep (the place is dropped, or the plan becomes infeasible where it was
    not) is refused: the person keeps the plan they had, with the reason. No edits: the plan of ``base`` again."""
    request = base or previous.request
    if not edits:
        result = plan_itinerary(ctx, request, progress=progress)
        return EditOutcome(status="applied", result=result, newly_dropped=_dropped(previous, result, None))
    stable = previous.model_copy(update={"request": request})  # unlocked stops keep their day: a stable re-plan
    result = reoptimize(stable, edits, provider=ctx.providers, settings=ctx.settings, progress=progress)
    last = edits[-1]
    key = getattr(last, "key", None)
    if last.kind in ("lock", "move"):
        if key not in visited_keys(result):
            return EditOutcome(status="refused", result=result, refusal="LOCK_NOT_KEPT", edited_key=key)
        if result.status == "infeasible" and previous.status != "infeasible":
            return EditOutcome(status="refused", result=result, refusal="MADE_INFEASIBLE", edited_key=key)
    return EditOutcome(status="applied", result=result, edited_key=key, newly_dropped=_dropped(previous, result, key))


def _dropped(before: ItineraryResult, after: ItineraryResult, edited: str | None) -> list[str]:
    now = visited_keys(after)
    return [k for k in sorted(visited_keys(before)) if k not in now and k != edited]
