"""The route plan's AMap links panel: the deep links of the best order in words, and QR codes for the links a phone
opens (split from components/route/tables.py)."""

from __future__ import annotations

from components.route.qr import qr_svg_data_uri
from components.route_words import point_name
from core.app import route as route_app
from core.i18n import Lang, t
from core.models.route import ResolvedPoint, RoutePlanResult


def link_parts(result: RoutePlanResult, *, lang: Lang = "en", own: bool = False) -> list[tuple[str, str]]:
    """The browser links the core made, each with what it covers in words ("Part n: from → to", names in
    ``lang``); only links that pass ``safe_href``. The parts' ends are the core's (``core.app.route.route_links``).
    ``own``: the person's order's links."""
    links = route_app.route_links(result, own=own)
    if links is None:
        return []

    def name(point: ResolvedPoint | None) -> str:  # the core's links start at the fixed origin, else the phone
        return point_name(point, lang, result.region).shown if point else t("route.links.my_location", lang)

    return [
        (t("route.links.part", lang, n=part.n, start=name(part.start), end=name(part.end)), part.href)
        for part in links.web_parts
    ]


def qr_choices(result: RoutePlanResult, *, lang: Lang = "en") -> list[tuple[str, str]]:
    """The app links a phone can scan, best first: the personal map (every point, when AMap made one), the
    Android and the iPhone route links (every stop up to the app's via limit)."""
    links = route_app.route_links(result)
    if links is None:
        return []
    found = [
        (t("route.links.qr_personal_map", lang), links.personal_map),
        (t("route.links.qr_android", lang), links.android_route_plan),
        (t("route.links.qr_ios", lang), links.ios_route_plan),
    ]
    return [(label, url) for label, url in found if url]


def render_deep_links(result: RoutePlanResult, *, lang: Lang) -> None:
    """One "Open in AMap" button (the whole route, or its first part), the parts listed under it (each a link),
    and ONE large QR code of an app link (a choice between the personal map, Android and iPhone switches it
    without rerunning the page). Only links the core made are shown."""
    import streamlit as st

    links = route_app.route_links(result)
    if links is None:
        st.caption(
            t("route.links.outside_china" if route_app.outside_amap(result.region) else "route.links.none", lang)
        )
        return
    parts = link_parts(result, lang=lang)
    left, right = st.columns([3, 2])
    with left:
        if parts:
            label = (
                t("route.links.open", lang) if len(parts) == 1 else t("route.links.open_part", lang, total=len(parts))
            )
            st.link_button(label, parts[0][1], key="link_web_1", type="primary", icon=":material/map:")
        if len(parts) > 1:
            st.caption(t("route.links.parts", lang, total=len(parts)))
            with st.container(key="link_parts", gap=None):
                for n, (text, href) in enumerate(parts, start=1):
                    st.link_button(text, href, key=f"link_part_{n}", type="tertiary", icon=":material/open_in_new:")
        others = [
            (t("route.links.navigation", lang), links.navigation, "link_navigation"),
        ]
        for text, url, key in others:
            if url:
                st.link_button(text, url, key=key, type="tertiary")
        st.caption(t("route.links.note", lang))
    with right:
        _qr_fragment(result, lang)


def _qr_caption(result: RoutePlanResult, lang: Lang) -> str:
    vias = [n for n in result.notices if n.code == "APP_LINK_VIAS"]
    if vias:
        params = vias[0].params
        return t("route.links.qr_caption_part", lang, covered=params.get("covered", ""), vias=params.get("vias", ""))
    return t("route.links.qr_caption", lang)


def _qr_fragment(result: RoutePlanResult, lang: Lang) -> None:
    import streamlit as st

    @st.fragment
    def qr() -> None:
        choices = qr_choices(result, lang=lang)
        if not choices:
            return
        labels = [label for label, _ in choices]
        chosen = labels[0]
        if len(choices) > 1:
            chosen = (
                st.segmented_control(t("route.links.qr_for", lang), labels, default=labels[0], key="link_qr_for")
                or labels[0]
            )
        url = dict(choices)[chosen]
        with st.container(key="link_qr"):
            # the core's picture, its mask chosen with numpy (components/route/qr.py): a new plan's code is new
            st.image(qr_svg_data_uri(url, scale=5), caption=_qr_caption(result, lang), width=300)

    qr()
