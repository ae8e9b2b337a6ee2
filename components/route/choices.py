"""The route planner's choices as codes (components/choices.py): what a language switch or a page switch keeps."""

from __future__ import annotations

from typing import Literal

from components.choices import Choices, ChoiceStore
from core.models.route import RouteStrategy, TransportMode


class RouteChoices(Choices):
    """The form's word-option choices; the field names are the widgets' keys."""

    origin_mode: Literal["fixed", "current_location"] = "fixed"
    route_strategy: RouteStrategy = "shortest_distance"
    transport_mode: TransportMode = "driving"
    deep_link_mode: Literal["personal_map", "route_plan", "auto"] = "auto"
    scenario: str | None = None  # the demo in the picker (an id of the region's scenarios)


ROUTE = ChoiceStore("route_choices", RouteChoices)
