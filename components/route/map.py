"""The route planner's map (folium, offline): numbered pins that never hide each other, the best route drawn bold,
and the other candidates where they differ from it, with a legend below the map.

``build_route_map`` builds the ``folium.Map`` (unit-testable, no Streamlit); ``render_route_map`` draws its HTML
document in an ``st.iframe`` (no st_folium: nothing comes back from this map, and its frame would first load a 225 KB
bundle and wait for its arguments), made once per result and language (kept beside the result in the session).

* The best route is drawn bold (a white casing under a wide red line); candidates are thin dashed lines, each its
  own layer (the layer control, and a checkbox per candidate in the legend, show or hide it).
* A candidate selected in the comparison table (``highlight``: its rank) is drawn whole and bold in its colour,
  the other lines faded; selecting the best route's row fades the candidates.
* Candidates are drawn by default, each in its colour, but only their legs the best order does not have
  (``core.route.compare``): a shared leg is already under the best route's line and is not drawn again. The planner
  has road geometry for the best route only, so a candidate's legs are straight lines between stops, and the
  legend and tooltips say so.
* Pins are numbered by the best route's visiting order, the numbering of every table too
  (components/route/numbering.py); numbered pins crowded together at a low zoom join a cluster that lists their
  numbers; pins that would overlap at street level fan out around their true points, each with a thin leader line
  back to it (components/map_pins.py, shared by every map); the start and end pins sit above every other pin and
  never cluster; a round trip gets one S/E pin.
* The person's order ("keep my order"), when the plan has one, is a layer of its own: a dotted purple line through
  the stops in that order (straight, as the candidates), its figures, their source and its difference to the best
  in the legend (components/route/own_map.py).
* The legend is below the map (a foldable block in the same frame), so it covers neither a pin nor the route; the
  map's corners keep the scale bar (bottom left) and the short credits (bottom right, components/maps.py).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import folium
from folium.template import Template

from components.basemap import add_background, finish_map
from components.folium_typed import Macro, page_head, polyline
from components.map_pins import REACH_PX, Pins
from components.maps import BEST_COLOUR, ROLE_COLOURS, _base_url_path, offline_map
from components.route.numbering import stop_numbers
from components.route.own_map import OwnLine, own_layer, own_legend_row, own_line
from components.route_words import ROLE_LABELS, found_name, point_name
from core.app.route import compare_with_best, source_words
from core.i18n import Lang, t
from core.models.route import CandidateRoute, ResolvedPoint, RoutePlanResult

#: candidate colours, none of them the best route's red
ALT_COLOURS = ("#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f")
MAX_ALTERNATIVES = 5
COORD_DECIMALS = 5  # about 1 m: enough for a drawn line, and a lighter page
#: line weights (px): the best route bold over a white casing, candidates thin, a selected candidate bold
BEST_WEIGHT = 8
BEST_CASING_WEIGHT = 13
CANDIDATE_WEIGHT = 3
SELECTED_WEIGHT = 7
FADED_OPACITY = 0.3

_LEGEND_CSS = """
<style>
  body { overflow-y: auto; }
  .omni-legend { padding: 4px 8px; line-height: 1.5; border-top: 1px solid #d0d4da; background: #fff;
                 font: 12px "Noto Sans CJK SC", "Noto Sans SC", sans-serif; }
  .omni-legend .cand { display: block; }
  .omni-legend .cand.selected { font-weight: bold; background: #fff5cc; }
  .omni-legend label { cursor: pointer; }
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
    key: str = ""  # the place (ResolvedPoint.place_key)


def _from_resolved(point: ResolvedPoint, label: str, *, lang: Lang = "en", region: str | None = None) -> MapPoint:
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
        key=point.place_key,
    )


def live_start(
    result: RoutePlanResult, candidate: CandidateRoute | None = None, *, lang: Lang = "en"
) -> MapPoint | None:
    """The user's live start (current_location with coordinates), as the result carries it."""
    if result.resolved_origin is not None or result.live_origin is None:
        return None
    lon, lat = result.live_origin.lon, result.live_origin.lat
    label = t("route.point.live_start", lang)
    return MapPoint("S", "origin", lon, lat, label, source="user_input", key=f"at:{lon:.6f},{lat:.6f}")


def map_points(
    result: RoutePlanResult, candidate: CandidateRoute | None = None, *, lang: Lang = "en"
) -> list[MapPoint]:
    """Start (if known), the stops in the candidate's visiting order (numbered 1..n), destination."""
    region = result.region
    points: list[MapPoint] = []
    stops = 0
    numbers = stop_numbers(result)
    for ref, point in result.visiting(candidate):
        if point is None:  # the live start (none when its position is unknown)
            start = live_start(result, candidate, lang=lang)
            points.extend([start] if start is not None else [])
            continue
        if ref.role == "stop":
            stops += 1
        # a stop's number is its place in the best route (numbering.py), on every candidate's points too
        number = numbers.get(ref.index, stops) if ref.index is not None else stops
        label = {"origin": "S", "destination": "E"}.get(ref.role, str(number))
        points.append(_from_resolved(point, label, lang=lang, region=region))
    return points


def is_round_trip(points: list[MapPoint]) -> bool:
    """The trip ends where it starts (the same place, or within a metre)."""
    if len(points) < 2 or points[0].role != "origin":
        return False
    first, last = points[0], points[-1]
    return first.key == last.key or (abs(first.lon - last.lon) < 1e-5 and abs(first.lat - last.lat) < 1e-5)


def pin_points(result: RoutePlanResult, *, lang: Lang = "en") -> list[MapPoint]:
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


def _role_words(point: MapPoint, lang: Lang) -> str:
    if point.label == "S/E":
        return t("route.map.start_end", lang)
    return t(ROLE_LABELS[point.role], lang)


def _tooltip(point: MapPoint, lang: Lang = "en") -> str:
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


@dataclass(frozen=True)
class CandidateLines:
    """What the map draws for one candidate: its rank, colour, figures, the straight segments ([lat, lon] pairs)
    of its legs that the best order does not have with their end names, and its whole order (drawn when it is
    selected in the comparison table)."""

    rank: int
    colour: str
    km: float
    minutes: float
    segments: list[list[list[float]]]
    names: list[tuple[str, str]]
    total_legs: int
    full: list[list[float]] = field(default_factory=list)


def candidate_lines(
    result: RoutePlanResult,
    *,
    lang: Lang = "en",
    max_alternatives: int = MAX_ALTERNATIVES,
    include_rank: int | None = None,
) -> list[CandidateLines]:
    """The other candidates (best first by rank), each with only the legs that change from the best route; the
    first ``max_alternatives``, and the one ranked ``include_rank`` wherever it is (selected in the table)."""
    others = [c for i, c in enumerate(result.candidates) if i != result.best_index]
    lines = []
    for i, cand in enumerate(others):
        rank = cand.rank if cand.rank is not None else i + 2
        if i >= max_alternatives and rank != include_rank:
            continue
        points = map_points(result, cand, lang=lang)
        comparison = compare_with_best(result, cand)
        segments, names = [], []
        for n in comparison.changed:
            a, b = points[n], points[n + 1]
            segments.append([[a.lat, a.lon], [b.lat, b.lon]])
            names.append((a.name, b.name))
        lines.append(
            CandidateLines(
                rank=rank,
                colour=ALT_COLOURS[i % len(ALT_COLOURS)],
                km=cand.total_distance_m / 1000,
                minutes=cand.total_duration_s / 60,
                segments=segments,
                names=names,
                total_legs=len(comparison.legs),
                full=[[p.lat, p.lon] for p in points],
            )
        )
    return lines


class LegendToggles(Macro):
    """The legend below the map (its HTML after the map's own, in the same frame), its checkboxes wired to the
    candidates' layers both ways: a box shows or hides its candidate, the layer control's choice ticks or clears
    the box."""

    _template = Template(
        """{% macro html(this, kwargs) %}{{ this.body }}{% endmacro %}
        {% macro script(this, kwargs) %}
        (function () {
          var map = {{ this._parent.get_name() }}, layers = {{ this.layers|tojson }};
          document.querySelectorAll(".omni-legend input[data-rank]").forEach(function (box) {
            var layer = window[layers[box.dataset.rank]];
            if (!layer) { return; }
            box.checked = map.hasLayer(layer);
            box.addEventListener("change", function () {
              if (box.checked) { map.addLayer(layer); } else { map.removeLayer(layer); }
            });
            map.on("overlayadd overlayremove", function (e) {
              if (e.layer === layer) { box.checked = e.type === "overlayadd"; }
            });
          });
        })();
        {% endmacro %}"""
    )

    def __init__(self, body: str, layers: dict[str, str]) -> None:
        super().__init__()
        self._name = "LegendToggles"
        self.body = body
        self.layers = layers


#: one line of the legend (12 px type, line height 1.5) and its padding
LEGEND_LINE_PX = 18
LEGEND_PAD_PX = 12
#: the map's bottom margin when it is fitted: the scale bar and the credits (bottom corners) and their margins
BOTTOM_CONTROLS_PX = 40


def legend_height(candidates: int) -> int:
    """About how tall (px) the legend below the map is: the best route's two lines, a line per candidate drawn,
    the candidates' note (two lines) and the numbering's line; the frame grows by it."""
    rows = 3 + (candidates + 2 if candidates else 0)
    return LEGEND_PAD_PX + rows * LEGEND_LINE_PX


#: the height (px) the route itself gets on the map, and the fitted margins around it
ROUTE_AREA_PX = 400
FIT_TOP_PX = 30
MAP_PX = FIT_TOP_PX + ROUTE_AREA_PX + BOTTOM_CONTROLS_PX + REACH_PX


def map_height(result: RoutePlanResult, *, show_alternatives: bool = True) -> int:
    """The map frame's height for ``result``: the map and the legend below it (the person's order: two lines)."""
    drawn = min(max(len(result.candidates) - 1, 0), MAX_ALTERNATIVES) if show_alternatives else 0
    return MAP_PX + legend_height(drawn) + (2 * LEGEND_LINE_PX if result.own_route is not None else 0)


def _swatch(colour: str, *, dashed: bool = False) -> str:
    style = "dashed" if dashed else "solid"
    return f'<span class="swatch" style="border-top: 4px {style} {colour}"></span>'


def legend_html(
    result: RoutePlanResult,
    lines: list[CandidateLines],
    *,
    lang: Lang = "en",
    highlight: int | None = None,
    own: OwnLine | None = None,
) -> str:
    """The legend's HTML (every text escaped), a block the reader can fold: the best route with its figures and how
    it is drawn, then each candidate with a checkbox that shows or hides it, its figures and how many of its legs
    differ, then what the pins' numbers are. The person's order (``own``), when kept, comes first under the best.
    The candidate selected in the table (``highlight``) is marked."""
    best = result.best_route
    figures = t("route.map.figures", lang, km=f"{best.total_distance_m / 1000:.1f}",
                minutes=f"{best.total_duration_s / 60:.0f}")  # fmt: skip
    drawn = t("route.map.best_roads" if result.has_road_geometry else "route.map.best_straight", lang)
    selected = f" · <i>{html.escape(t('route.map.selected', lang))}</i>"
    best_rank = best.rank if best.rank is not None else 1
    summary = (
        _swatch(BEST_COLOUR)
        + f"<b>{html.escape(t('route.map.best', lang))}</b> ({html.escape(figures)})"
        + (selected if highlight == best_rank else "")
        + f"<br><small>{html.escape(drawn)}</small>"
    )
    rows = [own_legend_row(own, lang=lang)] if own is not None else []  # the person's order, first under the best
    for line in lines:
        cand_figures = t("route.map.figures", lang, km=f"{line.km:.1f}", minutes=f"{line.minutes:.0f}")
        if line.segments:
            differs = t("route.map.legs_differ", lang, n=len(line.segments), total=line.total_legs)
        else:
            differs = t("route.map.same_legs", lang)
        chosen = line.rank == highlight
        rows.append(
            f'<label class="cand{" selected" if chosen else ""}" data-rank="{line.rank}">'
            + f'<input type="checkbox" data-rank="{line.rank}" checked '
            + f'title="{html.escape(t("route.map.show_on_map", lang))}"> '
            + _swatch(line.colour, dashed=not chosen)
            + html.escape(t("route.map.candidate", lang, rank=line.rank) + f" ({cand_figures})")
            + f" · <small>{html.escape(differs)}</small>"
            + (selected if chosen else "")
            + "</label>"
        )
    if rows:
        # the note says what is drawn: "only the best route follows the roads" is false when it is straight too
        note = "route.map.candidates_note" if result.has_road_geometry else "route.map.candidates_note_straight"
        rows.append(f"<small>{html.escape(t(note, lang))}</small>")
    rows.append(f"<small>{html.escape(t('route.map.numbering', lang))}</small>")
    rows.append(f"<small>{html.escape(t('route.map.cluster_note', lang))}</small>")  # what a cluster's count is
    # Folded, it still says what the red line is.
    return (
        f'<div class="omni-legend" aria-label="{html.escape(t("route.map.legend", lang))}">'
        f"<details open><summary>{summary}</summary>" + "".join(f"<div>{r}</div>" for r in rows) + "</details></div>"
    )


def _best_rank(result: RoutePlanResult) -> int:
    rank = result.best_route.rank
    return rank if rank is not None else 1


def build_route_map(
    result: RoutePlanResult,
    show_alternatives: bool = True,
    *,
    max_alternatives: int = MAX_ALTERNATIVES,
    base_url_path: str = "",
    background: bool = True,
    lang: Lang = "en",
    highlight: int | None = None,
) -> folium.Map:
    """A folium map of a plan, worded in ``lang``: numbered pins (clustered when crowded at a low zoom, spread when
    they overlap, S and E on top), the best route bold, the other candidates' changed legs (a layer each), a
    legend below the map; the person's order, when kept, as a layer of its own (components/route/own_map.py).
    ``highlight``: the rank of the candidate selected in the comparison table."""
    points = pin_points(result, lang=lang)
    line = best_route_latlngs(result)
    lats = [p.lat for p in points] + [p[0] for p in line]
    lons = [p.lon for p in points] + [p[1] for p in line]
    centre = [(min(lats) + max(lats)) / 2, (min(lons) + max(lons)) / 2]
    m = offline_map(centre, zoom_start=12, base_url_path=base_url_path, height=f"{MAP_PX}px")
    page_head(m).add_child(folium.Element(_LEGEND_CSS), name="omni_route_legend_css")
    if background:
        add_background(m, result.region, bounds=(min(lons), min(lats), max(lons), max(lats)), lang=lang)

    lines = (
        candidate_lines(result, lang=lang, max_alternatives=max_alternatives, include_rank=highlight)
        if show_alternatives
        else []
    )
    best_rank = _best_rank(result)
    someone_selected = highlight is not None and (highlight == best_rank or any(c.rank == highlight for c in lines))
    groups, selected_group = _candidate_layers(m, lines, highlight=highlight, fade=someone_selected, lang=lang)
    _best_route_layer(result, line, faded=someone_selected and highlight != best_rank, lang=lang).add_to(m)
    own_points = map_points(result, result.own_route, lang=lang) if result.own_route is not None else []
    own = own_line(result, [[p.lat, p.lon] for p in own_points], lang=lang)
    if own is not None:  # the person's order: a layer of its own, above the best route
        own_layer(own, lang=lang).add_to(m)
    if selected_group is not None:  # above the best route
        selected_group.add_to(m)
    _route_pins(points, lang=lang, base_url_path=base_url_path).add_to(m)
    LegendToggles(
        legend_html(result, lines, lang=lang, highlight=highlight if someone_selected else None, own=own), groups
    ).add_to(m)

    m.fit_bounds(
        [[min(lats), min(lons)], [max(lats), max(lons)]],
        padding_top_left=(30, FIT_TOP_PX),
        padding_bottom_right=(30, BOTTOM_CONTROLS_PX + REACH_PX),
    )
    finish_map(m, result.provider)
    folium.LayerControl(collapsed=True).add_to(m)
    return m


def _candidate_layers(
    m: folium.Map, lines: list[CandidateLines], *, highlight: int | None, fade: bool, lang: Lang
) -> tuple[dict[str, str], folium.FeatureGroup | None]:
    """A layer per candidate: its changed legs dashed (faded when ``fade`` and it is not the one selected) and, for
    the one selected in the table (``highlight``), its whole order bold. Every layer but the selected one is added to
    ``m`` here; the selected one is returned to go above the best route. Returns the layers' names by rank (the
    legend's checkboxes) and the selected layer."""
    groups: dict[str, str] = {}
    selected_group: folium.FeatureGroup | None = None
    for cand in lines:
        label = t("route.map.candidate", lang, rank=cand.rank)
        chosen = cand.rank == highlight
        group = folium.FeatureGroup(
            name=f'<span style="color:{cand.colour}">┅</span> ' + html.escape(label),
            show=True,
        )
        faded = fade and not chosen
        for segment, (a, b) in zip(cand.segments, cand.names, strict=True):  # one line per leg: the GCJ-02 shift
            polyline(  # (components/basemap.py) moves simple lines
                segment,
                color=cand.colour,
                weight=CANDIDATE_WEIGHT,
                opacity=FADED_OPACITY if faded else 0.9,
                dash_array="8 6",
                tooltip=html.escape(label + " · " + t("route.map.candidate_tooltip", lang, legs=f"{a} → {b}")),
            ).add_to(group)
        if chosen:  # the whole order, bold, so the reader sees the candidate they picked and not only its changes
            polyline(
                cand.full,
                color=cand.colour,
                weight=SELECTED_WEIGHT,
                opacity=0.95,
                tooltip=html.escape(t("route.map.selected_full", lang, candidate=label)),
            ).add_to(group)
            selected_group = group
        else:
            group.add_to(m)
        groups[str(cand.rank)] = group.get_name()
    return groups, selected_group


def _best_route_layer(
    result: RoutePlanResult, line: list[list[float]], *, faded: bool, lang: Lang
) -> folium.FeatureGroup:
    """The best route's layer: a wide red line over a white casing (both faded when another line is selected)."""
    best = folium.FeatureGroup(
        name=f'<span style="color:{BEST_COLOUR}">━</span> ' + html.escape(t("route.map.best", lang)), show=True
    )
    polyline(  # a white casing: the route reads bold over the streets and the candidates' lines
        line, color="#ffffff", weight=BEST_CASING_WEIGHT, opacity=FADED_OPACITY if faded else 0.9,
        interactive=False,
    ).add_to(best)  # fmt: skip
    polyline(
        line,
        color=BEST_COLOUR,
        weight=BEST_WEIGHT,
        opacity=FADED_OPACITY if faded else 0.95,
        tooltip=html.escape(
            t("route.map.best", lang) + ": " + " → ".join(p.name for p in map_points(result, lang=lang))
        ),
    ).add_to(best)
    return best


def _route_pins(points: list[MapPoint], *, lang: Lang, base_url_path: str) -> Pins:
    """The plan's pins: S and E (or S/E) above the numbered stops, which cluster when crowded at a low zoom."""
    cluster_title = t("route.map.cluster_title", lang, labels="{labels}")  # the cluster fills in its numbers
    pins = Pins(
        html.escape(t("route.map.points", lang)), cluster=True, base_url_path=base_url_path, cluster_title=cluster_title
    )
    for point in points:
        colour = ROLE_COLOURS[point.role]
        pins.add(point.lat, point.lon, point.label, colour, tooltip=_tooltip(point, lang), on_top=point.role != "stop")
    return pins


# --- Streamlit side -------------------------------------------------------------------------

_MAP_CACHE = "route_map_cache"


def route_map_html(
    result: RoutePlanResult,
    *,
    lang: Lang,
    base_url_path: str = "",
    show_alternatives: bool = True,
    highlight: int | None = None,
) -> str:
    """The map as one HTML document (Leaflet from ``/app/static``, the map's own script inline)."""
    m = build_route_map(result, show_alternatives, base_url_path=base_url_path, lang=lang, highlight=highlight)
    return m.get_root().render()


def render_route_map(
    result: RoutePlanResult,
    *,
    lang: Lang,
    key: str = "route_map",
    height: int | None = None,
    show_alternatives: bool = True,
    highlight: int | None = None,
) -> None:
    """Draw the plan's map as a plain HTML frame (``st.iframe``): nothing is sent back, so no reruns, and the frame
    loads Leaflet and the map's script only (st_folium's frame first loads its own 225 KB bundle and waits for its
    arguments). The HTML is made once per result, language and selected candidate (``highlight``, its rank) and kept
    beside the result in the session (a rerun for another widget reuses it)."""
    import streamlit as st

    base = _base_url_path()
    cached = st.session_state.get(_MAP_CACHE)
    wanted = (lang, base, show_alternatives, highlight)
    if cached is None or cached[0] is not result or cached[1] != wanted:
        page = route_map_html(
            result, lang=lang, base_url_path=base, show_alternatives=show_alternatives, highlight=highlight
        )
        st.session_state[_MAP_CACHE] = cached = (result, wanted, page)
    with st.container(key=f"{key}_box"):  # .st-key-route_map_box in the page (browser tests)
        st.iframe(cached[2], height=height or map_height(result, show_alternatives=show_alternatives))
