"""The strategy lab's map: many routes at once (pydeck), offline. No Streamlit here but ``render_map``.

Routes are the project optimiser's rows drawn as lines (``geometry``, kept by a grid with ``with_geometry``), a
PathLayer coloured by strategy or by the time strategy ``a`` saves against ``b``; the stops are a ScatterplotLayer at
the region pack's coordinates of the places each route visits (``place_order``, and the origin from the batch).
Under them, the pack's own background: its streets, water and parks (``basemap.geojson``) as a GeoJsonLayer when
the pack has road data, else its coverage box. No tile provider and no map style: ``map_provider=None`` leaves the
style empty, so Streamlit's frontend does not fetch Carto's (``map_style=None`` would make it fetch one), and deck.gl
itself is bundled with Streamlit's frontend: the map asks nothing of the internet.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import Any, TypedDict

import pandas as pd
import pydeck as pdk

from components.basemap import clip
from components.lab.words import strategy_name
from core.errors import OmniError
from core.i18n import Lang, t
from core.models.region import RegionPack

RGB = tuple[int, int, int]
STRATEGY_RGB: dict[str, RGB] = {
    "shortest_distance": (31, 119, 180),
    "fastest_time": (255, 127, 14),
    "balanced": (148, 103, 189),
}
SAVES, SAME, COSTS = (44, 160, 44), (150, 150, 150), (214, 39, 40)
BACKGROUND_RGB: dict[str, tuple[list[int], list[int], float]] = {  # class: fill, line, line width (m)
    "water": ([183, 213, 239, 230], [156, 195, 230, 255], 0),
    "park": ([207, 232, 196, 200], [181, 219, 165, 255], 0),
    "major": ([0, 0, 0, 0], [255, 255, 255, 255], 9),
    "minor": ([0, 0, 0, 0], [255, 255, 255, 255], 5),
    "path": ([0, 0, 0, 0], [201, 206, 214, 230], 2),
}
LAND = [238, 240, 234]
MAX_ROUTES = 400  # a map of more lines than this is unreadable and heavy: the first ones, and the page says so


def _legs(geometry: Any) -> list[list[float]]:
    """One path from the legs' lines ([[[lon, lat], ...] per leg]), the repeated joints dropped."""
    try:
        legs = json.loads(geometry) if isinstance(geometry, str) else None
    except json.JSONDecodeError:
        return []
    path: list[list[float]] = []
    for leg in legs or []:
        for point in leg:
            if not path or path[-1] != point:
                path.append([float(point[0]), float(point[1])])
    return path


def route_rows(frame: pd.DataFrame, *, region: str, provider: str, mode: str, strategies: list[str]) -> pd.DataFrame:
    """The project optimiser's drawn routes of one group and the chosen strategies."""
    rows = frame[
        (frame["status"] == "ok")
        & (frame["optimiser"] == "project")
        & (frame["region"] == region)
        & (frame["provider"] == provider)
        & (frame["mode"] == mode)
        & frame["strategy"].isin(strategies)
        & frame["geometry"].notna()
    ]
    return rows


def savings(frame: pd.DataFrame, *, a: str, b: str) -> dict[str, float]:
    """``{request_id: seconds a saves against b}`` on the project's routes."""
    ok = frame[(frame["status"] == "ok") & (frame["optimiser"] == "project")]
    da = ok[ok["strategy"] == a].groupby(["request_id", "provider", "mode"])["duration_s"].first()
    db = ok[ok["strategy"] == b].groupby(["request_id", "provider", "mode"])["duration_s"].first()
    saved = (db - da).dropna()
    return {str(k[0]): float(v) for k, v in saved.items()}


def saving_colour(seconds: float | None) -> RGB:
    if seconds is None or abs(seconds) < 1:
        return SAME
    return SAVES if seconds > 0 else COSTS


def stop_points(
    rows: pd.DataFrame, pack: RegionPack | None, origins: dict[str, str], *, lang: Lang
) -> list[dict[str, Any]]:
    """The places the routes visit, at the pack's coordinates (one point per place, its name in ``lang``)."""
    seen: dict[str, dict[str, Any]] = {}
    for request_id, place_order in zip(rows["request_id"], rows["place_order"]):
        try:
            ids = json.loads(place_order) if isinstance(place_order, str) else []
        except json.JSONDecodeError:
            ids = []
        origin = origins.get(str(request_id))
        for role, place_id in [*([("origin", origin)] if origin else []), *(("stop", i) for i in ids)]:
            place = pack.place_by_id(place_id) if pack is not None and isinstance(place_id, str) else None
            if place is None or place_id in seen:
                continue
            name = (place.name_en if lang == "en" else place.name_zh) or place.name_zh or place.name_en or ""
            words = t("lab.map.origin" if role == "origin" else "lab.map.stop", lang, name=html.escape(name))
            seen[place_id] = {
                "position": [place.lon, place.lat],
                "tip": words,
                "colour": [33, 33, 33] if role == "origin" else [255, 255, 255],
                "radius": 7 if role == "origin" else 5,
            }
    return list(seen.values())


def bounds_of(paths: list[list[list[float]]]) -> tuple[float, float, float, float] | None:
    points = [p for path in paths for p in path]
    if not points:
        return None
    lons, lats = [p[0] for p in points], [p[1] for p in points]
    return min(lons), min(lats), max(lons), max(lats)


def background_layer(
    pack: RegionPack | None, bounds: tuple[float, float, float, float] | None
) -> tuple[pdk.Layer | None, str]:
    """The pack's streets, water and parks (clipped to the routes) or its coverage box; and which one."""
    if pack is None:
        return None, "none"
    path = pack.basemap_path
    if path is not None:
        from components.basemap import _features, _pad

        area = _pad(bounds) if bounds else pack.bbox
        features = clip(_features(str(path)), area)
        styled = [_land(area)]  # the land under the streets (white lines), as on the other pages' maps
        for f in features:
            fill, line, width = BACKGROUND_RGB.get(f.get("properties", {}).get("class", ""), BACKGROUND_RGB["path"])
            styled.append(
                {**f, "properties": {"fill": fill, "line": line, "width": width}}  # only what the layer draws
            )
        layer = pdk.Layer(
            "GeoJsonLayer",
            {"type": "FeatureCollection", "features": styled},
            id="background",
            stroked=True,
            filled=True,
            get_fill_color="properties.fill",
            get_line_color="properties.line",
            get_line_width="properties.width",
            line_width_min_pixels=0.5,
            pickable=False,
        )
        return layer, "streets"
    box = _land(tuple(pack.bbox), line=[138, 148, 166, 255])
    layer = pdk.Layer(
        "GeoJsonLayer",
        {"type": "FeatureCollection", "features": [box]},
        id="background",
        stroked=True,
        filled=True,
        get_fill_color="properties.fill",
        get_line_color="properties.line",
        line_width_min_pixels=1,
        pickable=False,
    )
    return layer, "outline"


def _land(area: tuple[float, ...], *, line: list[int] | None = None) -> dict[str, Any]:
    """A box of land colour (west, south, east, north): what the streets are drawn on, or the pack's coverage."""
    west, south, east, north = area
    return {
        "type": "Feature",
        "properties": {"fill": [*LAND, 255], "line": line or [*LAND, 255], "width": 0},
        "geometry": {
            "type": "Polygon",
            "coordinates": [[[west, south], [east, south], [east, north], [west, north], [west, south]]],
        },
    }


class RoutePath(TypedDict):
    """One route as the PathLayer draws it: [lon, lat] points, RGBA colour, width (px) and tooltip (HTML)."""

    path: list[list[float]]
    colour: list[int]
    width: int
    tip: str


def build_deck(
    frame: pd.DataFrame,
    *,
    region: str,
    provider: str,
    mode: str,
    strategies: list[str],
    colour_by: str,
    a: str,
    b: str,
    pack: RegionPack | None,
    origins: dict[str, str],
    lang: Lang,
    request_label: Callable[[int, int], str],
) -> tuple[pdk.Deck | None, dict[str, Any]]:
    """The map of one group's routes; facts for the caption (routes drawn, shown out of, background kind)."""
    rows = route_rows(frame, region=region, provider=provider, mode=mode, strategies=strategies)
    total = len(rows)
    rows = rows.head(MAX_ROUTES)
    saved = savings(frame, a=a, b=b) if colour_by == "saving" else {}
    paths = route_paths(rows, saved, colour_by=colour_by, a=a, lang=lang, request_label=request_label)
    facts: dict[str, Any] = {"routes": len(paths), "total": total, "background": "none"}
    if not paths:
        return None, facts
    if colour_by == "saving":  # one line per request: strategy a's, coloured by what it saves against b
        own = rows[rows["strategy"] == a]  # chosen by row: a route without a line draws nothing, shifts nothing
        paths = route_paths(own, saved, colour_by=colour_by, a=a, lang=lang, request_label=request_label) or paths
        facts["routes"] = len(paths)
    bounds = bounds_of([p["path"] for p in paths])
    background, kind = background_layer(pack, bounds)
    facts["background"] = kind
    stops = stop_points(rows, pack, origins, lang=lang)
    layers = [layer for layer in [background] if layer is not None]
    layers += route_layers(paths, stops)
    assert bounds is not None
    deck = pdk.Deck(
        layers=layers,
        initial_view_state=fitted_view(bounds),
        map_provider=None,  # no tiles, no style: nothing fetched (see the module's docstring)
        tooltip={"html": "{tip}", "style": {"fontSize": "12px"}},
    )
    return deck, facts


def route_paths(
    rows: pd.DataFrame,
    saved: dict[str, float],
    *,
    colour_by: str,
    a: str,
    lang: Lang,
    request_label: Callable[[int, int], str],
) -> list[RoutePath]:
    """The routes of ``rows`` that have a line (two points or more), coloured by strategy or by what strategy ``a``
    saves (``saved``: seconds by request), strategy ``a``'s wider, each with its tooltip."""
    paths: list[RoutePath] = []
    for _, row in rows.iterrows():
        path = _legs(row["geometry"])
        if len(path) < 2:
            continue
        strategy = str(row["strategy"])
        seconds = saved.get(str(row["request_id"]))
        colour = STRATEGY_RGB.get(strategy, SAME) if colour_by == "strategy" else saving_colour(seconds)
        tip = t(
            "lab.map.route_tip",
            lang,
            request=html.escape(request_label(int(row["request_index"]) + 1, int(row["n_stops"]))),
            strategy=html.escape(strategy_name(strategy, lang)),
            km=f"{float(row['distance_m']) / 1000:.2f}",
            minutes=f"{float(row['duration_s']) / 60:.1f}",
        )
        paths.append({"path": path, "colour": [*colour, 200], "width": 6 if strategy == a else 3, "tip": tip})
    return paths


def route_layers(paths: list[RoutePath], stops: list[dict[str, Any]]) -> list[pdk.Layer]:
    """The routes (a PathLayer, hover picks a route) and, above them, the places they visit (a ScatterplotLayer)."""
    return [
        pdk.Layer(
            "PathLayer",
            paths,
            id="routes",
            get_path="path",
            get_color="colour",
            get_width="width",
            width_units="'pixels'",  # quoted: pydeck reads a bare string as an expression
            width_min_pixels=2,
            cap_rounded=True,
            joint_rounded=True,
            pickable=True,
            auto_highlight=True,
        ),
        pdk.Layer(
            "ScatterplotLayer",
            stops,
            id="stops",
            get_position="position",
            get_fill_color="colour",
            get_line_color=[33, 33, 33],
            get_radius="radius",
            radius_units="'pixels'",
            stroked=True,
            line_width_min_pixels=1,
            pickable=True,
        ),
    ]


def fitted_view(bounds: tuple[float, float, float, float]) -> pdk.ViewState:
    """The view over ``bounds`` (west, south, east, north), straight down, with a margin around the routes."""
    west, south, east, north = bounds
    view = pdk.data_utils.compute_view([[west, south], [east, north]], view_proportion=1)
    view.pitch, view.bearing = 0, 0
    view.zoom = max(1.0, float(view.zoom) - 0.7)  # a margin around the routes
    return view


def pack_for(region: str) -> RegionPack | None:
    """The region pack (None when it cannot be read: the map then has no background)."""
    from core.app.regions import load_region

    try:
        return load_region(region)
    except (OmniError, ValueError, OSError):
        return None
