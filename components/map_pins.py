"""Pins for every map of the dashboard (route planner, itinerary day, agent plan, half-day plan, start picker): plain
HTML discs with a label (S, H, 1..n, E, S/E), that never hide each other.

* ``Pins`` collects one map's pins in a ``folium.FeatureGroup``; ``Pins.add_to(m)`` adds the group and
  ``SpreadPins``, a small script (plain JavaScript, no plugin) that, at every zoom, fans out the pins that would
  overlap on screen (the same place, or a few metres apart at the zoom shown) around their true points, each with
  a thin leader line back to it. The marker itself stays at its true point (its tooltip, the fitted bounds and the
  GCJ-02 shift are the true ones); only its picture moves.
* A start, end or hotel pin is added ``on_top``: it sits above every numbered pin (Leaflet's ``zIndexOffset``).

``PIN_STYLE`` (the pins' CSS) is part of every offline map's CSS (components/maps.py).
"""

from __future__ import annotations

import html

import folium
from branca.element import MacroElement
from folium.template import Template

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
"""


def pin_html(label: str, colour: str) -> str:
    """One pin: its disc (wider for a label of three characters, S/E) and its leader line, hidden until the pin is
    moved off its true point."""
    wide = " omni-wide" if len(label) > 2 else ""
    return (
        '<div class="omni-spread"><svg class="omni-leader"><line x1="0" y1="0" x2="0" y2="0" stroke="#333" '
        'stroke-width="1.5"/><circle cx="0" cy="0" r="2.5" fill="#333"/></svg>'
        f'<div class="omni-pin{wide}" style="background:{colour}">{html.escape(label)}</div></div>'
    )


def pin_icon(label: str, colour: str) -> folium.DivIcon:
    """The pin as a Leaflet ``DivIcon`` centred on its point."""
    return folium.DivIcon(
        html=pin_html(label, colour),
        icon_size=(PIN_SIZE, PIN_SIZE),
        icon_anchor=(PIN_SIZE // 2, PIN_SIZE // 2),
        class_name="omni-marker",
    )


class SpreadPins(MacroElement):
    """Fans out the pins of ``group`` that overlap on screen, at every zoom: pins closer than a pin's size form a
    group, groups whose circles would touch are merged, and each group's pins are placed around a circle about its
    centre (spaced by more than a pin), each with a thin leader line to its true point. The marker itself stays
    there, so its tooltip, bounds and datum are the true ones; only its picture moves."""

    _template = Template(
        """{% macro script(this, kwargs) %}
        (function () {
          var map = {{ this._parent.get_name() }}, group = {{ this.group.get_name() }}, size = {{ this.size }};
          function layout() {
            var items = [];
            group.eachLayer(function (m) {
              if (m._icon) { items.push({m: m, p: map.latLngToContainerPoint(m.getLatLng())}); }
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
                var pin = it.m._icon.querySelector(".omni-pin"), leader = it.m._icon.querySelector(".omni-leader");
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
          map.on("zoomend viewreset", layout);
          group.on("add", function () { setTimeout(layout, 0); });
          map.whenReady(function () { setTimeout(layout, 0); });
        })();
        {% endmacro %}"""
    )

    def __init__(self, group: folium.FeatureGroup, *, size: int = SPREAD_SIZE) -> None:
        super().__init__()
        self._name = "SpreadPins"
        self.group = group
        self.size = size


class Pins:
    """One map's pins: ``add`` each, then ``add_to(m)`` once (after the lines, so pins are drawn above them).

    ``name`` is the group's entry in the map's layer control; without one the group is not listed there."""

    def __init__(self, name: str | None = None) -> None:
        self.group = folium.FeatureGroup(name=name, show=True, control=name is not None)

    def add(
        self, lat: float, lon: float, label: str, colour: str, *, tooltip: str | None = None, on_top: bool = False
    ) -> folium.Marker:
        """A pin at its true point; ``tooltip`` is HTML (escape what it quotes); ``on_top`` for a start, end or
        hotel pin."""
        marker = folium.Marker(
            [lat, lon],
            icon=pin_icon(label, colour),
            tooltip=tooltip,
            **({"z_index_offset": TOP_Z} if on_top else {}),
        )
        marker.add_to(self.group)
        return marker

    def add_to(self, m: folium.Map) -> folium.Map:
        """The pins and the script that fans out those that touch."""
        self.group.add_to(m)
        SpreadPins(self.group).add_to(m)
        return m
