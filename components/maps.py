"""Maps drawn with folium, rendered through streamlit-folium, fully offline: the shared offline map and pins, the
start picker, an itinerary day, the agent's plan (the route planner's map is components/route/map.py).

Each ``build_*`` builds the ``folium.Map`` (unit-testable, no Streamlit); each ``render_*`` hands it to
``st_folium``. The map references Leaflet only through local URLs
(``/app/static/leaflet/...``, see components/static_assets.py): no jQuery, Bootstrap,
Font Awesome or awesome-markers, no CDN. Markers are ``DivIcon``s with plain HTML numbers that fan out when they
touch and join a cluster when they crowd together at a low zoom, the start or hotel on top (components/map_pins.py,
shared with the route map), and
there is no tile layer by default: the background is the region pack's own streets, water and parks, or its
coverage box and district centres (components/basemap.py). Online tiles are a setting, off by default.
"""

from __future__ import annotations

import html
import itertools
import json
from collections.abc import Callable, Sequence
from typing import Any

import folium
from branca.element import Element
from folium.template import Template

from components.basemap import add_background, finish_map
from components.folium_typed import Macro, page_head, polyline
from components.map_pins import PIN_STYLE, Pins, pin_icon
from components.static_assets import leaflet_urls
from core.i18n import Lang, t

BEST_COLOUR = "#d62728"
ROLE_COLOURS = {"origin": "#2ca02c", "stop": "#1f77b4", "destination": "#d62728"}
BACKGROUND = "#eef2f5"

MAX_ZOOM = 19

#: The credits and the scale bar share the bottom-right corner, the scale bar just above the credits (as map products
#: put them), and that corner spans the map's whole width: the credits have the map's width for their one line. (With
#: the scale bar in the other corner the credits had only what the bar left, 216 px of a phone's 366-px map: two
#: lines in English; a percentage of a corner that is only as wide as its content squeezes them into a tall column.)
_MAP_CSS = f"""
<style>
  .leaflet-container {{ background: {BACKGROUND}; font-family: "Noto Sans CJK SC", "Noto Sans SC", sans-serif; }}
  .leaflet-bottom.leaflet-right {{ left: 0; }}
  .leaflet-bottom.leaflet-right .leaflet-control-scale {{ margin-bottom: 4px; }}
  .leaflet-control-attribution {{ max-width: 100%; box-sizing: border-box; white-space: normal; line-height: 1.3;
                                  font-size: 11px; }}
{PIN_STYLE}</style>
"""


class _LiteralTemplate:
    """A finished piece of text standing in for a Jinja template: rendered as Jinja renders text without any Jinja
    syntax (itself, less one trailing newline)."""

    def __init__(self, text: str) -> None:
        self.text = text[:-1] if text.endswith("\n") else text

    def render(self, *args: Any, **kwargs: Any) -> str:
        return self.text


#: the one real template branca itself passes to ``Element(...)`` (``Div.html``); every other ``Element(text)`` in
#: branca 0.8 and folium 0.20 wraps text that was already rendered (a marker's script, a tooltip, our CSS)
_BRANCA_ELEMENT_TEMPLATES = frozenset(
    {"{% for name, element in this._children.items() %}{{element.render(**kwargs)}}{% endfor %}"}
)


def _rendered_text_is_not_compiled() -> None:
    """Every folium element renders its script into a new ``branca.element.Element(text)``, and branca compiles
    that finished text as a Jinja template again. That is slow (about 240 compilations for a route map, more than
    a second of a page's run; issue 12 §5) and unsafe: a place name typed as ``{{ … }}`` would run as a template on
    the server, and one with a stray ``{%`` would raise. So text handed to ``Element`` is kept as text, except
    branca's own template above. Applied once, for every map of the dashboard."""
    if getattr(Element.__init__, "_omni_literal_text", False):
        return
    original = Element.__init__

    def init(self: Element, template: str | None = None, template_name: str | None = None) -> None:
        literal = template is not None and template not in _BRANCA_ELEMENT_TEMPLATES
        original(self, None if literal else template, template_name)
        if literal:
            assert template is not None
            self._template_str = template
            self._template = _LiteralTemplate(template)  # type: ignore[assignment]

    init._omni_literal_text = True  # type: ignore[attr-defined]
    Element.__init__ = init  # type: ignore[method-assign]


_rendered_text_is_not_compiled()

_ELEMENT_IDS = itertools.count(1)


def _element_names_from_a_counter() -> None:
    """branca names every element (the map, each marker, its icon and tooltip, each line) with 16 bytes of
    ``os.urandom``: a system call each, about 200 for an 8-stop route map, 10–15 ms of its build on this machine under
    load. A name only has to be unique in its document, so a counter names them (hex, as long as branca's).
    Applied once, for every map of the dashboard."""
    if getattr(Element._generate_id, "_omni_counter", False):
        return

    def generate_id(cls: type[Element]) -> str:
        return f"{next(_ELEMENT_IDS):032x}"

    generate_id._omni_counter = True  # type: ignore[attr-defined]
    Element._generate_id = classmethod(generate_id)  # type: ignore[method-assign,assignment]


_element_names_from_a_counter()


def _js_string(text: str) -> str:
    """``text`` as a JavaScript string literal that is safe inside a ``<script>``: JSON, with ``<`` and ``>`` (which
    could close the script or open a comment) and the two JSON-only line breaks escaped; every other character,
    Chinese names included, as it is."""
    out = json.dumps(text, ensure_ascii=False)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        out = out.replace(char, escape)
    return out


def _tooltip_js_text(self: folium.Tooltip) -> str:
    style = f" style={json.dumps(self.style)}" if getattr(self, "style", None) else ""
    return _js_string(f"<div{style}>{self.text}</div>")


def _tooltip_text_is_a_string() -> None:
    """folium writes a tooltip's text into a JavaScript template literal (between backticks) as it is: a name with a
    backtick ends the literal (the whole map's script fails: OpenStreetMap has "T`UOMO Menswear") and ``${…}`` in a
    name would run as script inside the map's frame. The text (HTML the pages escaped) is written as a JavaScript
    string instead. Applied once, for every map of the dashboard."""
    if getattr(folium.Tooltip, "_omni_json_text", False):
        return
    folium.Tooltip.omni_js_text = property(_tooltip_js_text)  # type: ignore[attr-defined]
    folium.Tooltip._template = Template(
        """{% macro script(this, kwargs) %}
            {{ this._parent.get_name() }}.bindTooltip(
                {{ this.omni_js_text }},
                {{ this.options|tojavascript }}
            );
        {% endmacro %}"""
    )
    folium.Tooltip._omni_json_text = True  # type: ignore[attr-defined]


_tooltip_text_is_a_string()


class _NoImagePins(Macro):
    """Leaflet's default marker is an image (``marker-icon.png``, looked for at a path Leaflet guesses wrongly in
    st_folium's frame: a 404). folium creates each marker with that default and sets its DivIcon a moment later,
    so the default is made an empty DivIcon here: no marker image is ever requested."""

    _template = Template(
        """{% macro script(this, kwargs) %}
        L.Marker.prototype.options.icon = L.divIcon({className: "omni-marker", html: "", iconSize: [0, 0]});
        {% endmacro %}"""
    )

    def __init__(self) -> None:
        super().__init__()
        self._name = "NoImagePins"


class _ShortCredits(Macro):
    """The credits say the data's source and date only: Leaflet's own prefix (a link and a flag) is left out."""

    _template = Template(
        """{% macro script(this, kwargs) %}
        if ({{ this._parent.get_name() }}.attributionControl) {
          {{ this._parent.get_name() }}.attributionControl.setPrefix(false);
        }
        {% endmacro %}"""
    )

    def __init__(self) -> None:
        super().__init__()
        self._name = "ShortCredits"


class _ScaleAboveCredits(Macro):
    """The scale bar in the bottom-right corner, added after the credits: Leaflet stacks a bottom corner's later
    controls above the earlier ones, so it sits just above them (see ``_MAP_CSS``)."""

    _template = Template(
        """{% macro script(this, kwargs) %}
        L.control.scale({position: "bottomright"}).addTo({{ this._parent.get_name() }});
        {% endmacro %}"""
    )

    def __init__(self) -> None:
        super().__init__()
        self._name = "ScaleAboveCredits"


class OfflineMap(folium.Map):
    """A map of the dashboard (``offline_map``). ``datum``: the datum a click on it comes back in, which
    ``build_pick_map`` sets from ``finish_map`` (GCJ-02 over AMap's tiles)."""

    datum: str = "WGS84"


def offline_map(
    location: Sequence[float], *, zoom_start: int = 12, base_url_path: str = "", height: str | float = "100%"
) -> OfflineMap:
    """A ``folium.Map`` whose only assets are the locally served Leaflet JS and CSS, without tiles (the background
    is the pack's, components/basemap.py), with a scale bar; ``height`` as folium takes it (``"100%"``, ``"470px"``).

    The instance overrides folium's class-level ``default_js``/``default_css`` (CDN Leaflet,
    jQuery, Bootstrap, awesome-markers); folium.Map itself is left untouched for other pages.
    """
    js_url, css_url = leaflet_urls(base_url_path)
    m = OfflineMap(location=list(location), zoom_start=zoom_start, tiles=None, control_scale=False, height=height)
    # Without a tile layer Leaflet knows no highest zoom, and the pin clusters need one (street level and a bit).
    m.options.setdefault("maxZoom", MAX_ZOOM)
    m.default_js = [("leaflet", js_url)]
    m.default_css = [("leaflet_css", css_url)]
    page_head(m).add_child(Element(_MAP_CSS), name="omni_map_css")
    _NoImagePins().add_to(m)  # first, so every marker made later starts without an image
    _ShortCredits().add_to(m)
    _ScaleAboveCredits().add_to(m)
    return m


def clustered_pins(name: str | None = None, *, lang: Lang, base_url_path: str = "") -> Pins:
    """A map's pins with the numbered ones clustered when they crowd together at a low zoom (start, end and hotel
    pins never are); each cluster's tooltip lists its pins' numbers in ``lang``."""
    title = t("common.map.cluster_title", lang, labels="{labels}")  # the cluster fills in its numbers
    return Pins(name, cluster=True, base_url_path=base_url_path, cluster_title=title)


def build_pick_map(
    centre_lonlat: Sequence[float],
    picked: Sequence[float] | None = None,
    *,
    base_url_path: str = "",
    region: str | None = None,
    provider: str | None = None,
    lang: Lang = "en",
) -> OfflineMap:
    """A small map to click a start position on (``picked`` is (lon, lat) if already set), over the region's
    streets (or its coverage and district centres) so the click is not blind. ``m.datum`` says which datum a
    click comes back in (GCJ-02 over AMap's tiles)."""
    lon, lat = centre_lonlat
    m = offline_map([lat, lon], zoom_start=11, base_url_path=base_url_path)
    if add_background(m, region, lang=lang) == "streets":
        m.options["zoom"] = 15  # a street map is read at street level
    if picked is not None:
        folium.Marker(
            [picked[1], picked[0]],
            icon=pin_icon("S", ROLE_COLOURS["origin"]),
            tooltip=html.escape(t("route.role.origin", lang)),
        ).add_to(m)
    m.datum = finish_map(m, provider)
    folium.LayerControl(collapsed=True).add_to(m)
    return m


# --- Streamlit side -------------------------------------------------------------------------


def _base_url_path() -> str:
    import streamlit as st

    return str(st.get_option("server.baseUrlPath") or "")


def render_pick_map(
    centre_lonlat: Sequence[float],
    picked: Sequence[float] | None = None,
    *,
    key: str = "origin_pick_map",
    height: int = 300,
    on_change: Callable[[], None] | None = None,
    region: str | None = None,
    provider: str | None = None,
    lang: Lang = "en",
) -> None:
    """A click-to-set-start map; it sends back only ``last_clicked``, which ``on_change`` reads in
    ``st.session_state[key]`` (its datum in ``st.session_state[key + "_datum"]``)."""
    import streamlit as st
    from streamlit_folium import st_folium

    m = build_pick_map(
        centre_lonlat, picked, base_url_path=_base_url_path(), region=region, provider=provider, lang=lang
    )
    st.session_state[f"{key}_datum"] = m.datum
    with st.container(key=f"{key}_box"):
        st_folium(
            m, key=key, height=height, use_container_width=True, returned_objects=["last_clicked"], on_change=on_change
        )


# --- itinerary (components/itinerary/day_map.py) and the agent's plan ---------------------------

DAY_ROUTE_COLOUR = "#1f77b4"


def build_agent_map(
    stops: list[dict[str, Any]],
    *,
    base_url_path: str = "",
    region: str | None = None,
    provider: str | None = None,
    lang: Lang = "en",
) -> folium.Map:
    """The agent's plan on a map: one numbered ``DivIcon`` pin per visit (plain HTML, no marker image; day and
    times in the tooltip, worded in ``lang``; pins that touch fan out), each day's visits joined by a dashed straight
    line in visiting order (the straight lines its estimates are measured on), fitted to all of them.

    ``stops`` are the agent payload's timeline rows of kind ``visit`` with lon/lat, names already in the reader's
    language (the second half of a visit split by a lunch on site is not a new stop)."""
    pts = [e for e in stops if e.get("lon") is not None and e.get("lat") is not None and e.get("part") != 2]
    if not pts:
        return offline_map([31.2304, 121.4737], zoom_start=11, base_url_path=base_url_path)
    lats = [float(e["lat"]) for e in pts]
    lons = [float(e["lon"]) for e in pts]
    m = offline_map(
        [(min(lats) + max(lats)) / 2, (min(lons) + max(lons)) / 2], zoom_start=12, base_url_path=base_url_path
    )
    add_background(m, region, bounds=(min(lons), min(lats), max(lons), max(lats)), lang=lang)
    for day, line in agent_day_lines(pts):
        _agent_day_layer(day, line, lang).add_to(m)
    pins = clustered_pins(lang=lang, base_url_path=base_url_path)
    for n, e in enumerate(pts, start=1):
        pins.add(
            float(e["lat"]),
            float(e["lon"]),
            str(n),
            DAY_ROUTE_COLOUR,
            tooltip=f"<b>{n} · {html.escape(str(e.get('name', '')))}</b><br>"
            + html.escape(t("agent.console.day_n", lang, n=e.get("day") or 1))
            + f" · {html.escape(str(e.get('start', '')))}–{html.escape(str(e.get('end', '')))}",
        )
    pins.add_to(m)
    if len(pts) >= 2:
        m.fit_bounds([[min(lats), min(lons)], [max(lats), max(lons)]], padding=(30, 30))
    finish_map(m, provider)
    return m


def agent_day_lines(pts: Sequence[dict[str, Any]]) -> list[tuple[int, list[list[float]]]]:
    """(day, [lat, lon] points) of each day of the agent's plan with two visits or more, in visiting order: the
    straight lines its map draws (a day starts where its first visit is; the plan gives no hotel position)."""
    days: dict[int, list[list[float]]] = {}
    for e in pts:
        days.setdefault(int(e.get("day") or 1), []).append([float(e["lat"]), float(e["lon"])])
    return [(day, line) for day, line in sorted(days.items()) if len(line) >= 2]


def day_line(line: list[list[float]], day: int, lang: Lang) -> folium.PolyLine:
    """Day ``day``'s visiting order as a dashed straight line (not the road), as the itinerary's and the agent's maps
    draw it."""
    return polyline(
        line,
        color=DAY_ROUTE_COLOUR,
        weight=4,
        opacity=0.85,
        dash_array="6 6",
        tooltip=html.escape(t("itinerary.map.line", lang, n=day)),
    )


def _agent_day_layer(day: int, line: list[list[float]], lang: Lang) -> folium.FeatureGroup:
    """One day of the agent's plan as a dashed straight line through its visits, worded as on the itinerary's map
    (straight lines, not the road)."""
    layer = folium.FeatureGroup(name=html.escape(t("itinerary.map.order", lang, n=day)), show=True, control=False)
    day_line(line, day, lang).add_to(layer)
    return layer


def render_agent_map(
    stops: list[dict[str, Any]],
    *,
    key: str = "agent_map",
    height: int = 380,
    region: str | None = None,
    provider: str | None = None,
    lang: Lang = "en",
) -> None:
    """Draw the agent's plan (numbered pins, fitted); nothing is sent back, so no reruns."""
    import streamlit as st
    from streamlit_folium import st_folium

    m = build_agent_map(stops, base_url_path=_base_url_path(), region=region, provider=provider, lang=lang)
    with st.container(key=f"{key}_box"):  # .st-key-agent_map_<n>_box in the page (browser tests)
        st_folium(m, key=key, height=height, use_container_width=True, returned_objects=[])
