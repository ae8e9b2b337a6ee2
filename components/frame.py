"""The app frame every page shares: wide layout, local Leaflet, the sidebar (region and provider), and the
cached look-ups behind them (region packs, providers)."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

from components.identity import dashboard_user
from components.language import current_lang, render_language_switch, t
from components.services import app_services, settings
from core.app import RequestContext
from core.errors import OmniError
from core.i18n import Lang, other
from core.models.region import ProviderFacts

if TYPE_CHECKING:
    from PIL.Image import Image

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


def _data_dir() -> str:
    """The cached look-ups below are keyed by the data folder too: a process (a test session) may switch it."""
    return str(settings().data_dir)


def cached_regions() -> list[str]:
    return _regions(_data_dir())


@st.cache_data(show_spinner=False)
def _regions(data_dir: str) -> list[str]:
    from core.app.regions import list_regions

    return list_regions(data_dir=Path(data_dir))


def cached_region_info(name: str) -> dict[str, Any]:
    """Small facts about a region pack: display names, centre (lon, lat), city, time zone."""
    return _region_info(name, _data_dir())


@st.cache_data(show_spinner=False)
def _region_info(name: str, data_dir: str) -> dict[str, Any]:
    from core.app.regions import region_facts

    return region_facts(name, data_dir=Path(data_dir))


def cached_providers(region: str) -> list[str]:
    return _providers(region, _data_dir())


@st.cache_data(show_spinner=False)
def _providers(region: str, data_dir: str) -> list[str]:
    from core.app.regions import available_providers

    return available_providers(region=region, configured_only=True)  # only what can work (AMap needs its key)


def provider_label(name: str, lang: Lang | None = None, *, short: bool = False) -> str:
    """'offline' -> 'Offline (region pack ...)': the places service and the travel service, in words; ``short``:
    the name alone ('Offline')."""
    from core.app.route import provider_words

    return provider_words(name, lang or current_lang(), short=short)


def region_name(name: str, lang: Lang | None = None) -> str:
    """The region's name in the user's language (the pack's display name; its id when it has none)."""
    try:
        names = cached_region_info(name)["display_name"]
    except (OmniError, ValueError, OSError):  # a broken pack still shows by name
        return name
    want: Lang = lang or current_lang()
    return names.get(want) or names.get(other(want)) or name


def region_labels(regions: list[str], lang: Lang) -> dict[str, str]:
    """Each region's name in ``lang`` for the picker; two regions of one name add the other language's, else
    their ids, so no two options read the same."""
    labels = {name: region_name(name, lang) for name in regions}
    for name, label in list(labels.items()):
        if list(labels.values()).count(label) > 1:
            alt = region_name(name, other(lang))
            labels[name] = f"{label} · {alt if alt != label else name}"
    for name, label in list(labels.items()):
        if list(labels.values()).count(label) > 1:
            labels[name] = f"{label} ({name})"
    return labels


def region_facts(name: str, lang: Lang | None = None) -> str:
    """One line for people: places, road network or not, data date, coverage."""
    lang = lang or current_lang()
    info = cached_region_info(name)
    roads = t("common.region.roads" if info["roads"] else "common.region.no_roads", lang)
    data_date = t("common.region.data_date", lang, date=str(info["data_date"])[:10]) if info.get("data_date") else ""
    line = t("common.region.facts", lang, region=region_name(name, lang), places=info["places"], roads=roads)
    cover = info["coverage"].get(lang) or ""
    return line + data_date + (f"\n\n{cover}" if cover else "")


def cached_provider(name: str, region: str) -> ProviderFacts:
    """The shared provider (its response cache and breakers) for (name, region): for look-ups that plan nothing
    (a region's places, its zone). Planning goes through ``request_context().providers``."""
    return app_services().provider(name, region)


def request_context(region: str | None = None) -> RequestContext:
    """This script run's context: the session's user, the language of the switch, the region and provider of the
    sidebar (offline when the chosen one cannot be built), the region's zone, and a fresh view of the providers.

    ``region``: another region than the sidebar's (a plan made there, shown again): its offline provider."""
    services = app_services()
    sidebar = st.session_state.get("region") or services.settings.region
    name = st.session_state.get(ACTIVE_PROVIDER) or "offline"
    if region is not None and region != sidebar:
        name = "offline"
    user, lang, at = dashboard_user(), current_lang(), region or sidebar
    ctx = services.context(provider=name, user=user, lang=lang, region=at)
    try:
        _ = ctx.providers  # built here, so that one that cannot be falls back to offline at once
    except OmniError:
        ctx = services.context(provider="offline", user=user, lang=lang, region=at)
    return ctx


def region_today(region: str | None = None) -> date:
    """Today in the region's zone, on the product's clock (``OMNI_NOW``'s moment in tests and demos): a context
    without providers, so nothing is built for a date."""
    services = app_services()
    sidebar = st.session_state.get("region") or services.settings.region
    return services.context(user=dashboard_user(), lang=current_lang(), region=region or sidebar).today()


def amap_key_missing() -> bool:
    key = settings().amap_key
    return not (os.environ.get("OMNI_AMAP_KEY") or (key and key.get_secret_value()))


def active_provider() -> tuple[ProviderFacts, str]:
    """(shared provider, name) for the region and provider chosen in the sidebar: for look-ups, not planning."""
    region = st.session_state.get("region") or settings().region
    name = st.session_state.get(ACTIVE_PROVIDER) or "offline"
    try:
        return cached_provider(name, region), name
    except OmniError:
        return cached_provider("offline", region), "offline"


@st.cache_resource(show_spinner=False)
def app_icon() -> Image:
    """The favicon, drawn locally: material/emoji page icons make the browser fetch from Google's CDN."""
    from PIL import Image, ImageDraw

    img = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    draw.ellipse((4, 4, 60, 60), fill=(214, 39, 40, 255))
    draw.line((18, 44, 30, 24, 40, 36, 48, 18), fill=(255, 255, 255, 255), width=6, joint="curve")
    return img


#: A phone (a window ≤ 640 px wide) gets a compact layout (issue 12 §4). Streamlit stacks every st.columns row into
#: one tall column there (each column's min-width is the whole row); rows of metrics, and rows of three or more
#: columns holding no text box (buttons, downloads, QR codes), become a grid of two per row instead. Rows with
#: text boxes, selects or number inputs stay stacked so that what is typed keeps the whole width. Headings,
#: metric figures and the page's paddings shrink; images, SVGs, iframes and code blocks never widen the page.
PHONE_CSS = """
@media (max-width: 640px) {
  [data-testid="stMainBlockContainer"] { padding: 3.75rem 0.75rem 4rem !important; }
  [data-testid="stMain"] h1 { font-size: 1.55rem !important; }
  [data-testid="stMain"] h2 { font-size: 1.3rem !important; }
  [data-testid="stMain"] h3 { font-size: 1.15rem !important; }
  [data-testid="stMetricValue"] { font-size: 1.3rem !important; }
  [data-testid="stMetricLabel"] p { font-size: 0.8rem !important; }
  [data-testid="stHorizontalBlock"] { gap: 0.75rem !important; }
  [data-testid="stHorizontalBlock"]:has([data-testid="stMetric"]):not(
    :has([data-testid="stHorizontalBlock"], input:not([type="checkbox"]):not([type="radio"]), textarea, iframe)
  ) > [data-testid="stColumn"],
  [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"]:nth-child(3)):not(
    :has(input:not([type="checkbox"]):not([type="radio"]), textarea)
  ) > [data-testid="stColumn"] {
    flex: 1 1 calc(50% - 0.375rem) !important;
    min-width: calc(50% - 0.375rem) !important;
    width: calc(50% - 0.375rem) !important;
  }
  [data-testid="stMain"] img, [data-testid="stMain"] svg, [data-testid="stMain"] iframe { max-width: 100%; }
  [data-testid="stMain"] pre, [data-testid="stMain"] code { white-space: pre-wrap; word-break: break-word; }
}
"""


def render_frame() -> None:
    """What every page shares: wide layout, the phone layout (PHONE_CSS), Leaflet for the maps, the sidebar."""
    from components.static_assets import ensure_leaflet

    st.set_page_config(layout="wide", page_title="Omni-Travel Planner", page_icon=app_icon())
    st.html(f"<style>{PHONE_CSS}</style>")  # style only: applied without taking room on the page
    render_language_switch()  # first: everything below is worded in the chosen language
    if not ensure_leaflet():  # normally done by scripts/install_leaflet.py at install time
        st.sidebar.warning(t("common.frame.leaflet_missing"))
    render_sidebar()


def render_sidebar() -> None:
    """Region and provider pickers; stores the provider in use as ``st.session_state[ACTIVE_PROVIDER]``."""
    current = settings()
    regions = cached_regions() or [current.region]
    _restore("region", regions, current.region)
    providers = cached_providers(st.session_state["region"])
    _restore("provider", providers, current.provider)

    lang = current_lang()
    with st.sidebar:
        st.selectbox(
            t("common.sidebar.region", lang),
            regions,
            key="region",
            format_func=region_labels(regions, lang).__getitem__,
            on_change=_keep,
            args=("region",),
            persist_state="session",
        )
        _keep("region")
        try:
            st.caption(region_facts(st.session_state["region"], lang))
        except (OmniError, ValueError, OSError):
            pass
        st.selectbox(
            t("common.sidebar.provider", lang),
            providers,
            key="provider",
            on_change=_keep,
            args=("provider",),
            format_func=lambda name: provider_label(name, lang),
            help=t("common.sidebar.provider_help", lang),
            persist_state="session",
        )
        if "amap" not in providers:  # not offered: say why, once, beside the picker
            st.caption(t("common.sidebar.amap_not_offered", lang))
        chosen = st.session_state["provider"]
        active = chosen
        try:
            cached_provider(chosen, st.session_state["region"])
        except OmniError as exc:
            key_missing = chosen.startswith("amap") and amap_key_missing()
            st.error(
                t("common.sidebar.provider_unavailable", lang, provider=provider_label(chosen, lang))
                + (" " + t("common.sidebar.amap_key_hint", lang) if key_missing else "")
            )
            with st.expander(t("common.details", lang), expanded=False):
                st.caption(f"{exc.code}: {exc.message}")
            active = "offline"
        else:
            if chosen.startswith("amap") and amap_key_missing():
                st.info(t("common.sidebar.amap_key_needed", lang))
        _keep("provider")
        st.session_state[ACTIVE_PROVIDER] = active
        st.caption(t("common.sidebar.in_use", lang, provider=provider_label(active, lang)))
