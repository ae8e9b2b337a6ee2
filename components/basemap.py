"""What a map draws under the routes, offline: the pack's own streets, water and parks (``basemap.geojson``,
built from OpenStreetMap by ``python -m core pack build``), or, for a pack without a road network, its coverage
box and district centres, so the map is never blank. Online tiles are offered only when ``OMNI_ONLINE_TILES`` is
on (offline the option is not offered at all): ``OMNI_TILES_URL`` (OpenStreetMap's by default), or AMap's own
tiles for the AMap providers, with every overlay moved to GCJ-02 to sit on them.
"""

from __future__ import annotations

import html
import json
import re
from collections import defaultdict
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import folium
from jinja2 import Template

from components.folium_typed import Macro, page_head
from components.services import settings as current_settings
from core.app.regions import gcj02_to_wgs84, load_region, wgs84_to_gcj02
from core.errors import OmniError
from core.i18n import Lang, normalize_lang, t
from core.models.region import RegionPack

STYLE = {
    "water": {"color": "#9cc3e6", "weight": 0, "fillColor": "#b7d5ef", "fillOpacity": 0.9},
    "park": {"color": "#b5dba5", "weight": 0, "fillColor": "#cfe8c4", "fillOpacity": 0.8},
    "major": {"color": "#ffffff", "weight": 5, "opacity": 1.0},
    "minor": {"color": "#ffffff", "weight": 3, "opacity": 1.0},
    "path": {"color": "#c9ced6", "weight": 1, "opacity": 0.9, "dashArray": "3 3"},
}
LAND = "#eef0ea"  # the background under a pack with streets (no streets: the neutral map background)
ORDER = {"water": 0, "park": 1, "path": 2, "minor": 3, "major": 4}


#: where a district label may move (px, right and down) when a pin or cluster disc covers its own place: nearest
#: first, at most 60 px aside or 32 px up or down (a district is kilometres wide: the name still reads as its
#: area's); a label with no free place is hidden until the map is zoomed or the pins move
LABEL_SHIFTS = sorted(
    ((dx, dy) for dx in (0, -20, 20, -40, 40, -60, 60) for dy in (0, -16, 16, -32, 32)),
    key=lambda shift: (shift[0] ** 2 + shift[1] ** 2, shift),
)


class _DistrictLabels(Macro):
    """District names as permanent Leaflet tooltips (labels, not markers: markers are the plan's points). The
    labels give way to the plan: whenever the pins or clusters are drawn again, a label that a disc would cover moves
    to the nearest free place of ``LABEL_SHIFTS`` (its margin; Leaflet positions it by a transform), whole inside the
    map where it can be and clear of the names placed before it, or is hidden, so no disc ever hides a name, no name
    sits under a disc and no two names overlap."""

    _template = Template(
        """{% macro script(this, kwargs) %}
        (function () {
          var map = {{ this.map_name() }}, layer = {{ this._parent.get_name() }}, shifts = {{ this.shifts|tojson }};
          var labels = [];
          {{ this.labels|tojson }}.forEach(function (d) {
            labels.push(L.tooltip({permanent: true, direction: "center", className: "omni-district", interactive: false})
                .setLatLng([d[1], d[0]]).setContent(d[2]).addTo(layer));
          });
          function hits(a, b) {
            return a.left < b.right + 2 && b.left < a.right + 2 && a.top < b.bottom + 2 && b.top < a.bottom + 2;
          }
          function within(a, b) {
            return a.left >= b.left && a.right <= b.right && a.top >= b.top && a.bottom <= b.bottom;
          }
          function place() {
            var box = map.getContainer().getBoundingClientRect();
            // what a name must not touch: the discs, and the names already placed
            var taken = Array.prototype.map.call(
              map.getContainer().querySelectorAll(".omni-pin, .omni-cluster"),
              function (e) { return e.getBoundingClientRect(); });
            labels.forEach(function (label) {
              var el = label.getElement();
              if (!el) { return; }
              el.style.marginLeft = "0px"; el.style.marginTop = "0px"; el.style.visibility = "";
              var r = el.getBoundingClientRect(), free = null;
              var shown = hits(r, box);  // a name on the map is kept whole inside it where it can be
              for (var pass = shown ? 0 : 1; pass < 2 && free === null; pass++) {
                for (var i = 0; i < shifts.length && free === null; i++) {
                  var dx = shifts[i][0], dy = shifts[i][1];
                  var moved = {left: r.left + dx, right: r.right + dx, top: r.top + dy, bottom: r.bottom + dy};
                  if ((pass === 1 || within(moved, box)) && !taken.some(function (d) { return hits(moved, d); })) {
                    free = shifts[i];
                  }
                }
              }
              if (free === null) { el.style.visibility = "hidden"; el.dataset.omniCovered = "1"; return; }
              taken.push({left: r.left + free[0], right: r.right + free[0], top: r.top + free[1],
                          bottom: r.bottom + free[1]});
              el.style.marginLeft = free[0] + "px"; el.style.marginTop = free[1] + "px";
              el.dataset.omniCovered = "0";
            });
          }
          var pending = null;
          function later() {  // after the pins' own layout (run in a timeout of its own) and cluster animations
            if (pending !== null) { clearTimeout(pending); }
            pending = setTimeout(function () { pending = null; place(); }, 60);
          }
          var pins = map.getPane("markerPane");
          new MutationObserver(later).observe(pins,
            {childList: true, subtree: true, attributes: true, attributeFilter: ["style"]});
          pins.addEventListener("transitionend", later);  // clusters glide to their places after the last change
          map.on("zoomend viewreset resize", later);
          map.whenReady(later);
        })();
        {% endmacro %}"""
    )

    def __init__(self, labels: list[tuple[float, float, str]]) -> None:
        super().__init__()
        self._name = "DistrictLabels"
        self.labels = labels
        self.shifts = LABEL_SHIFTS

    def map_name(self) -> str:
        """The map's name in the page (the labels are in a layer of it: they give way to its pins)."""
        element = self._parent
        while element is not None and not isinstance(element, folium.Map):
            element = element._parent
        if element is None:
            raise ValueError("district labels outside a map")
        return str(element.get_name())


class _Attribution(Macro):
    """Adds a line to Leaflet's attribution control (the data's licence must show on the map)."""

    _template = Template(
        """{% macro script(this, kwargs) %}
        {{ this._parent.get_name() }}.attributionControl.addAttribution({{ this.text|tojson }});
        {% endmacro %}"""
    )

    def __init__(self, text: str) -> None:
        super().__init__()
        self._name = "Attribution"
        self.text = text


@lru_cache(maxsize=4)
def _features(path: str) -> list[dict[str, Any]]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    features: list[dict[str, Any]] = data.get("features", [])
    return sorted(features, key=lambda f: ORDER.get(f.get("properties", {}).get("class", ""), 9))


def _coords(geometry: dict[str, Any]) -> list[list[float]]:
    c = geometry.get("coordinates") or []
    return c[0] if geometry.get("type") == "Polygon" and c else c


def clip(features: list[dict[str, Any]], bounds: tuple[float, float, float, float] | None) -> list[dict[str, Any]]:
    """Features with a vertex inside ``bounds`` (west, south, east, north), so a map sends only what it shows."""
    if bounds is None:
        return features
    west, south, east, north = bounds
    return [
        f
        for f in features
        if any(west <= lon <= east and south <= lat <= north for lon, lat, *_ in _coords(f["geometry"]))
    ]


def _pad(bounds: tuple[float, float, float, float], share: float = 0.5) -> tuple[float, float, float, float]:
    west, south, east, north = bounds
    dx, dy = max(east - west, 0.005) * share, max(north - south, 0.005) * share
    return west - dx, south - dy, east + dx, north + dy


def _pack(region: str | None) -> RegionPack | None:
    if not region:
        return None
    try:
        return load_region(region)
    except (OmniError, ValueError, OSError):
        return None


def district_centres(pack: RegionPack, *, minimum: int = 3) -> list[tuple[str, float, float, int]]:
    """(district, lon, lat, places): the mean position of the pack's places per district (a fact of the pack's own
    data, not a boundary)."""
    groups: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for p in pack.places:
        if p.district:
            groups[p.district].append((p.lon, p.lat))
    return [
        (name, sum(x for x, _ in pts) / len(pts), sum(y for _, y in pts) / len(pts), len(pts))
        for name, pts in sorted(groups.items())
        if len(pts) >= minimum
    ]


def district_label(pack: RegionPack, district: str, lang: Lang) -> str:
    """A district's name in ``lang`` as the pack gives it (region.json ``district_names``); the name as the places
    write it when the pack has none in that language."""
    return pack.district_names.get(district, {}).get(lang) or district


def _session_lang() -> Lang:
    """The dashboard's language (components/language.py keeps it in ``ui_lang``); English outside a page run."""
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is None:  # no page run: a map built by a test or a script
        return "en"
    return normalize_lang(st.session_state.get("ui_lang")) or "en"


def add_background(
    m: folium.Map,
    region: str | None,
    *,
    bounds: tuple[float, float, float, float] | None = None,
    lang: Lang | None = None,
) -> str:
    """Draw the offline background for ``region`` under whatever the map shows; returns which kind was drawn
    (``streets``, ``outline`` or ``none``). ``bounds`` (west, south, east, north) limits the streets sent. The
    layer names and the map's note are in ``lang`` (default: the dashboard's language)."""
    lang = lang or _session_lang()
    pack = _pack(region)
    kind = "none"
    if pack is not None and (path := pack.basemap_path) is not None:
        shown = clip(_features(str(path)), _pad(bounds) if bounds else None)
        group = folium.FeatureGroup(name=t("common.map.streets", lang), show=True, control=True)
        folium.GeoJson(
            {"type": "FeatureCollection", "features": shown},
            style_function=lambda f: STYLE.get(f["properties"].get("class", ""), STYLE["path"]),
            interactive=False,
            smooth_factor=1.5,
        ).add_to(group)
        group.add_to(m)
        _coverage_box(pack, lang).add_to(m)  # where the streets (and the pack's places) end
        page_head(m).add_child(
            folium.Element(f"<style>.leaflet-container {{ background: {LAND} !important; }}</style>"),
            name="omni_land",
        )
        kind = "streets"
    elif pack is not None:
        group = _coverage_box(pack, lang)
        _DistrictLabels(
            [(lon, lat, html.escape(district_label(pack, name, lang))) for name, lon, lat, _ in district_centres(pack)]
        ).add_to(group)
        group.add_to(m)
        page_head(m).add_child(
            folium.Element(
                "<style>.leaflet-tooltip.omni-district { color: #6b7484; font: 12px/15px 'Noto Sans CJK SC', sans-serif; "
                "padding: 0 2px; background: transparent; border: 0; box-shadow: none; text-shadow: 0 0 3px #fff; }"
                "</style>"
            ),
            name="omni_district_css",
        )
        kind = "outline"
    if pack is not None:
        _Attribution(html.escape(map_credits(pack, kind, lang))).add_to(m)
    return kind


def _coverage_box(pack: RegionPack, lang: Lang) -> folium.FeatureGroup:
    """The pack's box as a dashed outline, in a layer named for it: beyond it the pack knows no place or street."""
    shown_name = pack.display_name.get(lang, pack.name)
    group = folium.FeatureGroup(name=t("common.map.coverage", lang, pack=shown_name), show=True)
    west, south, east, north = pack.bbox
    folium.Rectangle(
        [[south, west], [north, east]],
        color="#8a94a6",
        weight=1,
        dash_array="6 4",
        fill=False,
        tooltip=html.escape(t("common.map.coverage", lang, pack=shown_name)),
        interactive=False,
    ).add_to(group)
    return group


def _month(stamp: str | None) -> str | None:
    """``2019-04-21T09:50:14Z`` → ``2019-04``; None when there is no date or it is not one."""
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).strftime("%Y-%m")
    except ValueError:
        return None


def map_credits(pack: RegionPack, kind: str, lang: Lang) -> str:
    """The map's credits, short: the data's source and the month of its data (``© OpenStreetMap contributors · data
    2019-04``), without the builder's package, version or full timestamp; for a pack without streets, the pack and
    its licence."""
    if kind != "streets":
        licence = pack.licence.split(" (")[0]  # "CC0-1.0 (public-domain ...)" -> "CC0-1.0"
        return t("common.map.pack_note", lang, pack=pack.display_name.get(lang, pack.name), licence=licence)
    # "© OpenStreetMap contributors (ODbL 1.0), the Helsinki extract shipped with …" -> its first clause
    source = re.split(r" \(|, |; |\. ", pack.attribution, maxsplit=1)[0].strip() or pack.name
    month = _month(pack.data_date)
    return t("common.map.credits", lang, source=source, date=month) if month else source


#: AMap's own raster tiles (GCJ-02, like every map of mainland China)
AMAP_TILES = "https://webrd0{s}.is.autonavi.com/appmaptile?lang=zh_cn&size=1&scale=1&style=8&x={x}&y={y}&z={z}"
AMAP_ATTRIBUTION = "© 高德地图 AutoNavi"


def online_tiles_for(provider: str | None) -> tuple[str, str, str] | None:
    """(tile URL, attribution, datum) of the online layer a map may offer: none unless ``OMNI_ONLINE_TILES`` is on;
    AMap's tiles (GCJ-02) for the AMap providers, else ``OMNI_TILES_URL`` (WGS-84, OpenStreetMap's by default)."""
    settings = current_settings()
    if not settings.online_tiles:
        return None
    if provider and provider.split("+")[0].startswith("amap"):
        return AMAP_TILES, AMAP_ATTRIBUTION, "GCJ02"
    return (settings.tiles_url, settings.tiles_attribution, "WGS84") if settings.tiles_url else None


def finish_map(m: folium.Map, provider: str | None = None) -> str:
    """The online layer (if any) and the datum the map is drawn in: over AMap's tiles every overlay is moved to
    GCJ-02, so points and lines sit on AMap's streets instead of ~500 m off. Returns ``WGS84`` or ``GCJ02``."""
    online = online_tiles_for(provider)
    if online is None:
        return "WGS84"
    url, attribution, datum = online
    folium.TileLayer(
        tiles=url,
        attr=html.escape(attribution),
        name=t("common.map.online_tiles", _session_lang()),
        overlay=datum == "WGS84",  # AMap's tiles are the base the shifted overlays sit on
        control=True,
        show=datum == "GCJ02",
        max_zoom=18,
        subdomains="1234" if datum == "GCJ02" else "abc",
    ).add_to(m)
    if datum == "GCJ02":
        shift_to_gcj02(m)
    return datum


def _gcj(point: Any) -> list[float]:
    lon, lat = wgs84_to_gcj02(float(point[1]), float(point[0]))
    return [lat, lon]


def shift_to_gcj02(m: folium.Map | folium.FeatureGroup) -> None:
    """Move every marker, line, box, label and the view of ``m`` (a map, or a layer drawn on it later) from WGS-84
    to GCJ-02 (AMap's datum)."""
    if isinstance(m, folium.Map):
        m.location = _gcj(m.location)
    stack: list[Any] = [m]
    while stack:
        element = stack.pop()
        stack.extend(element._children.values())
        if isinstance(element, folium.Marker):
            element.location = _gcj(element.location)
        elif isinstance(element, (folium.PolyLine, folium.Rectangle, folium.Polygon)):
            element.locations = [_gcj(p) for p in element.locations]
        elif isinstance(element, _DistrictLabels):
            element.labels = [(*wgs84_to_gcj02(lon, lat), name) for lon, lat, name in element.labels]
        elif isinstance(element, folium.FitBounds):
            element.bounds = [_gcj(b) for b in element.bounds]


def from_display(lon: float, lat: float, datum: str) -> tuple[float, float]:
    """A position clicked on a map drawn in ``datum``, in WGS-84."""
    return gcj02_to_wgs84(lon, lat) if datum == "GCJ02" else (lon, lat)
