"""Plan and edit a multi-day itinerary (job 2), including the refusal of an edit the plan cannot keep."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from core.app.context import RequestContext
from core.app.scope import in_scope, refuse_uncovered
from core.clock import Clock
from core.config import Settings, get_settings
from core.geo.base import TravelMode
from core.i18n import Lang
from core.itinerary.difference import plan_difference
from core.itinerary.edits import reoptimize
from core.itinerary.pipeline import ProgressCallback
from core.itinerary.pipeline import plan_itinerary as _plan_itinerary
from core.itinerary.shaping import is_shaping, lay_out_link, remove_in_place, shape_plan
from core.models.itinerary import Pacing, RemoveEdit, TripRequest, UserEdit
from core.models.itinerary_edit import PlanDifference, ShapeRefusal
from core.models.itinerary_problem import RobustnessPolicy
from core.models.itinerary_result import DroppedItem, ItineraryResult, SmallestFix, TimelineEntry
from core.packs.loader import load_region
from core.words.itinerary import PlaceName
from core.words.scope import scope_sentence

__all__ = [
    # entry points and what they return
    "EditOutcome",
    "demo_trip_from_today",
    "edit_itinerary",
    "fix_sentence",
    "ics",
    "plan_itinerary",
    "reason_days",
    "reason_sentence",
    "robustness_policy",
    "visited_keys",
]


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
    ctx, request, notice = _scoped(ctx, request)
    if edits:
        result = reoptimize(request, edits, provider=ctx.providers, settings=ctx.settings, progress=progress)
    else:
        result = _plan_itinerary(request, provider=ctx.providers, settings=ctx.settings, progress=progress)
    if notice:  # planned in the region that covers the place the request names: said first
        result.warnings.insert(0, notice)
    return result


def _scoped(ctx: RequestContext, request: TripRequest) -> tuple[RequestContext, TripRequest, str]:
    """Scope before answer (core/app/scope.py) on the request's names (the trip's, the hotel's, the places'): the
    context and request to plan on and the notice of a switch (""); a place no installed region covers raises
    ``RegionNotCovered``. A request that names its region is read against that region."""
    reading = ctx
    if request.region and request.region != ctx.region.name:
        reading = dataclasses.replace(ctx, region=load_region(request.region, ctx.settings.data_dir))
    names = [request.trip_name, request.hotel.name if request.hotel else None, *(p.name for p in request.places)]
    scoped, scope = in_scope(reading, *names)
    refuse_uncovered(scope, ctx.lang, field="request")
    if scope.verdict != "SWITCH":
        return ctx, request, ""
    update = {"region": scope.region} if request.region else {}
    return scoped, request.model_copy(update=update), scope_sentence(scope, ctx.lang)


class EditOutcome(BaseModel):
    """What an edit did: the new plan, or a refusal that keeps the plan before it (``result`` is then the plan
    the edit would have made, for the reasons; the face keeps showing the previous one)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    status: Literal["applied", "refused"]
    result: ItineraryResult
    refusal: Literal["LOCK_NOT_KEPT", "MADE_INFEASIBLE", "DOES_NOT_FIT"] | None = None
    edited_key: str | None = None
    reason_code: str | None = Field(
        default=None, description="refused: why the edited place does not fit (a drop reason: PAST_DAY_END, ...)"
    )
    reason_facts: dict[str, Any] = Field(default_factory=dict, description="refused: the facts behind the reason")
    newly_dropped: list[str] = Field(default_factory=list, description="Keys on the plan before, not after")
    conflict: ShapeRefusal | None = Field(
        default=None,
        description="DOES_NOT_FIT: the constraint a reorder or an add breaks (it may concern another place)",
    )
    difference: PlanDifference | None = Field(default=None, description="applied: the new plan against the one before")


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
        return _applied(previous, result, None)
    stable = previous.model_copy(update={"request": request})  # unlocked stops keep their day: a stable re-plan
    if is_shaping(edits[-1]):  # a reorder or an add to a day: made on the plan's orders, not solved again
        if progress is not None:
            progress("timeline", 0.5)
        shaped, conflict = shape_plan(stable, edits, provider=ctx.providers, settings=ctx.settings)
        key = getattr(edits[-1], "key", None) or getattr(getattr(edits[-1], "place", None), "key", None)
        if conflict is not None:
            return EditOutcome(
                status="refused",
                result=previous,
                refusal="DOES_NOT_FIT",
                edited_key=key,
                reason_code=conflict.code,
                reason_facts=conflict.facts,
                conflict=conflict,
            )
        if progress is not None:
            progress("done", 1.0)
        return _applied(previous, shaped, key)
    if isinstance(edits[-1], RemoveEdit):  # a removal needs only its day: laid out again, not solved again
        if progress is not None:
            progress("timeline", 0.5)
        in_place = remove_in_place(stable, edits, provider=ctx.providers, settings=ctx.settings)
        if in_place is not None:
            if progress is not None:
                progress("done", 1.0)
            return _applied(previous, in_place, edits[-1].key)
    result = reoptimize(stable, edits, provider=ctx.providers, settings=ctx.settings, progress=progress)
    last = edits[-1]
    key = getattr(last, "key", None)
    if last.kind in ("lock", "move"):
        if key not in visited_keys(result):
            item = next((d for d in result.dropped_items if d.key == key), None)
            return EditOutcome(
                status="refused",
                result=result,
                refusal="LOCK_NOT_KEPT",
                edited_key=key,
                reason_code=item.reason_code if item else None,
                reason_facts=dict(item.facts) if item else {},
            )
        if result.status == "infeasible" and previous.status != "infeasible":
            return EditOutcome(status="refused", result=result, refusal="MADE_INFEASIBLE", edited_key=key)
    return _applied(previous, result, key)


def replay_trip(
    ctx: RequestContext,
    request: TripRequest,
    edits: Sequence[UserEdit],
    *,
    orders: Sequence[Sequence[str]] | None = None,
    progress: ProgressCallback | None = None,
) -> ItineraryResult:
    """The plan a link describes. With its day orders (the plan its author saw), ``request`` with ``edits`` applied,
    each day laid out in its order: not solved again, since a solver on another machine or under another load may
    answer another order, and an edit made on the plan's order (a reorder, an add at a position) holds its position
    only until a later re-plan. Without them, or when they no longer fit the trip: ``request`` planned and each edit
    applied in turn on the plan before it, as the page applied them."""
    if orders is not None:
        laid = lay_out_link(request, edits, orders, provider=ctx.providers, settings=ctx.settings)
        if laid is not None:
            return laid
    result = plan_itinerary(ctx, request, progress=progress)
    for n in range(1, len(edits) + 1):
        result = edit_itinerary(ctx, result, edits[:n], base=request, progress=progress).result
    return result


def _applied(previous: ItineraryResult, result: ItineraryResult, key: str | None) -> EditOutcome:
    return EditOutcome(
        status="applied",
        result=result,
        edited_key=key,
        newly_dropped=_dropped(previous, result, key),
        difference=plan_difference(previous, result),
    )


def _dropped(before: ItineraryResult, after: ItineraryResult, edited: str | None) -> list[str]:
    now = visited_keys(after)
    return [k for k in sorted(visited_keys(before)) if k not in now and k != edited]


# ---- what a face shows of an itinerary: reasons in words, the pacing's policy, the calendar, demo dates ---------


def reason_days(item: DroppedItem) -> list[int]:
    """The days (0-based) a dropped place's reason names."""
    from core.words.itinerary import reason_days as _reason_days

    return _reason_days(item)


def reason_sentence(item: DroppedItem, result: ItineraryResult, lang: Lang) -> str:
    """Why a place was left out, in ``lang``."""
    from core.words.itinerary import reason_sentence as _reason_sentence

    return _reason_sentence(item, result, lang)


def fix_sentence(fix: SmallestFix | None, place_name: PlaceName, lang: Lang) -> str:
    """The smallest verified change that fits a dropped place, in ``lang`` ("" when none was found)."""
    from core.words.itinerary import fix_sentence as _fix_sentence

    return _fix_sentence(fix, place_name, lang)


def robustness_policy(mode: TravelMode, pacing: Pacing, *, settings: Settings | None = None) -> RobustnessPolicy:
    """The travel-time policy the settings give this transport mode and pacing (what the pacing means)."""
    from core.itinerary.travel import robustness_policy_for

    return robustness_policy_for(mode, pacing, settings=settings or get_settings())


def ics(
    result: ItineraryResult,
    *,
    generated_at: datetime,
    lang: Lang = "en",
    describe: Callable[[TimelineEntry], str] | None = None,
    include_travel: bool = False,
) -> str:
    """The itinerary as an iCalendar document stamped ``generated_at`` (the request's moment), its events titled
    and described in ``lang`` (core/words/itinerary_ics.py; ``describe`` words the descriptions otherwise)."""
    from core.itinerary.ics import itinerary_to_ics
    from core.words.itinerary_ics import ics_description, ics_title

    return itinerary_to_ics(
        result,
        generated_at=generated_at,
        include_travel=include_travel,
        describe=describe or (lambda entry: ics_description(entry, lang)),
        title=lambda entry: ics_title(entry, lang),
    )


def demo_trip_from_today(trip: Mapping[str, Any], *, timezone: str, now: Clock) -> dict[str, Any]:
    """A copy of a demo trip (a TripRequest as JSON) moved by whole weeks to start on or after ``now``'s day in
    ``timezone``, each day keeping its weekday: a demo is never planned in the past."""
    from core.itinerary.demo_dates import region_today, shift_trip_dates

    return shift_trip_dates(trip, today=region_today(timezone, now=now))
