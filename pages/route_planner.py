"""Route planner: collect the trip, call core.route.planner.plan_route, render the result from state."""

import streamlit as st
from pydantic import ValidationError

from components import charts, forms, maps, tables
from core.config import get_settings
from core.errors import OmniError, error_from_validation
from core.models.route import RoutePlanRequest
from core.route.planner import plan_route

forms.ensure_app_frame()
st.title(":material/route: Route planner 多目的地路线规划")
forms.init_form_state()

# --- input ---------------------------------------------------------------------------------------
forms.render_scenario_picker()
with st.container(border=True):
    st.markdown("##### Start 起点")
    forms.render_origin_inputs()
    st.markdown("##### Destination 终点")
    forms.render_destination_inputs()
    st.markdown("##### Stops 途经点")
    stops_table = forms.render_stops_inputs()
    st.markdown("##### Options 选项")
    forms.render_options()

plan_clicked = st.button("Plan route 规划路线", key="plan", type="primary")
forms.show_field_error("plan")

if plan_clicked:
    st.session_state.pop(forms.ERROR, None)
    payload = forms.request_payload(st.session_state, stops_table)
    try:
        request = RoutePlanRequest.model_validate(payload)
        provider, provider_name = forms.active_provider()
        with st.status(f"Planning with the {provider_name} provider…", expanded=False) as status:
            bar = st.progress(0.0, text="Starting")

            def progress(message: str, fraction: float) -> None:
                bar.progress(min(max(float(fraction), 0.0), 1.0), text=message)

            try:
                result = plan_route(request, provider=provider, settings=get_settings(), progress=progress)
            except Exception:
                status.update(label="Planning failed", state="error")
                raise
            status.update(label="Planned", state="complete")
    except (ValidationError, OmniError) as exc:
        error = error_from_validation(exc) if isinstance(exc, ValidationError) else exc
        st.session_state[forms.ERROR] = {
            "code": error.code,
            "message": error.message,
            "field": error.field,
            "label": forms.field_label(error.field, payload["stops"]),
        }
        st.session_state.pop(forms.RESULT, None)
        st.rerun()  # redraw with the message next to the input it concerns; inputs are kept
    else:
        st.session_state[forms.REQUEST] = request
        st.session_state[forms.RESULT] = result

# --- result (rendered from state) ---------------------------------------------------------------
result = st.session_state.get(forms.RESULT)
if result is not None:
    st.divider()
    st.subheader("Result 结果")
    stale = forms.stale_message(st.session_state, stops_table, result)
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
