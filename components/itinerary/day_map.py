"""The itinerary's day map (folium, no Streamlit), in two parts so an edit does not draw a new map (issue 32):

* the base (``build_day_base``): the offline map, its background and credits, framed on a box (``Frame``) that
  holds the whole trip, not one day. It only changes with the trip's box, the region, the provider and the
  language, so streamlit-folium keeps its frame (an iframe with Leaflet loaded) across edits and day switches;
* the day's layers (``build_day_layers``): the visiting order's line and the numbered pins, with the script that
  fans out touching pins and the fit of the view on the day. streamlit-folium sends them to the map already drawn
  (``feature_group_to_add``), which drops the previous day's layers and draws these.

``build_day_map`` puts both in one map (a test, a map drawn on its own): the same layers, fitted on the day.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import folium
from folium.template import Template

from components.basemap import add_background, finish_map, shift_to_gcj02
from components.itinerary.words import Names, priority_words
from components.map_pins import Pins
from components.maps import DAY_ROUTE_COLOUR, OfflineMap, clustered_pins, day_line, offline_map
from components.static_assets import markercluster_urls
from core.i18n import Lang, t
from core.models.itinerary_result import AnchorPoint, DayTimeline, ItineraryResult, TimelineEntry

ANCHOR_COLOUR = "#2ca02c"
LOCKED_COLOUR = "#9467bd"
PRIORITY_COLOURS = {"must": "#d62728", "should": "#1f77b4", "nice": "#7f7f7f"}
#: where a map with no placed point looks (central Shanghai), and how close
NO_POINT_CENTRE = (31.2304, 121.4737)
#: a day with one point is shown at this zoom around it (no box to fit)
ONE_POINT_ZOOM = 12

#: (west, south, east, north) in WGS-84 degrees
Frame = tuple[float, float, float, float]


class _FitDay(folium.FitBounds):
    """The view fitted on the day's points, without animation, as a part of the day's layers (its map is named,
    not its parent: the layers are drawn on a map that is already there)."""

    _template = Template(
        """{% macro script(this, kwargs) %}
        {{ this.map.get_name() }}.fitBounds({{ this.bounds|tojson }}, {{ this.options|tojson }});
        {% endmacro %}"""
    )

    def __init__(self, m: folium.Map, bounds: list[list[float]], *, max_zoom: int | None = None) -> None:
        super().__init__(bounds, padding=(30, 30), max_zoom=max_zoom)
        self.map = m
        self.options["animate"] = False


class _ClusterAssets(folium.elements.JSCSSMixin):
    """Leaflet.markercluster's script and styles with the base map: the day's pins come later, into a frame whose
    scripts were loaded with the base (a day without numbered pins has no cluster to bring them)."""

    _template = Template("{% macro script(this, kwargs) %}{% endmacro %}")

    def __init__(self, base_url_path: str) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # branca: MacroElement.__init__ has no annotations
        self._name = "ClusterAssets"
        js, (css, default_css) = markercluster_urls(base_url_path)
        self.default_js = [("markerclusterjs", js)]
        self.default_css = [
            ("markerclustercss", css),
            ("markerclusterdefaultcss", default_css),
        ]  # as the cluster names them


def _placed_visits(day: DayTimeline) -> list[tuple[TimelineEntry, float, float]]:
    """(entry, lat, lon) of the day's visits that have a position, in visiting order (the second half of a visit
    split by a lunch on site is not a new one)."""
    return [
        (e, e.lat, e.lon)
        for e in day.entries
        if e.kind == "visit" and not e.continues_visit and e.lon is not None and e.lat is not None
    ]


def _day_line(day: DayTimeline, visits: Sequence[tuple[TimelineEntry, float, float]]) -> list[list[float]]:
    """The day's order as [lat, lon] points: the start place, the visits, the end place."""
    line: list[list[float]] = []
    if day.start_anchor is not None:
        line.append([day.start_anchor.lat, day.start_anchor.lon])
    line += [[lat, lon] for _, lat, lon in visits]
    if day.end_anchor is not None:
        line.append([day.end_anchor.lat, day.end_anchor.lon])
    return line


def _frame_of(points: Sequence[Sequence[float]]) -> Frame | None:
    if not points:
        return None
    lats = [p[0] for p in points]
    lons = [p[1] for p in points]
    return (min(lons), min(lats), max(lons), max(lats))


def day_frame(day: DayTimeline) -> Frame | None:
    """The box of one day's points (None: no point has a position)."""
    return _frame_of(_day_line(day, _placed_visits(day)))


def trip_frame(result: ItineraryResult, kept: Frame | None = None) -> Frame | None:
    """The box the day map's base is drawn on: ``kept`` (the one on screen) while it still holds every point of
    every day of ``result``, so an edit or another day keeps the map drawn; else the box of all those points."""
    points = [p for day in result.days for p in _day_line(day, _placed_visits(day))]
    frame = _frame_of(points)
    if frame is None or kept is None:
        return frame
    west, south, east, north = kept
    inside = all(west <= lon <= east and south <= lat <= north for lat, lon in points)
    return kept if inside else frame


def build_day_base(
    frame: Frame | None,
    *,
    base_url_path: str = "",
    region: str | None = None,
    provider: str | None = None,
    lang: Lang = "en",
) -> OfflineMap:
    """The day map without the day: centred on ``frame`` with the region's background around it (none without a
    frame), its credits, the online layer if any (``m.datum``: the datum the day's layers must be drawn in)."""
    if frame is None:
        m = offline_map(list(NO_POINT_CENTRE), zoom_start=11, base_url_path=base_url_path)
    else:
        west, south, east, north = frame
        m = offline_map([(south + north) / 2, (west + east) / 2], zoom_start=12, base_url_path=base_url_path)
        add_background(m, region, bounds=frame, lang=lang)
    _ClusterAssets(base_url_path).add_to(m)
    m.datum = finish_map(m, provider)
    return m


def build_day_layers(
    m: OfflineMap, day: DayTimeline, *, names: Names | None = None, lang: Lang = "en", base_url_path: str = ""
) -> list[folium.FeatureGroup]:
    """The day on ``m`` (not added to it), worded in ``lang``: the dashed line of the visiting order, then the
    start/end place ("H") and the visits numbered in that order (coloured by priority, purple when locked), which
    also fit the view on the day. Straight lines, not road paths: travel times come from the timeline. Positions
    come from the result itself; ``names`` (components.itinerary.words.Names) gives each place's name in ``lang``
    and the other one for the tooltip."""
    visits = _placed_visits(day)
    line = _day_line(day, visits)
    order = _day_order_layer(day, line, lang)
    pins = _day_pins(day, visits, names, lang=lang, base_url_path=base_url_path).layer(m)
    frame = _frame_of(line)
    if frame is not None:
        west, south, east, north = frame
        one_point = len(line) < 2
        _FitDay(m, [[south, west], [north, east]], max_zoom=ONE_POINT_ZOOM if one_point else None).add_to(pins)
    layers = [order, pins]
    if m.datum == "GCJ02":  # drawn over AMap's tiles: the layers move with the base
        for layer in layers:
            shift_to_gcj02(layer)
    return layers


def build_day_map(
    day: DayTimeline,
    *,
    base_url_path: str = "",
    region: str | None = None,
    provider: str | None = None,
    lang: Lang = "en",
    names: Names | None = None,
) -> folium.Map:
    """One itinerary day as one folium map (its base framed on the day, then its layers and a layer control)."""
    m = build_day_base(day_frame(day), base_url_path=base_url_path, region=region, provider=provider, lang=lang)
    for layer in build_day_layers(m, day, names=names, lang=lang, base_url_path=base_url_path):
        layer.add_to(m)
    folium.LayerControl(collapsed=True).add_to(m)
    return m


def _day_order_layer(day: DayTimeline, line: list[list[float]], lang: Lang) -> folium.FeatureGroup:
    """The layer of the visiting order: a dashed straight line through ``line`` (none for a single point)."""
    route = folium.FeatureGroup(
        name=f'<span style="color:{DAY_ROUTE_COLOUR}">━</span> '
        + html.escape(t("itinerary.map.order", lang, n=day.day_index + 1)),
        show=True,
    )
    if len(line) >= 2:
        day_line(line, day.day_index + 1, lang).add_to(route)
    return route


def _name_pair(names: Names | None, key: str | None, fallback: str, lang: Lang) -> tuple[str, str]:
    """A place's name in ``lang`` and the other one ("" without ``names``)."""
    if names is None:
        return fallback, ""
    found = names.of(key, lang, fallback)
    return found.shown, found.other


def _day_pins(
    day: DayTimeline,
    visits: Sequence[tuple[TimelineEntry, float, float]],
    names: Names | None,
    *,
    lang: Lang,
    base_url_path: str,
) -> Pins:
    """The day's pins: the start/end place ("H", above every numbered pin; one pin when the day starts and ends
    there) and the visits numbered in visiting order."""
    pins = clustered_pins(html.escape(t("itinerary.map.stops", lang)), lang=lang, base_url_path=base_url_path)
    anchor_points: dict[tuple[float, float], tuple[str, AnchorPoint]] = {}
    if day.start_anchor is not None:
        anchor_points[(day.start_anchor.lon, day.start_anchor.lat)] = ("itinerary.map.start", day.start_anchor)
    if day.end_anchor is not None:
        key = (day.end_anchor.lon, day.end_anchor.lat)
        role = "itinerary.map.start_end" if key in anchor_points else "itinerary.map.end"
        anchor_points[key] = (role, day.end_anchor)
    for role, anchor in anchor_points.values():
        shown, other = _name_pair(names, anchor.key, str(anchor.name), lang)
        tooltip = f"<b>H · {html.escape(t(role, lang))}</b><br>{html.escape(shown)}"
        tooltip += f"<br>{html.escape(other)}" if other else ""
        pins.add(anchor.lat, anchor.lon, "H", ANCHOR_COLOUR, tooltip=tooltip, on_top=True)
    for n, (entry, lat, lon) in enumerate(visits, start=1):
        colour = LOCKED_COLOUR if entry.locked else PRIORITY_COLOURS.get(entry.priority or "", DAY_ROUTE_COLOUR)
        shown, other = _name_pair(names, entry.key, entry.name, lang)
        priority = priority_words(entry.priority, lang)
        pins.add(
            lat,
            lon,
            str(n),
            colour,
            tooltip=(
                f"<b>{n} · {html.escape(shown)}</b>"
                + (f"<br>{html.escape(other)}" if other else "")
                + f"<br>{entry.start:%H:%M}–{entry.end:%H:%M} · {html.escape(priority)}"
                + (f" · {html.escape(t('itinerary.map.locked', lang))}" if entry.locked else "")
            ),
        )
    return pins
