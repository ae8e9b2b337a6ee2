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
KEPT = "{}_kept"  # a sidebar choice, kept outside its widget's state


def _keep(key: str) -> None:
    st.session_state[KEPT.format(key)] = st.session_state[key]


def _restore(key: str, options: list[str], default: str) -> None:
    """Streamlit drops a widget's state when the page changes (the widget's id includes the page): every run
    hands the kept choice back to the widget, so switching pages never switches the region or the provider."""
    kept, current = st.session_state.get(KEPT.format(key)), st.session_state.get(key)
    st.session_state[key] = (
        kept if kept in options
        else current if current in options
        else default if default in options
        else options[0]
    )  # fmt: skip


def set_region(region: str) -> None:
    """Switch the region from code (a loaded demo trip): the widget and the kept choice together."""
    st.session_state["region"] = region
    _keep("region")


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
        "roads": pack.tile_dir is not None,
        "data_date": pack.data_date,
        "coverage": dict(pack.coverage),
        "attribution": pack.attribution,
    }


@st.cache_data(show_spinner=False)
def cached_providers(region: str) -> list[str]:
    from core.geo.registry import available_providers

    return list(available_providers(region=region))


PLACES = {
    "pack": "region pack 地区数据",
    "amap": "AMap 高德",
    "amap-mcp": "AMap MCP 高德 MCP",
    "nominatim": "Nominatim (OSM)",
}
TRAVEL = {
    "estimate": "straight-line estimate 直线估算",
    "valhalla": "Valhalla on OSM streets 真实路网",
    "osrm": "OSRM",
    "amap": "AMap 高德",
    "amap-mcp": "AMap MCP 高德 MCP",
}


def provider_label(name: str) -> str:
    """'offline' -> 'Offline: region pack + Valhalla ...': the places service and the travel service, in words."""
    if name == "offline":
        return "Offline 离线 (region pack; its streets when it has them)"
    if name == "amap":
        return "AMap 高德 (places, travel, weather)"
    if name == "amap-mcp":
        return "AMap MCP 高德 MCP (places, travel, personal-map and navigation links)"
    places, _, travel = name.partition("+")
    return f"Places 地点: {PLACES.get(places, places)} · Travel 路程: {TRAVEL.get(travel, travel)}"


def region_facts(name: str) -> str:
    """One line for people: places, road network or not, data date, coverage."""
    info = cached_region_info(name)
    zh = info["display_name"].get("zh", name)
    roads = (
        "street network 真实路网 (Valhalla)" if info["roads"] else "no road network: straight-line estimates 直线估算"
    )
    date = f" · data of {str(info['data_date'])[:10]}" if info.get("data_date") else ""
    cover = info["coverage"].get("en") or ""
    return f"{zh}: {info['places']} places · {roads}{date}" + (f"\n\n{cover}" if cover else "")


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
    _restore("region", regions, settings.region)
    providers = cached_providers(st.session_state["region"])
    _restore("provider", providers, settings.provider)

    with st.sidebar:
        st.selectbox("Region 地区", regions, key="region", format_func=_region_label, on_change=_keep, args=("region",))
        _keep("region")
        try:
            st.caption(region_facts(st.session_state["region"]))
        except (OmniError, ValueError, OSError):
            pass
        st.selectbox(
            "Map provider 地图服务",
            providers,
            key="provider",
            on_change=_keep,
            args=("provider",),
            format_func=provider_label,
            help="Where places are looked up and where travel times come from, chosen as a pair. Offline: the "
            "bundled region data (and its streets, where the pack has them), no network. AMap needs OMNI_AMAP_KEY; "
            "Nominatim, OSRM and a Valhalla server are offered when OMNI_NOMINATIM_URL, OMNI_OSRM_URL or "
            "OMNI_VALHALLA_URL is set.",
        )
        chosen = st.session_state["provider"]
        active = chosen
        try:
            cached_provider(chosen, st.session_state["region"])
        except OmniError as exc:
            hint = ""
            if chosen.startswith("amap") and amap_key_missing() and "OMNI_AMAP_KEY" not in exc.message:
                hint = " Set the environment variable OMNI_AMAP_KEY to use AMap."
            st.error(f"Provider '{chosen}' is not available: {exc.message}{hint} Using the offline provider instead.")
            active = "offline"
        else:
            if chosen.startswith("amap") and amap_key_missing():
                st.info(
                    "AMap needs an API key: set the environment variable OMNI_AMAP_KEY and restart. "
                    "Without it every figure comes from the offline estimate."
                )
        _keep("provider")
        st.session_state[ACTIVE_PROVIDER] = active
        st.caption(f"In use 当前: {provider_label(active)}")
