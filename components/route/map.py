"""The route planner's map (folium, offline): numbered pins that never hide each other, the best route, and the
other candidates where they differ from it, with a legend on the map.

``build_route_map`` builds the ``folium.Map`` (unit-testable, no Streamlit); ``render_route_map`` draws its HTML
document in an ``st.iframe`` (no st_folium: nothing comes back from this map, and its frame would first load a 225 KB
bundle and wait for its arguments), made once per result and language (kept beside the result in the session).

* Candidates are drawn by default, each in its colour, but only their legs the best order does not have
  (``core.route.compare``): a shared leg is already under the best route's line and is not drawn again. The planner
  has road geometry for the best route only, so a candidate's legs are straight lines between stops, and the
  legend and tooltips say so.
* Pins that would overlap on screen (the same place, or a few tens of metres apart at the zoom shown) fan out
  around their true points, each with a thin leader line back to it (components/map_pins.py, shared by every
  map); the start and end pins sit above every other pin; a round trip gets one S/E pin. The map is fitted with
  room below the points for the legend (bottom left), so no pin lies under it.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import folium
from branca.element import MacroElement
from folium.template import Template

from components.basemap import add_background, finish_map
from components.map_pins import REACH_PX, Pins
from components.maps import BEST_COLOUR, ROLE_COLOURS, _base_url_path, offline_map
from components.route_words import ROLE_LABELS, found_name, point_name, source_words
from core.app.route import compare_with_best, place_key
from core.i18n import t
from core.models.route import CandidateRoute, ResolvedPoint, RoutePlanResult

#: candidate colours, none of them the best route's red
ALT_COLOURS = ("#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f")
MAX_ALTERNATIVES = 5
COORD_DECIMALS = 5  # about 1 m: enough for a drawn line, and a lighter page

_LEGEND_CSS = """
<style>
  .omni-legend { background: rgba(255,255,255,.88); padding: 4px 8px; border-radius: 6px; line-height: 1.35;
                 box-shadow: 0 1px 4px rgba(0,0,0,.3); font: 11px "Noto Sans CJK SC", "Noto Sans SC", sans-serif;
                 max-width: 340px; }
  .omni-legend .cand { white-space: nowrap; }
  .omni-legend summary { cursor: pointer; }
  .omni-legend .swatch { display: inline-block; width: 22px; margin-right: 6px; vertical-align: middle;
                         border-top-width: 4px; }
  .omni-legend small { color: #555; }
</style>
"""


@dataclass(frozen=True)
class MapPoint:
    """One marker: its label (S, 1..n, E, or S/E for a round trip), role, position and tooltip facts (names in
    the map's language, the other language's name as ``other_name``)."""

    label: str
    role: str  # origin | stop | destination
    lon: float
    lat: float
    name: str
    resolved_name: str = ""
    source: str = ""
    other_name: str = ""
    key: str = ""  # the place (core.route.compare.place_key)


def _from_resolved(point: ResolvedPoint, label: str, *, lang: str = "en", region: str | None = None) -> MapPoint:
    shown = point_name(point, lang, region)
    found = found_name(point, lang, region)
    return MapPoint(
        label=label,
        role=point.role,
        lon=point.lon,
        lat=point.lat,
        name=shown.shown or point.input_address,
        resolved_name=found.shown,
        source=point.source,
        other_name=found.other,
        key=place_key(point),
    )


def live_start(
    result: RoutePlanResult, candidate: CandidateRoute | None = None, *, lang: str = "en"
) -> MapPoint | None:
    """The user's live start (current_location with coordinates), as the result carries it."""
    if result.resolved_origin is not None or result.live_origin is None:
        return None
    lon, lat = result.live_origin.lon, result.live_origin.lat
    label = t("route.point.live_start", lang)
    return MapPoint("S", "origin", lon, lat, label, source="user_input", key=f"at:{lon:.6f},{lat:.6f}")


def map_points(result: RoutePlanResult, candidate: CandidateRoute | None = None, *, lang: str = "en") -> list[MapPoint]:
    """Start (if known), the stops in the candidate's visiting order (numbered 1..n), destination."""
    region = result.region
    points: list[MapPoint] = []
    stops = 0
    for ref, point in result.visiting(candidate):
        if point is None:  # the live start (none when its position is unknown)
            start = live_start(result, candidate, lang=lang)
            points.extend([start] if start is not None else [])
            continue
        if ref.role == "stop":
            stops += 1
        label = {"origin": "S", "destination": "E"}.get(ref.role, str(stops))
        points.append(_from_resolved(point, label, lang=lang, region=region))
    return points


def is_round_trip(points: list[MapPoint]) -> bool:
    """The trip ends where it starts (the same place, or within a metre)."""
    if len(points) < 2 or points[0].role != "origin":
        return False
    first, last = points[0], points[-1]
    return first.key == last.key or (abs(first.lon - last.lon) < 1e-5 and abs(first.lat - last.lat) < 1e-5)


def pin_points(result: RoutePlanResult, *, lang: str = "en") -> list[MapPoint]:
    """The pins to draw: every point of the best order, a round trip's start and end as one S/E pin."""
    points = map_points(result, lang=lang)
    if is_round_trip(points):
        start = points[0]
        points = [
            MapPoint(
                "S/E",
                "origin",
                start.lon,
                start.lat,
                start.name,
                start.resolved_name,
                start.source,
                start.other_name,
                start.key,
            ),
            *points[1:-1],
        ]
    return points


def _role_words(point: MapPoint, lang: str) -> str:
    if point.label == "S/E":
        return t("route.map.start_end", lang)
    return t(ROLE_LABELS[point.role], lang)


def _tooltip(point: MapPoint, lang: str = "en") -> str:
    """The pin's tooltip: number and role, the name in the map's language, the other language's name, the place
    it was found as, and (small) its coordinates and how it was found."""
    role = html.escape(_role_words(point, lang))
    name = html.escape(point.name)
    resolved = html.escape(point.resolved_name)
    other_name = html.escape(point.other_name)
    return (
        f"<b>{html.escape(point.label)} · {role}</b><br>{name}"
        + (f"<br>{other_name}" if other_name and other_name != name else "")
        + (f"<br><small>→ {resolved}</small>" if resolved and resolved != name else "")
        + f"<br><small>{point.lon:.5f}, {point.lat:.5f}"
        + (f" · {html.escape(source_words(point.source, lang))}" if point.source else "")
        + "</small>"
    )


def best_route_latlngs(result: RoutePlanResult) -> list[list[float]]:
    """The best route as one [lat, lon] line (rounded to about a metre): the legs' geometry, else straight
    segments."""
    line: list[list[float]] = []
    for leg in result.best_geometry:
        for lon, lat, *_ in leg:
            here = [round(lat, COORD_DECIMALS), round(lon, COORD_DECIMALS)]
            if not line or line[-1] != here:
                line.append(here)
    if len(line) >= 2:
        return line
    return [[p.lat, p.lon] for p in map_points(result)]  # positions only: the language does not matter


def has_road_geometry(result: RoutePlanResult) -> bool:
    """Whether the best route is drawn along the roads (every leg's path came from a router)."""
    source = result.geometry_source or ""
    return bool(result.best_geometry) and not any(s in source for s in ("offline_estimate", "straight_line"))


@dataclass(frozen=True)
class CandidateLines:
    """What the map draws for one candidate: its rank, colour, figures and the straight segments ([lat, lon]
    pairs) of its legs that the best order does not have, with their end names."""

    rank: int
    colour: str
    km: float
    minutes: float
    segments: list[list[list[float]]]
    names: list[tuple[str, str]]
    total_legs: int


def candidate_lines(
    result: RoutePlanResult, *, lang: str = "en", max_alternatives: int = MAX_ALTERNATIVES
) -> list[CandidateLines]:
    """The other candidates (best first by rank), each with only the legs that change from the best route."""
    others = [c for i, c in enumerate(result.candidates) if i != result.best_index][:max_alternatives]
    lines = []
    for i, cand in enumerate(others):
        points = map_points(result, cand, lang=lang)
        comparison = compare_with_best(result, cand)
        segments, names = [], []
        for n in comparison.changed:
            a, b = points[n], points[n + 1]
            segments.append([[a.lat, a.lon], [b.lat, b.lon]])
            names.append((a.name, b.name))
        lines.append(
            CandidateLines(
                rank=cand.rank if cand.rank is not None else i + 2,
                colour=ALT_COLOURS[i % len(ALT_COLOURS)],
                km=cand.total_distance_m / 1000,
                minutes=cand.total_duration_s / 60,
                segments=segments,
                names=names,
                total_legs=len(comparison.legs),
            )
        )
    return lines


class MapLegend(MacroElement):
    """A legend drawn on the map (bottom left): colour → what the line is, in the page's language."""

    _template = Template(
        """{% macro script(this, kwargs) %}
        (function () {
          var legend = L.control({position: "bottomleft"});
          legend.onAdd = function () {
            var div = L.DomUtil.create("div", "omni-legend");
            div.innerHTML = {{ this.body|tojson }};
            L.DomEvent.disableClickPropagation(div);
            return div;
          };
          legend.addTo({{ this._parent.get_name() }});
        })();
        {% endmacro %}"""
    )

    def __init__(self, body: str) -> None:
        super().__init__()
        self._name = "MapLegend"
        self.body = body


#: one line of the legend (11 px type, line height 1.35, a swatch) and its padding
LEGEND_LINE_PX = 16
LEGEND_PAD_PX = 8
#: below the legend, bottom left too: Leaflet's scale bar (metric and imperial) and the controls' 10 px margins
BELOW_LEGEND_PX = 58


def legend_clearance(candidates: int) -> int:
    """The room (px) to keep below the pins' points when the map is fitted, so no pin lies under the legend (bottom
    left, as wide as the map on a phone): what lies below it, its height (the best route's two lines, a line per
    candidate drawn, the note's two) and how far a pin reaches from its point once fanned out."""
    rows = 2 + (candidates + 2 if candidates else 0)
    return BELOW_LEGEND_PX + LEGEND_PAD_PX + rows * LEGEND_LINE_PX + REACH_PX


#: the height (px) the route itself gets on the map: the frame grows by the legend's room, so a long legend (many
#: candidates) makes the map taller rather than squeezing the route into its top half
ROUTE_AREA_PX = 400
FIT_TOP_PX = 30


def map_height(result: RoutePlanResult, *, show_alternatives: bool = True) -> int:
    """The map frame's height for ``result``: the route's area, the top margin and the legend's room."""
    drawn = min(max(len(result.candidates) - 1, 0), MAX_ALTERNATIVES) if show_alternatives else 0
    return FIT_TOP_PX + ROUTE_AREA_PX + legend_clearance(drawn)


def _swatch(colour: str, *, dashed: bool = False) -> str:
    style = "dashed" if dashed else "solid"
    return f'<span class="swatch" style="border-top: 4px {style} {colour}"></span>'


def legend_html(result: RoutePlanResult, lines: list[CandidateLines], *, lang: str = "en") -> str:
    """The legend's HTML (every text escaped): the best route with its figures and how it is drawn, then each
    candidate with its figures and how many of its legs differ."""
    best = result.best_route
    figures = t("route.map.figures", lang, km=f"{best.total_distance_m / 1000:.1f}",
                minutes=f"{best.total_duration_s / 60:.0f}")  # fmt: skip
    drawn = t("route.map.best_roads" if has_road_geometry(result) else "route.map.best_straight", lang)
    summary = (
        _swatch(BEST_COLOUR)
        + f"<b>{html.escape(t('route.map.best', lang))}</b> ({html.escape(figures)})"
        + f"<br><small>{html.escape(drawn)}</small>"
    )
    rows = []
    for line in lines:
        cand_figures = t("route.map.figures", lang, km=f"{line.km:.1f}", minutes=f"{line.minutes:.0f}")
        if line.segments:
            differs = t("route.map.legs_differ", lang, n=len(line.segments), total=line.total_legs)
        else:
            differs = t("route.map.same_legs", lang)
        rows.append(
            '<span class="cand">'
            + _swatch(line.colour, dashed=True)
            + html.escape(t("route.map.candidate", lang, rank=line.rank) + f" ({cand_figures})")
            + f" · <small>{html.escape(differs)}</small></span>"
        )
    if not rows:
        return summary
    # the note says what is drawn: "only the best route follows the roads" is false when it is straight too
    note = "route.map.candidates_note" if has_road_geometry(result) else "route.map.candidates_note_straight"
    rows.append(f"<small>{html.escape(t(note, lang))}</small>")
    # A <details> the reader can fold: folded, it still says what the red line is.
    return f"<details open><summary>{summary}</summary>" + "<br>".join(rows) + "</details>"


def build_route_map(
    result: RoutePlanResult,
    show_alternatives: bool = True,
    *,
    max_alternatives: int = MAX_ALTERNATIVES,
    base_url_path: str = "",
    background: bool = True,
    lang: str = "en",
) -> folium.Map:
    """A folium map of a plan, worded in ``lang``: numbered pins (spread when they overlap, S and E on top), the
    best route, the other candidates' changed legs, a legend."""
    points = pin_points(result, lang=lang)
    line = best_route_latlngs(result)
    lats = [p.lat for p in points] + [p[0] for p in line]
    lons = [p.lon for p in points] + [p[1] for p in line]
    centre = [(min(lats) + max(lats)) / 2, (min(lons) + max(lons)) / 2]
    m = offline_map(centre, zoom_start=12, base_url_path=base_url_path)
    m.get_root().header.add_child(folium.Element(_LEGEND_CSS), name="omni_route_legend_css")
    if background:
        add_background(m, result.region, bounds=(min(lons), min(lats), max(lons), max(lats)), lang=lang)

    lines = candidate_lines(result, lang=lang, max_alternatives=max_alternatives) if show_alternatives else []
    for cand in lines:
        label = t("route.map.candidate", lang, rank=cand.rank)
        group = folium.FeatureGroup(
            name=f'<span style="color:{cand.colour}">┅</span> ' + html.escape(label),
            show=True,
        )
        for segment, (a, b) in zip(cand.segments, cand.names, strict=True):  # one line per leg: the GCJ-02 shift
            folium.PolyLine(  # (components/basemap.py) moves simple lines
                segment,
                color=cand.colour,
                weight=4,
                opacity=0.9,
                dash_array="8 6",
                tooltip=html.escape(label + " · " + t("route.map.candidate_tooltip", lang, legs=f"{a} → {b}")),
            ).add_to(group)
        group.add_to(m)

    best = folium.FeatureGroup(
        name=f'<span style="color:{BEST_COLOUR}">━</span> ' + html.escape(t("route.map.best", lang)), show=True
    )
    folium.PolyLine(
        line,
        color=BEST_COLOUR,
        weight=6,
        opacity=0.85,
        tooltip=html.escape(
            t("route.map.best", lang) + ": " + " → ".join(p.name for p in map_points(result, lang=lang))
        ),
    ).add_to(best)
    best.add_to(m)

    pins = Pins(html.escape(t("route.map.points", lang)))
    for point in points:
        colour = ROLE_COLOURS[point.role]
        pins.add(point.lat, point.lon, point.label, colour, tooltip=_tooltip(point, lang), on_top=point.role != "stop")
    pins.add_to(m)
    MapLegend(legend_html(result, lines, lang=lang)).add_to(m)

    m.fit_bounds(
        [[min(lats), min(lons)], [max(lats), max(lons)]],
        padding_top_left=(30, FIT_TOP_PX),
        padding_bottom_right=(30, legend_clearance(len(lines))),
    )
    finish_map(m, result.provider)
    folium.LayerControl(collapsed=True).add_to(m)
    return m


# --- Streamlit side -------------------------------------------------------------------------

_MAP_CACHE = "route_map_cache"


def route_map_html(
    result: RoutePlanResult, *, lang: str, base_url_path: str = "", show_alternatives: bool = True
) -> str:
    """The map as one HTML document (Leaflet from ``/app/static``, the map's own script inline)."""
    m = build_route_map(result, show_alternatives, base_url_path=base_url_path, lang=lang)
    return m.get_root().render()


def render_route_map(
    result: RoutePlanResult,
    *,
    lang: str,
    key: str = "route_map",
    height: int | None = None,
    show_alternatives: bool = True,
) -> None:
    """Draw the plan's map as a plain HTML frame (``st.iframe``): nothing is sent back, so no reruns, and the frame
    loads Leaflet and the map's script only (st_folium's frame first loads its own 225 KB bundle and waits for its
    arguments). The HTML is made once per result and language and kept beside the result in the session (a rerun
    for another widget reuses it)."""
    import streamlit as st

    base = _base_url_path()
    cached = st.session_state.get(_MAP_CACHE)
    wanted = (lang, base, show_alternatives)
    if cached is None or cached[0] is not result or cached[1] != wanted:
        page = route_map_html(result, lang=lang, base_url_path=base, show_alternatives=show_alternatives)
        st.session_state[_MAP_CACHE] = cached = (result, wanted, page)
    with st.container(key=f"{key}_box"):  # .st-key-route_map_box in the page (browser tests)
        st.iframe(cached[2], height=height or map_height(result, show_alternatives=show_alternatives))
