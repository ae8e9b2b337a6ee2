"""A half-day plan on an offline folium map: the start (S) when one was given, the steps numbered in visiting order,
and the order as straight lines between them (travel minutes come from the plan, not from the line drawn). Names
and notes in ``lang``; each pin's tooltip gives the place's name in the other language too.

``build_plan_map`` is pure (unit-testable); ``render_plan_map`` hands it to ``st_folium``. Like the other pages'
maps it needs no network: local Leaflet, the pack's own background (components/basemap.py); pins that touch fan out
and the start stays on top; numbered pins crowded at a low zoom join a cluster listing their numbers
(components/map_pins.py).
"""

from __future__ import annotations

import html

import folium

from components.basemap import add_background, finish_map
from components.folium_typed import polyline
from components.halfday import text
from components.maps import clustered_pins, offline_map
from core.i18n import Lang, t
from core.models.halfday.plans import OriginPoint, Plan
from core.words import halfday as halfday_words

ROUTE_COLOUR = "#d62728"
STEP_COLOURS = {"activity": "#1f77b4", "meal": "#ff7f0e"}
START_COLOUR = "#2ca02c"


def build_plan_map(
    plan: Plan,
    *,
    lang: Lang,
    region: str | None,
    origin: OriginPoint | None = None,
    provider: str | None = None,
    base_url_path: str = "",
) -> folium.Map:
    line: list[list[float]] = []
    if origin is not None:
        line.append([origin.lat, origin.lon])
    line += [[s.lat, s.lon] for s in plan.steps]
    if not line:
        return offline_map([31.2304, 121.4737], zoom_start=12, base_url_path=base_url_path)
    lats = [p[0] for p in line]
    lons = [p[1] for p in line]
    m = offline_map(
        [(min(lats) + max(lats)) / 2, (min(lons) + max(lons)) / 2], zoom_start=13, base_url_path=base_url_path
    )
    add_background(m, region, bounds=(min(lons), min(lats), max(lons), max(lats)), lang=lang)
    if len(line) >= 2:
        tip = t("halfday.map.line", lang)
        polyline(line, color=ROUTE_COLOUR, weight=4, opacity=0.85, dash_array="6 6", tooltip=tip).add_to(m)
    pins = clustered_pins(lang=lang, base_url_path=base_url_path)
    if origin is not None:
        start = t("halfday.map.start", lang)
        tip = f"<b>S · {start}</b><br>{html.escape(origin.name)}"
        pins.add(origin.lat, origin.lon, "S", START_COLOUR, tooltip=tip, on_top=True)
    for n, step in enumerate(plan.steps, start=1):
        name = html.escape(text.place_name(step, lang))
        other = html.escape(text.other_name(step, lang))
        pins.add(
            step.lat,
            step.lon,
            str(n),
            STEP_COLOURS.get(step.kind, ROUTE_COLOUR),
            tooltip=f"<b>{n} · {name}</b>"
            + (f"<br>{other}" if other else "")
            + f"<br>{halfday_words.clock(step.start)}–{halfday_words.clock(step.end)}",
        )
    pins.add_to(m)
    if len(line) >= 2:
        m.fit_bounds([[min(lats), min(lons)], [max(lats), max(lons)]], padding=(24, 24))
    finish_map(m, provider)
    return m


def render_plan_map(
    plan: Plan,
    *,
    lang: Lang,
    region: str,
    origin: OriginPoint | None,
    provider: str | None,
    key: str,
    height: int = 280,
) -> None:
    import streamlit as st
    from streamlit_folium import st_folium

    base = str(st.get_option("server.baseUrlPath") or "")
    m = build_plan_map(plan, lang=lang, region=region, origin=origin, provider=provider, base_url_path=base)
    with st.container(key=f"{key}_box"):
        st_folium(m, key=key, height=height, use_container_width=True, returned_objects=[])
