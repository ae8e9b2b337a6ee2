"""Route planner: collect the trip, call core.route.planner.plan_route, render the result from state."""

import streamlit as st
from pydantic import ValidationError

from components import charts, maps, tables
from components import route_form as form
from components.frame import active_provider
from components.legacy_pages import ensure_app_frame
from components.progress import run_with_progress
from components.reservations import my_reservations
from core.config import get_settings
from core.errors import OmniError
from core.models.route import RoutePlanRequest
from core.route.planner import plan_route

ensure_app_frame()
st.title(":material/route: Route planner 多目的地路线规划")
form.init_form_state()

# --- input ---------------------------------------------------------------------------------------
form.render_scenario_picker()
with st.container(border=True):
    st.markdown("##### Start 起点")
    form.render_origin_inputs()
    st.markdown("##### Destination 终点")
    form.render_destination_inputs()
    st.markdown("##### Stops 途经点")
    stops_table = form.render_stops_inputs()
    st.markdown("##### Options 选项")
    form.render_options()

plan_clicked = st.button("Plan route 规划路线", key="plan", type="primary")
form.show_field_error("plan")

if plan_clicked:
    form.ERRORS.clear()
    payload = form.request_payload(st.session_state, stops_table)
    try:
        request = RoutePlanRequest.model_validate(payload)
        provider, provider_name = active_provider()
        result = run_with_progress(
            f"Planning with the {provider_name} provider",
            lambda progress: plan_route(request, provider=provider, settings=get_settings(), progress=progress),
            done=lambda r: "Planned",
        )
    except (ValidationError, OmniError) as exc:
        error = form.ERRORS.record(exc)
        error["label"] = form.field_label(error["field"], payload["stops"])
        st.session_state.pop(form.RESULT, None)
        st.rerun()  # redraw with the message next to the input it concerns; inputs are kept
    else:
        st.session_state[form.REQUEST] = request
        st.session_state[form.RESULT] = result

with st.expander("My reservations 我的预订", expanded=False, key="rp_my_reservations"):
    my_reservations("rp_my")

# --- result (rendered from state) ---------------------------------------------------------------
result = st.session_state.get(form.RESULT)
if result is not None:
    st.divider()
    st.subheader("Result 结果")
    stale = form.stale_message(st.session_state, stops_table, result)
    if stale:  # the form was edited after planning: say so rather than show it as the current plan
        with st.container(key="stale_result"):
            st.info(stale, icon=":material/update:")
    tables.render_warnings(result)
    left, right = st.columns([3, 2])
    with left:
        maps.render_route_map(result)
    with right:
        tables.render_best_route_card(result)
        with st.expander("Legs of the best route", expanded=False):
            tables.render_legs(result.best_route)
    st.markdown("##### Reserve 预订")
    tables.render_reservations(result)
    st.markdown("##### Candidates 候选路线")
    tables.render_comparison_table(result)
    charts.render_pareto_chart(result)
    st.markdown("##### Resolved points 点位解析")
    tables.render_resolved_points(result)
    st.markdown("##### Open in AMap 高德地图")
    tables.render_deep_links(result)
    c1, c2 = st.columns(2)
    with c1:
        st.markdown("##### Provider calls")
        tables.render_provider_calls(result)
    with c2:
        st.markdown("##### Download")
        tables.render_downloads(result)
