"""Route planner: collect the trip, call core.route.planner.plan_route, render the result from state, in the
user's language (locales/*/LC_MESSAGES/route.po)."""

from typing import Any

import streamlit as st
from pydantic import ValidationError

from components.frame import ACTIVE_PROVIDER, provider_label, request_context
from components.language import current_lang, t
from components.legacy_pages import ensure_app_frame
from components.progress import run_with_progress
from components.reservations import my_reservations
from components.route import charts, form, links_panel, own_order, tables
from components.route import errors as route_errors
from components.route import map as route_map
from components.route import share as route_share
from core.app.route import plan_route
from core.errors import OmniError
from core.models.route import RoutePlanRequest

ensure_app_frame()
lang = current_lang()
st.title(":material/route: " + t("route.page.title", lang))
form.init_form_state()
restored = route_share.restore_from_url()  # ?route= (a shared link, a reload): fill the form, plan once

# --- input ---------------------------------------------------------------------------------------
route_share.render_error(lang)
form.render_scenario_picker()
with st.container(border=True):
    st.markdown("##### " + t("route.page.start", lang))
    form.render_origin_inputs()
    st.markdown("##### " + t("route.page.destination", lang))
    form.render_destination_inputs()
    st.markdown("##### " + t("route.page.stops", lang))
    form.render_stops_inputs()  # the table as edited: st.session_state[form.STOPS_CURRENT]
    st.markdown("##### " + t("route.page.options", lang))
    form.render_options()
    own_order.render_keep_order_control()

if restored:  # planned by the result area below, on this run
    st.session_state[form.REPLAN] = True


# --- result (rendered from state) ---------------------------------------------------------------
def render_result(stops_table: Any) -> None:
    """The plan on screen, drawn from the session."""
    result = st.session_state.get(form.RESULT)
    if result is not None:
        st.divider()
        st.subheader(t("route.page.result", lang))
        stale = form.stale_message(st.session_state, stops_table, result, lang=lang)
        if stale:  # the form was edited after planning: say so rather than show it as the current plan
            with st.container(key="stale_result"):
                st.info(stale, icon=":material/update:")
        tables.render_warnings(result, lang=lang)
        left, right = st.columns([3, 2])
        with left:  # the candidate selected in the comparison table below is highlighted
            selected = tables.selected_rank(result, st.session_state.get(tables.COMPARISON_ROWS_KEY))
            route_map.render_route_map(result, lang=lang, highlight=selected)
        with right:
            tables.render_best_route_card(result, lang=lang)
            tables.lazy_expander(
                t("route.page.legs", lang), key="best_legs", render=lambda: tables.render_legs(result, lang=lang)
            )
        own_order.render_own_order(result, lang=lang)  # the person's order beside the best (keep my order)
        st.markdown("##### " + t("route.page.reserve", lang))
        tables.render_reservations(result, lang=lang)
        st.markdown("##### " + t("route.page.candidates", lang))
        tables.render_comparison_table(result, lang=lang)
        charts.render_pareto_chart(result, lang=lang)
        st.markdown("##### " + t("route.page.resolved", lang))
        tables.render_resolved_points(result, lang=lang)
        st.markdown("##### " + t("route.page.amap", lang))
        links_panel.render_deep_links(result, lang=lang)
        st.markdown("##### " + t("route.page.download", lang))
        tables.render_downloads(result, lang=lang)
        tables.lazy_expander(
            t("route.page.provider_calls", lang),
            key="provider_calls_details",
            render=lambda: tables.render_provider_calls(result, lang=lang),
        )


@st.fragment
def plan_and_result() -> None:
    """The Plan button, the link and the result: a click on Plan (or a row chosen in the comparison table) reruns
    this part alone, not the form above it, whose values it reads from the session (a change there reruns the whole
    page first)."""
    stops_table = st.session_state.get(form.STOPS_CURRENT)
    plan_clicked = st.button(t("route.page.plan", lang), key="plan", type="primary")
    form.show_field_error("plan")
    pointer = route_errors.error_pointer(st.session_state.get(route_errors.ERROR), lang=lang)
    if pointer:
        st.info(pointer, icon=":material/arrow_upward:")  # a pointer: the message itself is above
    replan = st.session_state.pop(form.REPLAN, False)  # a place was just chosen in "Did you mean…", or a link
    # a message drawn beside the form (an earlier plan's error, a link that could not be opened) goes with a plan:
    # that needs the whole page drawn again
    shown_above = bool(st.session_state.get(route_errors.ERROR) or st.session_state.get(route_share.ERROR))

    if plan_clicked or replan:
        route_errors.ERRORS.clear()
        payload = form.request_payload(st.session_state, stops_table)
        try:
            request = RoutePlanRequest.model_validate(payload)
            ctx = request_context()
            result = run_with_progress(
                t("route.page.planning", lang, provider=provider_label(ctx.provider_name, lang)),
                lambda progress: route_share.plan(
                    request, ctx.providers, lambda: plan_route(ctx, request, progress=progress)
                ),
                done=lambda r: t("route.page.planned", lang),
            )
        except (ValidationError, OmniError) as exc:
            error = route_errors.ERRORS.record(exc)
            error["stop_names"] = [s.get("name") or s.get("address") or "" for s in payload["stops"]]
            error["candidates"] = getattr(exc, "candidates", None) or {}  # AMBIGUOUS_PLACE: "Did you mean…"
            error["facts"] = getattr(exc, "facts", None) or {}  # every place not found, and the map data's coverage
            st.session_state.pop(form.RESULT, None)
            st.rerun()  # the whole page: the message next to the input it concerns; inputs are kept
        else:
            st.session_state[form.REQUEST] = request
            st.session_state[form.RESULT] = result
            st.session_state[form.PLANNED_PROVIDER] = st.session_state.get(ACTIVE_PROVIDER)
    route_share.render_link(lang)  # the URL follows the plan; the address to copy
    if (plan_clicked or replan) and shown_above:
        st.rerun()  # the form's old message goes (a plan in a fragment run would leave it on screen)

    with st.expander(t("route.page.my_reservations", lang), expanded=False, key="rp_my_reservations"):
        my_reservations("rp_my")

    own_order.refresh(stops_table)  # only the order changed: the person's order again, on the plan's matrix
    render_result(stops_table)


plan_and_result()
