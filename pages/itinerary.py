"""Multi-day itinerary: pick places, set the days, optimise (core.itinerary.pipeline), edit and re-optimise.

Thin page: inputs and panels live in components/itinerary_views.py and components/timeline.py;
the plan is made on a button, kept in st.session_state and rendered from there.
"""

import streamlit as st
from pydantic import TypeAdapter, ValidationError

from components import forms
from components import itinerary_views as iv
from components.timeline import render_timeline
from core.config import get_settings
from core.errors import OmniError, error_from_validation
from core.itinerary.edits import reoptimize
from core.itinerary.pipeline import plan_itinerary
from core.models.itinerary import TripRequest, UserEdit
from core.models.itinerary_result import ItineraryResult

forms.ensure_app_frame()
st.title(":material/calendar_month: Itinerary 多日行程规划")
st.caption(
    "Choose places with a priority, set the days, and the optimiser lays out each day around opening hours, "
    "travel (with a safety margin) and lunch — and says why anything did not fit."
)

region = iv.current_region()
try:
    catalog = iv.cached_catalog(region)
except (OmniError, ValueError, OSError) as exc:
    st.error(f"Region '{region}': its place pack cannot be read ({exc}). Choose another region in the sidebar.")
    st.stop()
iv.init_state(region, catalog)

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
    """Run ``solve(progress)`` inside a status box with a progress bar."""
    provider, provider_name = forms.active_provider()
    with st.status(f"{label} with the {provider_name} provider…", expanded=False) as status:
        bar = st.progress(0.0, text="Starting")

        def progress(stage: str, fraction: float) -> None:
            bar.progress(min(max(float(fraction), 0.0), 1.0), text=STAGES.get(stage, stage))

        try:
            result = solve(provider, progress)
        except Exception:
            status.update(label=f"{label} failed", state="error")
            raise
        status.update(label=f"{label}: done in {result.seconds:.1f} s", state="complete")
    return result


def fail(exc: Exception, section_default: str, payload=None) -> None:
    """Keep the error (field-named) for the section it concerns and redraw; the inputs are untouched."""
    error = error_from_validation(exc) if isinstance(exc, ValidationError) else exc
    field = getattr(error, "field", None)
    section = "edit" if section_default == "edit" else (iv.error_section(field) if field else section_default)
    st.session_state[iv.ERROR] = {
        "field": field,
        "label": iv.field_label(field, payload, catalog) if field else iv.FIELD_LABELS.get(section, "Input"),
        "message": getattr(error, "message", str(error)),
        "section": section,
    }


# --- input ---------------------------------------------------------------------------------------
iv.render_demo_picker()
with st.container(border=True):
    st.markdown("##### Places 地点")
    iv.render_place_picker(catalog)
    st.markdown("##### Days 日程")
    iv.render_day_inputs(catalog)
    st.markdown("##### Lunch & pacing 午餐与节奏")
    iv.render_lunch_and_pacing()

optimise = st.button("Optimise 优化行程", key="optimise", type="primary", icon=":material/auto_awesome:",
                     on_click=iv.clear_error)
iv.show_error("plan")

if optimise:
    st.session_state.pop(iv.ERROR, None)
    payload = None
    try:
        payload = iv.trip_payload(st.session_state, st.session_state[iv.SELECTION], catalog, region)
        request = TripRequest.model_validate(payload)
        settings = get_settings()
        result = run_with_progress(
            "Optimising",
            lambda provider, progress: plan_itinerary(request, provider=provider, settings=settings, progress=progress),
        )
    except (ValidationError, OmniError) as exc:
        fail(exc, "plan", payload)
        st.session_state.pop(iv.RESULT, None)
        st.rerun()  # redraw with the message next to the input it concerns; inputs are kept
    else:
        st.session_state[iv.BASE_REQUEST] = request
        st.session_state[iv.RESULT] = result
        st.session_state[iv.EDITS] = []
        st.session_state["day_select"] = 0


# --- result (rendered from state) ---------------------------------------------------------------
result: ItineraryResult | None = st.session_state.get(iv.RESULT)
if result is None:
    st.info("Load a demo trip or tick places in the table, then press **Optimise**.", icon=":material/lightbulb:")
    st.stop()

st.divider()
st.subheader(f"{result.trip_name}")
iv.render_status(result)
iv.render_totals(result)
iv.render_quality(result)

# Day selector: only the chosen day's chart and map are drawn.
days = list(range(len(result.days)))
if st.session_state.get("day_select") not in days:
    st.session_state["day_select"] = 0
st.radio(
    "Day 日期",
    days,
    key="day_select",
    horizontal=True,
    format_func=lambda i: iv.day_option_label(result, i),
)
day_index = st.session_state["day_select"]
day = result.days[day_index]
left, right = st.columns([3, 2])
with left:
    render_timeline(day, result)
with right:
    iv.render_day_map(result, day_index, catalog)
    t = day.totals
    st.caption(
        f"Day {day_index + 1}: {t.visits} visits · {t.visit_min} min visiting · travel {t.travel_robust_min} min "
        f"robust / {t.travel_nominal_min:.0f} min nominal ({result.matrix_source}) · {t.distance_m / 1000:.1f} km · "
        f"wait {t.wait_min} min · lunch {t.lunch_min} min · {day.day_start:%H:%M}–{day.day_end:%H:%M}"
    )

st.markdown("##### Dropped places 未安排的地点")
iv.render_dropped(result)

# --- edits ---------------------------------------------------------------------------------------
st.markdown("##### Adjust & re-optimise 调整后重新优化")
request = result.request
where = iv.stop_whereabouts(result)
pack_names = {c["id"]: c["name_zh"] for c in catalog}
names = {p.key: p.name or pack_names.get(p.place_id or "", p.key) for p in request.places}
stop_keys = [p.key for p in request.places]
if st.session_state.get("edit_stop") not in stop_keys:
    st.session_state["edit_stop"] = stop_keys[0]


def _follow_stop() -> None:
    """Choosing a stop preselects the day it is on."""
    current = iv.stop_day(st.session_state[iv.RESULT], st.session_state.get("edit_stop"))
    if current is not None:
        st.session_state["edit_day"] = current


if st.session_state.get("edit_day") not in days:
    st.session_state["edit_day"] = iv.stop_day(result, st.session_state["edit_stop"]) or 0
c1, c2, c3, c4 = st.columns([3, 5, 2, 2], vertical_alignment="bottom")
c1.selectbox(
    "Stop 地点",
    stop_keys,
    key="edit_stop",
    on_change=_follow_stop,
    format_func=lambda k: f"{names.get(k, k)} — {where.get(k, '')}",
)
c2.radio("Action", list(iv.EDIT_ACTIONS), key="edit_action", horizontal=True, format_func=iv.EDIT_ACTION_LABELS.get)
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
apply_edit = b1.button("Apply & re-optimise", key="edit_apply", type="primary", icon=":material/refresh:",
                       width="stretch", on_click=iv.clear_error)
clear_edits = b2.button("Clear edits", key="edit_clear", width="stretch",
                        disabled=not st.session_state.get(iv.EDITS), on_click=iv.clear_error)
iv.show_error("edit")

if apply_edit or clear_edits:
    st.session_state.pop(iv.ERROR, None)
    base = st.session_state.get(iv.BASE_REQUEST) or request
    settings = get_settings()
    try:
        if clear_edits:
            new_result = run_with_progress(
                "Re-optimising without edits",
                lambda provider, progress: plan_itinerary(base, provider=provider, settings=settings,
                                                          progress=progress),
            )
            edits = []
        else:
            edit = iv.edit_from_form(action, st.session_state.get("edit_stop"), st.session_state.get("edit_day"),
                                     st.session_state.get("edit_time"))
            edits = [*st.session_state.get(iv.EDITS, []), edit]
            typed = TypeAdapter(list[UserEdit]).validate_python(edits)
            # The previous plan (with the original request) keeps unlocked stops on their day: a stable re-plan.
            previous = result.model_copy(update={"request": base})
            new_result = run_with_progress(
                "Re-optimising",
                lambda provider, progress: reoptimize(previous, typed, provider=provider, settings=settings,
                                                      progress=progress),
            )
    except (ValidationError, OmniError) as exc:
        fail(exc, "edit", base.model_dump(mode="json"))
        st.rerun()
    else:
        st.session_state[iv.RESULT] = new_result
        st.session_state[iv.EDITS] = edits
        st.rerun()

edits = st.session_state.get(iv.EDITS, [])
if edits:
    st.caption("Active edits (applied in order on top of the optimised trip; locks are hard constraints):")
    st.dataframe(iv.edits_frame(edits, names), key="edits_table", hide_index=True, width="stretch")
else:
    st.caption("No edits yet. Lock a stop to a day (and optionally a start time), move it, or remove it.")

# --- explanation and export ------------------------------------------------------------------------
with st.expander("Decision log 决策记录", expanded=False):
    iv.render_decision_log(result)
st.markdown("##### Export 导出")
iv.render_downloads(result)
