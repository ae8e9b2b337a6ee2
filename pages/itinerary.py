"""Multi-day itinerary: pick places, set the days, optimise (core.itinerary.pipeline), edit and re-optimise.

Thin page: inputs and panels live in components/itinerary_views.py and components/timeline.py;
the plan is made on a button, kept in st.session_state and rendered from there.
"""

import streamlit as st
from pydantic import TypeAdapter, ValidationError

from components import itinerary_form as form
from components import itinerary_frames as frames
from components import itinerary_panels as panels
from components import itinerary_state as state
from components.frame import active_provider
from components.legacy_pages import ensure_app_frame
from components.progress import run_with_progress as progress_run
from components.reservations import my_reservations
from components.timeline import render_timeline
from core.config import get_settings
from core.errors import OmniError
from core.itinerary.edits import reoptimize
from core.itinerary.pipeline import plan_itinerary
from core.models.itinerary import UserEdit
from core.models.itinerary_result import ItineraryResult

ensure_app_frame()
st.title(":material/calendar_month: Itinerary 多日行程规划")
st.caption(
    "Choose places with a priority, set the days, and the optimiser lays out each day around opening hours, "
    "travel (with a safety margin) and lunch — and says why anything did not fit."
)

region = state.current_region()
try:
    catalog = state.cached_catalog(region)
except (OmniError, ValueError, OSError) as exc:
    st.error(f"Region '{region}': its place pack cannot be read ({exc}). Choose another region in the sidebar.")
    st.stop()
state.init_state(region, catalog)

STAGES = {
    "prepare": "Building the travel-time matrix",
    "optimise:per_day": "Optimising day by day",
    "optimise:multi_vehicle": "Optimising all days together",
    "timeline": "Laying out the timelines",
    "explain": "Explaining dropped places",
    "critic": "Checking the plan (critic)",
    "done": "Done",
}


def run_with_progress(label: str, solve):
    """Run ``solve(provider, progress)`` with the sidebar's provider in the shared progress box."""
    provider, provider_name = active_provider()
    return progress_run(
        f"{label} with the {provider_name} provider",
        lambda progress: solve(provider, progress),
        stages=STAGES,
        done=lambda result: f"{label}: done in {result.seconds:.1f} s",
    )


def fail(exc: Exception, section: str | None = None, payload=None) -> None:
    """Keep the error beside the widget it concerns and redraw; the inputs are untouched."""
    error = form.ERRORS.record(exc, section=section)
    if error["field"]:
        error["label"] = form.field_label(error["field"], payload, catalog)


# --- input ---------------------------------------------------------------------------------------
form.render_demo_picker()
with st.container(border=True):
    st.markdown("##### Places 地点")
    form.render_place_picker(catalog)
    st.markdown("##### Days 日程")
    form.render_day_inputs(catalog)
    st.markdown("##### Lunch & pacing 午餐与节奏")
    form.render_lunch_and_pacing()

optimise = st.button(
    "Optimise 优化行程", key="optimise", type="primary", icon=":material/auto_awesome:", on_click=state.clear_error
)
form.show_error("plan")

if optimise:
    st.session_state.pop(state.ERROR, None)
    try:
        request = form.trip_request(st.session_state, st.session_state[state.SELECTION], catalog, region)
        settings = get_settings()
        result = run_with_progress(
            "Optimising",
            lambda provider, progress: plan_itinerary(request, provider=provider, settings=settings, progress=progress),
        )
    except (ValidationError, OmniError) as exc:
        fail(exc)
        st.session_state.pop(state.RESULT, None)
        st.rerun()  # redraw with the message next to the input it concerns; inputs are kept
    else:
        st.session_state[state.BASE_REQUEST] = request
        st.session_state[state.RESULT] = result
        st.session_state[state.EDITS] = []
        st.session_state["day_select"] = 0

with st.expander("My reservations 我的预订", expanded=False, key="it_my_reservations"):
    my_reservations("it_my")

# --- result (rendered from state) ---------------------------------------------------------------
result: ItineraryResult | None = st.session_state.get(state.RESULT)
if result is None:
    st.info("Load a demo trip or tick places in the table, then press **Optimise**.", icon=":material/lightbulb:")
    st.stop()

st.divider()
st.subheader(f"{result.trip_name}")
panels.render_status(result)
panels.render_totals(result)
panels.render_quality(result)

# Day selector: only the chosen day's chart and map are drawn.
days = list(range(len(result.days)))
if st.session_state.get("day_select") not in days:
    st.session_state["day_select"] = 0
st.radio(
    "Day 日期",
    days,
    key="day_select",
    horizontal=True,
    format_func=lambda i: frames.day_option_label(result, i),
)
day_index = st.session_state["day_select"]
day = result.days[day_index]
left, right = st.columns([3, 2])
with left:
    render_timeline(day, result)
with right:
    panels.render_day_map(result, day_index)
    t = day.totals
    st.caption(
        f"Day {day_index + 1}: {t.visits} visits · {t.visit_min} min visiting · travel {t.travel_robust_min} min "
        f"robust / {t.travel_nominal_min:.0f} min nominal ({result.matrix_source}) · {t.distance_m / 1000:.1f} km · "
        f"wait {t.wait_min} min · lunch {t.lunch_min} min · {day.day_start:%H:%M}–{day.day_end:%H:%M}"
    )

st.markdown("##### Reserve 预订")
panels.render_reservations(result)

st.markdown("##### Dropped places 未安排的地点")
panels.render_dropped(result)

# --- edits ---------------------------------------------------------------------------------------
st.markdown("##### Adjust & re-optimise 调整后重新优化")
request = result.request
where = frames.stop_whereabouts(result)
pack_names = {c["id"]: c["name_zh"] for c in catalog}
names = {p.key: p.name or pack_names.get(p.place_id or "", p.key) for p in request.places}
stop_keys = [p.key for p in request.places]
if st.session_state.get("edit_stop") not in stop_keys:
    st.session_state["edit_stop"] = stop_keys[0]


def _follow_stop() -> None:
    """Choosing a stop preselects the day it is on."""
    current = frames.stop_day(st.session_state[state.RESULT], st.session_state.get("edit_stop"))
    if current is not None:
        st.session_state["edit_day"] = current


if st.session_state.get("edit_day") not in days:
    st.session_state["edit_day"] = frames.stop_day(result, st.session_state["edit_stop"]) or 0
c1, c2, c3, c4 = st.columns([3, 5, 2, 2], vertical_alignment="bottom")
c1.selectbox(
    "Stop 地点",
    stop_keys,
    key="edit_stop",
    on_change=_follow_stop,
    format_func=lambda k: f"{names.get(k, k)} — {where.get(k, '')}",
)
c2.radio(
    "Action", list(state.EDIT_ACTIONS), key="edit_action", horizontal=True, format_func=state.EDIT_ACTION_LABELS.get
)
action = st.session_state.get("edit_action") or "lock"
c3.selectbox(
    "Day 日",
    days,
    key="edit_day",
    format_func=lambda i: f"Day {i + 1} · {result.days[i].date:%m-%d}",
    disabled=action in {"remove", "unlock"},
)
c4.time_input("Start time (lock only, optional)", key="edit_time", value=None, disabled=action != "lock")
b1, b2, _ = st.columns([2, 2, 4])
apply_edit = b1.button(
    "Apply & re-optimise",
    key="edit_apply",
    type="primary",
    icon=":material/refresh:",
    width="stretch",
    on_click=state.clear_error,
)
clear_edits = b2.button(
    "Clear edits",
    key="edit_clear",
    width="stretch",
    disabled=not st.session_state.get(state.EDITS),
    on_click=state.clear_error,
)
form.show_error("edit")

if apply_edit or clear_edits:
    st.session_state.pop(state.ERROR, None)
    base = st.session_state.get(state.BASE_REQUEST) or request
    settings = get_settings()
    try:
        if clear_edits:
            new_result = run_with_progress(
                "Re-optimising without edits",
                lambda provider, progress: plan_itinerary(
                    base, provider=provider, settings=settings, progress=progress
                ),
            )
            edits = []
        else:
            edit = form.edit_from_form(
                action,
                st.session_state.get("edit_stop"),
                st.session_state.get("edit_day"),
                st.session_state.get("edit_time"),
            )
            edits = [*st.session_state.get(state.EDITS, []), edit]
            typed = TypeAdapter(list[UserEdit]).validate_python(edits)
            # The previous plan (with the original request) keeps unlocked stops on their day: a stable re-plan.
            previous = result.model_copy(update={"request": base})
            new_result = run_with_progress(
                "Re-optimising",
                lambda provider, progress: reoptimize(
                    previous, typed, provider=provider, settings=settings, progress=progress
                ),
            )
    except (ValidationError, OmniError) as exc:
        fail(exc, "edit", base.model_dump(mode="json"))
        st.rerun()
    else:
        st.session_state[state.RESULT] = new_result
        st.session_state[state.EDITS] = edits
        st.rerun()

edits = st.session_state.get(state.EDITS, [])
if edits:
    st.caption("Active edits (applied in order on top of the optimised trip; locks are hard constraints):")
    st.dataframe(frames.edits_frame(edits, names), key="edits_table", hide_index=True, width="stretch")
else:
    st.caption("No edits yet. Lock a stop to a day (and optionally a start time), move it, or remove it.")

# --- explanation and export ------------------------------------------------------------------------
with st.expander("Decision log 决策记录", expanded=False):
    panels.render_decision_log(result)
st.markdown("##### Export 导出")
panels.render_downloads(result)
