"""The app frame every page shares: wide layout, local Leaflet, the sidebar (region and provider), and the
cached look-ups behind them (region packs, providers)."""

from __future__ import annotations

import os
from typing import Any

import streamlit as st

from core.config import get_settings
from core.errors import OmniError
from core.geo.composite import MapServices

ACTIVE_PROVIDER = "active_provider"  # the provider actually in use (falls back to offline)


@st.cache_data(show_spinner=False)
def cached_regions() -> list[str]:
    from core.packs.loader import list_regions

    return list(list_regions())


@st.cache_data(show_spinner=False)
def cached_region_info(name: str) -> dict[str, Any]:
    """Small facts about a region pack: display names, centre (lon, lat), city."""
    from core.packs.loader import load_region

    pack = load_region(name)
    return {
        "name": pack.name,
        "display_name": dict(pack.display_name),
        "center": tuple(pack.center),
        "city": pack.city,
        "places": len(pack.places),
    }


@st.cache_data(show_spinner=False)
def cached_providers() -> list[str]:
    from core.geo.registry import available_providers

    return list(available_providers())


@st.cache_resource(show_spinner=False)
def cached_provider(name: str, region: str) -> MapServices:
    """One provider (with its response cache and call counters) per (name, region)."""
    from core.geo.registry import make_provider

    return make_provider(name, region=region, settings=get_settings())


def amap_key_missing() -> bool:
    settings = get_settings()
    return not (os.environ.get("OMNI_AMAP_KEY") or (settings.amap_key and settings.amap_key.get_secret_value()))


def active_provider() -> tuple[MapServices, str]:
    """(provider object, name) for the region and provider chosen in the sidebar."""
    settings = get_settings()
    region = st.session_state.get("region") or settings.region
    name = st.session_state.get(ACTIVE_PROVIDER) or "offline"
    try:
        return cached_provider(name, region), name
    except OmniError:
        return cached_provider("offline", region), "offline"


@st.cache_resource(show_spinner=False)
def app_icon():
    """The favicon, drawn locally: material/emoji page icons make the browser fetch from Google's CDN."""
    from PIL import Image, ImageDraw

    img = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    draw.ellipse((4, 4, 60, 60), fill=(214, 39, 40, 255))
    draw.line((18, 44, 30, 24, 40, 36, 48, 18), fill=(255, 255, 255, 255), width=6, joint="curve")
    return img


def render_frame() -> None:
    """What every page shares: wide layout, Leaflet for the maps, the sidebar."""
    from components.static_assets import ensure_leaflet

    st.set_page_config(layout="wide", page_title="Omni-Travel Planner", page_icon=app_icon())
    if not ensure_leaflet():  # normally done by scripts/install_leaflet.py at install time
        st.sidebar.warning("Leaflet is missing from ./static/leaflet — run `python scripts/install_leaflet.py`.")
    render_sidebar()


def _region_label(name: str) -> str:
    try:
        info = cached_region_info(name)
    except (OmniError, ValueError, OSError):  # a broken pack still shows by name
        return name
    names = info["display_name"]
    return f"{names.get('zh', name)} · {names.get('en', name)}" if names else name


def render_sidebar() -> None:
    """Region and provider pickers; stores the provider in use as ``st.session_state[ACTIVE_PROVIDER]``."""
    settings = get_settings()
    regions = cached_regions() or [settings.region]
    if st.session_state.get("region") not in regions:
        st.session_state["region"] = settings.region if settings.region in regions else regions[0]
    providers = cached_providers()
    if st.session_state.get("provider") not in providers:
        st.session_state["provider"] = settings.provider if settings.provider in providers else providers[0]

    with st.sidebar:
        st.selectbox("Region 地区", regions, key="region", format_func=_region_label)
        st.selectbox(
            "Map provider 地图服务",
            providers,
            key="provider",
            help="offline: bundled region data, no network. amap: AMap Web Service (needs OMNI_AMAP_KEY).",
        )
        chosen = st.session_state["provider"]
        active = chosen
        try:
            cached_provider(chosen, st.session_state["region"])
        except OmniError as exc:
            hint = ""
            if chosen == "amap" and amap_key_missing() and "OMNI_AMAP_KEY" not in exc.message:
                hint = " Set the environment variable OMNI_AMAP_KEY to use AMap."
            st.error(f"Provider '{chosen}' is not available: {exc.message}{hint} Using the offline provider instead.")
            active = "offline"
        else:
            if chosen == "amap" and amap_key_missing():
                st.info(
                    "AMap needs an API key: set the environment variable OMNI_AMAP_KEY and restart. "
                    "Without it every figure comes from the offline estimate."
                )
        st.session_state[ACTIVE_PROVIDER] = active
        st.caption(f"Provider in use: **{active}** · region **{st.session_state['region']}**")
