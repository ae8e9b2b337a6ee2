"""The route planner's "keep my order" (issue 32, X8): the control, the person's order planned again at once when
the Order column changes, and the person's order beside the best in words and a table.

The person's order is the stops as the Order column lists them (``keep_order``). When a plan is on screen and only
that order (or the control) changed, the own order is planned on the last plan's matrix
(``core.app.route.replan_own_order``: no provider call, no order search); any other change leaves the result stale
as before. The pure parts (``difference_words``, ``legs_frame``) have no Streamlit calls.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st
from pydantic import ValidationError

from components.frame import ACTIVE_PROVIDER, request_context
from components.language import current_lang, t
from components.route import form
from components.route.form import KEEP_ORDER
from components.route.links_panel import link_parts
from components.route_words import STRATEGY_WORDS, order_names
from core.app.route import order_only_changed, replan_own_order
from core.errors import OmniError
from core.i18n import Lang
from core.models.route import RoutePlanRequest, RoutePlanResult

#: the per-leg table's columns and their headers (route.po)
LEG_COLUMNS = {
    "position": "route.own.col.position",
    "own_leg": "route.own.col.own_leg",
    "own_km": "route.own.col.own_km",
    "own_min": "route.own.col.own_min",
    "best_leg": "route.own.col.best_leg",
    "best_km": "route.own.col.best_km",
    "best_min": "route.own.col.best_min",
    "delta_km": "route.own.col.delta_km",
    "delta_min": "route.own.col.delta_min",
}


def render_keep_order_control() -> None:
    """The "keep my order" checkbox (kept for the session, across pages)."""
    lang = current_lang()
    st.checkbox(t("route.own.keep", lang), key=KEEP_ORDER, persist_state="session", help=t("route.own.keep_help", lang))


def _minutes(seconds: int) -> str:
    minutes = abs(seconds) / 60
    return f"{minutes:.0f}" if minutes >= 10 else f"{minutes:.1f}"


def _km(metres: int) -> str:
    return f"{abs(metres) / 1000:.1f}"


def difference_words(result: RoutePlanResult, lang: Lang) -> list[str]:
    """The person's order against the best in sentences: the order, both totals, the difference, and what the
    figures are (estimates; legs measured differently). Empty when the result has no own order."""
    own, diff = result.own_route, result.own_difference
    if own is None or diff is None:
        return []
    names = " → ".join(n.shown for n in order_names(result, own, lang))
    lines = [t("route.own.order", lang, order=names)]
    lines.append(
        t(
            "route.own.totals",
            lang,
            km=_km(diff.own_distance_m),
            minutes=_minutes(diff.own_duration_s),
            strategy=t(STRATEGY_WORDS[result.route_strategy], lang),
            best_km=_km(diff.best_distance_m),
            best_minutes=_minutes(diff.best_duration_s),
        )
    )
    if diff.same_as_best:
        lines.append(t("route.own.same", lang))
    else:
        d, s = diff.delta_distance_m, diff.delta_duration_s
        distance = (
            t("route.own.km_more", lang, km=_km(d))
            if d > 0
            else t("route.own.km_less", lang, km=_km(d))
            if d < 0
            else t("route.own.km_same", lang)
        )
        time = (
            t("route.own.min_more", lang, minutes=_minutes(s))
            if s > 0
            else t("route.own.min_less", lang, minutes=_minutes(s))
            if s < 0
            else t("route.own.min_same", lang)
        )
        lines.append(t("route.own.delta", lang, distance=distance, time=time))
    if diff.straight_line_estimate:
        lines.append(t("route.own.estimate", lang))
    if not diff.measured_alike:
        lines.append(t("route.own.measured_apart", lang))
    return lines


def legs_frame(result: RoutePlanResult, lang: Lang) -> pd.DataFrame:
    """Leg by leg: the person's leg and the best order's leg at the same position, their km and minutes, and the
    difference (own − best); place names in ``lang``."""
    own, diff = result.own_route, result.own_difference
    if own is None or diff is None:
        return pd.DataFrame(columns=list(LEG_COLUMNS))
    own_names = [n.shown for n in order_names(result, own, lang)]
    best_names = [n.shown for n in order_names(result, result.best_route, lang)]
    rows = [
        {
            "position": leg.position + 1,
            "own_leg": f"{own_names[leg.position]} → {own_names[leg.position + 1]}",
            "own_km": round(leg.own_distance_m / 1000, 2),
            "own_min": round(leg.own_duration_s / 60, 1),
            "best_leg": f"{best_names[leg.position]} → {best_names[leg.position + 1]}",
            "best_km": round(leg.best_distance_m / 1000, 2),
            "best_min": round(leg.best_duration_s / 60, 1),
            "delta_km": round(leg.delta_distance_m / 1000, 2),
            "delta_min": round(leg.delta_duration_s / 60, 1),
        }
        for leg in diff.legs
    ]
    return pd.DataFrame(rows, columns=list(LEG_COLUMNS))


def render_own_order(result: RoutePlanResult, *, lang: Lang) -> None:
    """The person's order beside the best, when the result has one."""
    if result.own_route is None:
        return
    with st.container(border=True, key="own_order_card"):
        st.markdown("#### :material/swap_vert: " + t("route.own.title", lang))
        for line in difference_words(result, lang):
            st.markdown(line)
        frame = legs_frame(result, lang)
        st.dataframe(
            frame,
            key="own_order_legs",
            hide_index=True,
            width="stretch",
            column_config={c: st.column_config.Column(t(key, lang)) for c, key in LEG_COLUMNS.items()},
        )
        parts = link_parts(result, lang=lang, own=True)  # the person's order in AMap, as the best order's links
        if parts:
            st.caption(t("route.own.links", lang))
            for n, (text, href) in enumerate(parts, start=1):
                st.link_button(text, href, key=f"own_link_{n}", type="tertiary", icon=":material/open_in_new:")


def refresh(stops_table: pd.DataFrame | None) -> None:
    """After the Order column or the control changed: the person's order planned again on the last plan's matrix
    (no provider call), when a plan is on screen, keep-my-order is or was on, and nothing else changed (the
    sidebar's region and provider included); otherwise the result is left as it is (stale when it is)."""
    state = st.session_state
    result, planned = state.get(form.RESULT), state.get(form.REQUEST)
    if result is None or planned is None:
        return
    try:
        current = RoutePlanRequest.model_validate(form.request_payload(state, stops_table))
    except (ValidationError, OmniError):
        return
    if current == planned or not (current.keep_order or planned.keep_order):
        return
    same_sidebar = state.get("region") in (None, result.region) and state.get(ACTIVE_PROVIDER) == state.get(
        form.PLANNED_PROVIDER
    )
    if not same_sidebar or not order_only_changed(planned, current):
        return
    try:
        again = replan_own_order(request_context(), current, result)
    except (ValidationError, OmniError):
        return
    state[form.REQUEST] = current
    state[form.RESULT] = again
