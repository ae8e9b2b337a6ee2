"""folium and branca at a typed boundary: the few pieces the maps use that their own annotations leave untyped.

folium and branca ship ``py.typed``, but branca's ``MacroElement.__init__`` and folium's ``PolyLine`` have no
annotations (mypy refuses calling them from checked code), and ``Element.get_root()`` is typed as an ``Element``
where a folium map's root is always a ``Figure`` (``folium.Map.__init__`` puts the map in one). Each is typed once
here, so the maps are checked as strictly as the rest of the faces.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

import folium
from branca.element import Element, Figure, MacroElement


class Macro(MacroElement):
    """branca's ``MacroElement`` (a piece of a map's script, rendered from the class's ``_template``) with a typed
    constructor: the base of the dashboard's own map elements."""

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # branca: MacroElement.__init__(self) has no annotations


def polyline(
    locations: Sequence[Sequence[float]], *, tooltip: str | None = None, **options: str | float | bool
) -> folium.PolyLine:
    """folium's ``PolyLine`` through ``locations`` ([lat, lon] points); ``options`` are Leaflet's path options
    (``color``, ``weight``, ``opacity``, ``dash_array``, ``interactive``…), ``tooltip`` is HTML."""
    # folium: PolyLine.__init__(self, locations, popup=None, tooltip=None, **kwargs) has no annotations
    make = cast(Callable[..., folium.PolyLine], folium.PolyLine)
    return make(locations, tooltip=tooltip, **options)


def page_head(m: folium.Map) -> Element:
    """The ``<head>`` of the page ``m`` is drawn in (where a map's own CSS goes)."""
    root = m.get_root()
    if not isinstance(root, Figure):  # folium.Map.__init__ adds the map to a Figure: never true for a folium map
        raise TypeError(f"{type(m).__name__} is not drawn in a branca Figure")
    return root.header
