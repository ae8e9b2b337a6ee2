"""Pins for every map of the dashboard (route planner, itinerary day, agent plan, half-day plan, start picker): plain
HTML discs with a label (S, H, 1..n, E, S/E), that never hide each other.

* ``Pins`` collects one map's pins in a ``folium.FeatureGroup``; ``Pins.add_to(m)`` adds the group and
  ``SpreadPins``, a small script (plain JavaScript, no plugin) that, at every zoom, fans out the pins that would
  overlap on screen (the same place, or a few metres apart at the zoom shown) around their true points, each with
  a thin leader line back to it. The marker itself stays at its true point (its tooltip, the fitted bounds and the
  GCJ-02 shift are the true ones); only its picture moves.
* A start, end or hotel pin is added ``on_top``: it sits above every numbered pin (Leaflet's ``zIndexOffset``).
* ``Pins(cluster=True)`` (every map with numbered pins: route, itinerary day, half-day plan, agent) gathers
  numbered pins that crowd together at a low zoom into one cluster disc (Leaflet.markercluster, served from
  ./static like Leaflet): a pin's size, white on a stacked second disc, with the count of the pins it holds (its
  title lists their numbers), fanned out with the pins so it covers none; a click zooms in to its pins. From
  ``CLUSTER_OFF_ZOOM`` on, every pin is drawn and fanned out as above. Start, end and hotel pins never cluster.

``PIN_STYLE`` (the pins' CSS) is part of every offline map's CSS (components/maps.py).
"""

from __future__ import annotations

import html
import json

import folium
from folium.plugins import MarkerCluster
from folium.template import Template

from components.folium_typed import Macro
from components.static_assets import markercluster_urls

PIN_SIZE = 26
#: start, end and hotel pins above every numbered pin
TOP_Z = 1000
#: the room a pin takes for the spreading: the disc, its white border and 2 px
SPREAD_SIZE = PIN_SIZE + 6
#: how far (px) a pin's disc can reach from its true point when two are fanned out: the ring's radius (the script's
#: ``size * 0.9``) and half the disc with its border
REACH_PX = round(SPREAD_SIZE * 0.9) + PIN_SIZE // 2 + 2

PIN_STYLE = """
  .omni-pin {
    width: 26px; height: 26px; border-radius: 50%; color: #fff; border: 2px solid #fff;
    box-shadow: 0 1px 4px rgba(0,0,0,.45); font: bold 13px/22px sans-serif; text-align: center;
  }
  .omni-spread { position: relative; width: 26px; height: 26px; }
  .omni-spread .omni-pin { position: absolute; left: 0; top: 0; }
  .omni-spread .omni-pin.omni-wide { left: -8px; width: 38px; border-radius: 13px; font-size: 11px; }
  .omni-leader { position: absolute; left: 13px; top: 13px; width: 1px; height: 1px; overflow: visible;
                 pointer-events: none; display: none; }
  .omni-spread .omni-cluster {
    position: absolute; left: 0; top: 0; width: 26px; height: 26px; box-sizing: border-box; border-radius: 50%;
    background: rgba(255,255,255,.9); color: #1f3b57; border: 2px solid #1f77b4; cursor: pointer;
    box-shadow: 3px -3px 0 -1px rgba(255,255,255,.9), 3px -3px 0 1px #1f77b4, 0 1px 3px rgba(0,0,0,.35);
    font: bold 12px/22px sans-serif; text-align: center; white-space: nowrap;
  }
"""
#: numbered pins closer than this (px) on screen, about where their discs would touch, join one cluster
CLUSTER_RADIUS_PX = 32
#: from this zoom on (street level) no pin is clustered: close pins are fanned out instead
CLUSTER_OFF_ZOOM = 16
#: a pin's leader line back to its true point, hidden until the pin is moved off it
LEADER_SVG = (
    '<svg class="omni-leader"><line x1="0" y1="0" x2="0" y2="0" stroke="#333" stroke-width="1.5"/>'
    '<circle cx="0" cy="0" r="2.5" fill="#333"/></svg>'
)


def _script_string(text: str) -> str:
    """``text`` as a JavaScript string that is safe inside a ``<script>``."""
    return json.dumps(text, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")


def pin_html(label: str, colour: str) -> str:
    """One pin: its disc (wider for a label of three characters, S/E) and its leader line, hidden until the pin is
    moved off its true point."""
    wide = " omni-wide" if len(label) > 2 else ""
    return (
        f'<div class="omni-spread">{LEADER_SVG}'
        f'<div class="omni-pin{wide}" style="background:{colour}">{html.escape(label)}</div></div>'
    )


class OfflineMarkerCluster(MarkerCluster):
    """folium's ``MarkerCluster`` with Leaflet.markercluster from the app's own static files (folium's class points
    at a CDN; the instance's lists are replaced, the class is left as it is)."""

    def __init__(self, *, base_url_path: str = "", title: str | None = None) -> None:
        js, (css, default_css) = markercluster_urls(base_url_path)
        # Each cluster is a pin's size, with the count of the pins it holds, drawn as a white disc stacked on another
        # (a stop's pin is a coloured disc with its number: a count does not read as one); its title lists the
        # numbers. It is spread like a pin (the same .omni-spread frame), so no disc covers another.
        title_js = _script_string(title) if title else "null"
        frame = _script_string(f'<div class="omni-spread">{LEADER_SVG}')
        icon = f"""function (cluster) {{
            var labels = cluster.getAllChildMarkers().map(function (m) {{ return m.options.omniLabel || ""; }});
            labels.sort(function (a, b) {{ return (parseInt(a, 10) || 0) - (parseInt(b, 10) || 0); }});
            var title = {title_js};
            var div = document.createElement("div");
            div.className = "omni-cluster"; div.textContent = String(labels.length);
            if (title) {{ div.title = title.replace("{{labels}}", labels.join(", ")); }}
            return L.divIcon({{html: {frame} + div.outerHTML + "</div>", className: "omni-cluster-icon",
                              iconSize: L.point({PIN_SIZE}, {PIN_SIZE})}});
        }}"""
        super().__init__(  # type: ignore[no-untyped-call]  # folium: MarkerCluster.__init__ has no annotations
            control=False,
            icon_create_function=icon,
            maxClusterRadius=CLUSTER_RADIUS_PX,
            disableClusteringAtZoom=CLUSTER_OFF_ZOOM,
            showCoverageOnHover=False,
            spiderfyOnMaxZoom=False,
        )
        self.default_js = [("markerclusterjs", js)]
        self.default_css = [("markerclustercss", css), ("markerclusterdefaultcss", default_css)]


def pin_icon(label: str, colour: str) -> folium.DivIcon:
    """The pin as a Leaflet ``DivIcon`` centred on its point."""
    return folium.DivIcon(
        html=pin_html(label, colour),
        icon_size=(PIN_SIZE, PIN_SIZE),
        icon_anchor=(PIN_SIZE // 2, PIN_SIZE // 2),
        class_name="omni-marker",
    )


class SpreadPins(Macro):
    """Fans out the pins (and cluster discs) of ``group`` that overlap on screen, at every zoom: pins closer than a
    pin's size form a group, groups whose circles would touch are merged, and each group's pins are placed around a
    circle about its centre (spaced by more than a pin), each with a thin leader line to its true point. The marker
    itself stays there, so its tooltip, bounds and datum are the true ones; only its picture moves."""

    _template = Template(
        """{% macro script(this, kwargs) %}
        (function () {
          var map = {{ this.map_name() }}, group = {{ this.group.get_name() }}, size = {{ this.size }};
          // The discs drawn: the group's markers, and what a cluster group in it draws at this zoom (its clusters
          // and the markers in none; a clustered marker has no icon on the map).
          function shown(layer, out) {
            if (layer instanceof L.Marker) { if (layer._icon) { out.push(layer); } }
            else if (L.MarkerClusterGroup && layer instanceof L.MarkerClusterGroup && layer._featureGroup) {
              layer._featureGroup.eachLayer(function (l) { shown(l, out); });
            }
            else if (layer.eachLayer) { layer.eachLayer(function (l) { shown(l, out); }); }
            return out;
          }
          function layout() {
            var items = shown(group, []).map(function (m) {
              return {m: m, p: map.latLngToContainerPoint(m.getLatLng())};
            });
            // Start with one group per pin; merge two groups while their rings (or pins) would touch.
            var groups = items.map(function (it) { return [it]; });
            function ring(g) {
              var k = g.length, cx = 0, cy = 0;
              g.forEach(function (it) { cx += it.p.x / k; cy += it.p.y / k; });
              return {x: cx, y: cy, r: k > 1 ? Math.max(size * 0.9, k * (size + 4) / (2 * Math.PI)) : 0};
            }
            var merged = true;
            while (merged) {
              merged = false;
              var rings = groups.map(ring);
              for (var i = 0; i < groups.length && !merged; i++) {
                for (var j = i + 1; j < groups.length && !merged; j++) {
                  var d = Math.hypot(rings[i].x - rings[j].x, rings[i].y - rings[j].y);
                  if (d < rings[i].r + rings[j].r + size) {
                    groups[i] = groups[i].concat(groups[j]); groups.splice(j, 1); merged = true;
                  }
                }
              }
            }
            groups.forEach(function (g) {
              var c = ring(g), k = g.length;
              // Around the ring in the order of the pins' own bearings, so leader lines cross as little as may be.
              g.sort(function (a, b) {
                return Math.atan2(a.p.y - c.y, a.p.x - c.x) - Math.atan2(b.p.y - c.y, b.p.x - c.x);
              });
              var start = k > 1 ? Math.atan2(g[0].p.y - c.y, g[0].p.x - c.x) : 0;
              g.forEach(function (it, n) {
                var dx = 0, dy = 0;
                if (k > 1) {
                  var a = start + 2 * Math.PI * n / k;
                  dx = Math.round(c.x + c.r * Math.cos(a) - it.p.x);
                  dy = Math.round(c.y + c.r * Math.sin(a) - it.p.y);
                }
                var pin = it.m._icon.querySelector(".omni-pin, .omni-cluster"), leader = it.m._icon.querySelector(".omni-leader");
                if (pin) { pin.style.transform = "translate(" + dx + "px," + dy + "px)"; }
                if (leader) {
                  leader.style.display = k > 1 ? "block" : "none";
                  var line = leader.querySelector("line");
                  line.setAttribute("x2", dx); line.setAttribute("y2", dy);
                }
                it.m._icon.dataset.spread = k > 1 ? "1" : "0";
              });
            });
          }
          var pending = null;
          function later() {  // once, after whatever added or moved pins in this turn (clusters open on zoomend too)
            if (pending === null) { pending = setTimeout(function () { pending = null; layout(); }, 0); }
          }
          map.on("zoomend viewreset", later);
          // a group taken off the map (the day map's pins, replaced after an edit) no longer lays out
          group.on("remove", function () { map.off("zoomend viewreset", later); });
          group.on("add layeradd", later);
          group.eachLayer(function (l) {  // a cluster group opens and closes its clusters after zoomend
            if (L.MarkerClusterGroup && l instanceof L.MarkerClusterGroup) { l.on("animationend", later); }
          });
          map.whenReady(later);
        })();
        {% endmacro %}"""
    )

    def __init__(self, group: folium.FeatureGroup, *, size: int = SPREAD_SIZE, map: folium.Map | None = None) -> None:
        super().__init__()
        self._name = "SpreadPins"
        self.group = group
        self.size = size
        self.map = map  # None: the map it is added to; else it is added to ``group`` (a layer sent on its own)

    def map_name(self) -> str:
        owner = self.map or self._parent
        if owner is None:
            raise ValueError("the pins' spreading script is on no map")
        return str(owner.get_name())


class Pins:
    """One map's pins: ``add`` each, then ``add_to(m)`` once (after the lines, so pins are drawn above them).

    ``name`` is the group's entry in the map's layer control; without one the group is not listed there. With
    ``cluster``, pins that are not ``on_top`` join a cluster group inside it (``cluster_title``: the cluster's
    tooltip, ``{labels}`` standing for its pins' numbers)."""

    def __init__(
        self,
        name: str | None = None,
        *,
        cluster: bool = False,
        base_url_path: str = "",
        cluster_title: str | None = None,
    ) -> None:
        self.group = folium.FeatureGroup(name=name, show=True, control=name is not None)
        self.cluster = OfflineMarkerCluster(base_url_path=base_url_path, title=cluster_title) if cluster else None

    def add(
        self, lat: float, lon: float, label: str, colour: str, *, tooltip: str | None = None, on_top: bool = False
    ) -> folium.Marker:
        """A pin at its true point; ``tooltip`` is HTML (escape what it quotes); ``on_top`` for a start, end or
        hotel pin."""
        marker = folium.Marker(
            [lat, lon],
            icon=pin_icon(label, colour),
            tooltip=tooltip,
            omni_label=label,  # a cluster's disc lists its pins by these
            z_index_offset=TOP_Z if on_top else None,  # None: no option (folium drops empty options)
        )
        if on_top or self.cluster is None:
            marker.add_to(self.group)
        else:
            if self.cluster._parent is None:  # in the group where its first pin comes: the page keeps S, 1..n, E
                self.cluster.add_to(self.group)
            marker.add_to(self.cluster)
        return marker

    def add_to(self, m: folium.Map) -> folium.Map:
        """The pins and the script that fans out those that touch."""
        self.group.add_to(m)
        SpreadPins(self.group).add_to(m)
        return m

    def layer(self, m: folium.Map) -> folium.FeatureGroup:
        """The pins as one layer of ``m`` that carries its own spreading script (not yet added to ``m``): a layer a
        map already drawn can take in and drop again (the itinerary's day map, components/itinerary/day_map.py)."""
        SpreadPins(self.group, map=m).add_to(self.group)
        return self.group
