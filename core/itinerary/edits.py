"""User edits (lock to a day or time, move, remove, unlock, add) and the stable re-plan after them; the
JSON entry of the command line (a request, or a request with edits)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from core.config import Settings
from core.errors import InputError
from core.geo.composite import MapServices
from core.itinerary.pipeline import ProgressCallback, plan_itinerary
from core.models.itinerary import PlanVariant, TripPlace, TripRequest, UserEdit
from core.models.itinerary_result import ItineraryResult

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # typing.TypeIs from Python 3.13


def apply_user_edits(request: TripRequest, edits: Sequence[UserEdit]) -> tuple[TripRequest, list[str]]:
    """The request with edits applied (locks become fixed_day/fixed_start) and the removed keys."""
    places = [p.model_copy() for p in request.places]
    removed: list[str] = []

    def find(key: str, i: int) -> TripPlace:
        for p in places:
            if p.key == key:
                return p
        raise InputError(f"edit {i + 1}: no place with key '{key}' in this trip", field=f"edits.{i}.key")

    for i, edit in enumerate(edits):
        day_index = getattr(edit, "day_index", None)
        if day_index is not None and day_index >= len(request.days):
            raise InputError(
                f"edit {i + 1}: day_index {day_index} is beyond the trip's {len(request.days)} day(s)",
                field=f"edits.{i}.day_index",
            )
        if edit.kind == "add":
            known = next((p for p in places if p.key == edit.place.key), None)
            if known is not None and edit.day_index is None:
                raise InputError(
                    f"edit {i + 1}: a place with key '{edit.place.key}' already exists", field=f"edits.{i}.place"
                )
            if known is None:
                known = edit.place.model_copy()
                places.append(known)
            if edit.day_index is not None:  # added to a chosen day: it stays there
                known.fixed_day = edit.day_index
            continue
        place = find(edit.key, i)
        if edit.kind == "reorder":
            if edit.day_index is not None:  # placed by hand on that day: it stays there
                place.fixed_day = edit.day_index
            continue
        if edit.kind == "lock":
            if edit.day_index is not None:
                place.fixed_day = edit.day_index
            if edit.start_time is not None:
                place.fixed_start = edit.start_time
        elif edit.kind == "move":
            place.fixed_day = edit.day_index
            place.fixed_start = None
        elif edit.kind == "unlock":
            place.fixed_day = None
            place.fixed_start = None
        elif edit.kind == "remove":
            removed.append(edit.key)
    new_request = TripRequest.model_validate({**request.model_dump(), "places": [p.model_dump() for p in places]})
    return new_request, removed


def _is_result(result_or_request: ItineraryResult | TripRequest) -> TypeIs[ItineraryResult]:
    """A result is told by its shape, not its class: the dashboard keeps results across reloads of this module
    (Streamlit re-imports a changed module; the result in the session is then of the class before the reload)."""
    return isinstance(result_or_request, ItineraryResult) or (
        hasattr(result_or_request, "days") and hasattr(result_or_request, "dropped_items")
    )


def reoptimize(
    result_or_request: ItineraryResult | TripRequest,
    edits: Sequence[UserEdit],
    *,
    provider: MapServices,
    settings: Settings,
    progress: ProgressCallback | None = None,
) -> ItineraryResult:
    """Apply user edits (lock to a day/time, move, remove, unlock, add) and re-plan.

    Locks are hard nodes, so they hold. When a previous result is given, unlocked stops prefer
    the day they were on (a stable re-plan) and earlier removals stay removed; only the variant that plan came
    from is solved again, warm-started from its routes, each solve capped at ``itinerary_edit_time_limit_s``.
    """
    preferred: dict[str, int] = {}
    prior_removed: list[str] = []
    variant: PlanVariant | None = None
    warm: dict[int, list[str]] | None = None
    if _is_result(result_or_request):
        request = result_or_request.request
        for day in result_or_request.days:
            for e in day.entries:
                if e.kind == "visit" and e.key:
                    preferred[e.key] = day.day_index
        prior_removed = [d.key for d in result_or_request.dropped_items if d.reason_code == "REMOVED_BY_USER"]
        variant = getattr(result_or_request, "variant", None)
        warm = {
            day.day_index: [e.key for e in day.entries if e.kind == "visit" and e.key and e.part != 2]
            for day in result_or_request.days
        }
        limit = min(settings.itinerary_solver_time_limit_s, settings.itinerary_edit_time_limit_s)
        settings = settings.model_copy(update={"itinerary_solver_time_limit_s": limit})
    else:
        request = result_or_request
    new_request, removed = apply_user_edits(request, edits)
    readded = {e.place.key for e in edits if e.kind == "add"}
    removed_all = [k for k in dict.fromkeys([*prior_removed, *removed]) if k not in readded]
    return plan_itinerary(
        new_request,
        provider=provider,
        settings=settings,
        progress=progress,
        removed_keys=removed_all,
        preferred_days=preferred,
        variant=variant,
        warm_routes=warm,
    )


def itinerary_from_json(
    data: dict[str, Any], *, provider: MapServices | None = None, settings: Settings
) -> ItineraryResult:
    """CLI entry: ``python -m core itinerary --request FILE.json`` passes the parsed JSON here.

    Accepts a TripRequest object or ``{"request": {...}, "edits": [...]}``. The provider defaults
    to ``make_provider(region=request.region)``.
    """
    payload = data.get("request", data) if isinstance(data, dict) else data
    request = TripRequest.model_validate(payload)
    if provider is None:
        from core.geo.registry import make_provider

        provider = make_provider(None, region=request.region, settings=settings)
    edits = TypeAdapter(list[UserEdit]).validate_python(data.get("edits", [])) if isinstance(data, dict) else []
    if edits:
        return reoptimize(request, edits, provider=provider, settings=settings)
    return plan_itinerary(request, provider=provider, settings=settings)
