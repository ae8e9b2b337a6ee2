"""The itinerary page's choices as codes (components/choices.py): what a language switch or a page switch keeps."""

from __future__ import annotations

from typing import Literal

from components.choices import Choices, ChoiceStore
from components.session import MutableState


class ItineraryChoices(Choices):
    """The page's word-option choices; the field names are the widgets' keys."""

    trip_demo: str | None = None  # a demo trip's file stem
    trip_hotel: str | None = None  # a place id of the region's catalogue
    pacing: Literal["relaxed", "normal", "tight"] = "normal"
    trip_mode: Literal["driving", "walking", "cycling"] = "driving"
    day_select: int = 0  # the day shown (0-based)
    edit_stop: str | None = None  # the stop an edit concerns (a place key of the request)
    edit_action: Literal["lock", "move", "remove", "unlock"] = "lock"
    edit_day: int | None = None  # the day an edit moves or locks to (0-based)


ITINERARY = ChoiceStore("itinerary_choices", ItineraryChoices)
FIELDS = tuple(ItineraryChoices.model_fields)


def sync_widgets(state: MutableState) -> None:
    """Hand the kept choices to their widgets' keys at the start of a run (code reading the form before a widget
    draws reads the choice, not what a widget of another language sent)."""
    kept = ITINERARY.get(state)
    for field in FIELDS:
        value = getattr(kept, field)
        if value is not None:
            state[field] = value
