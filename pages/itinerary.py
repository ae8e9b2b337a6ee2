"""Multi-day itinerary: pick places, set the days, optimise (core.itinerary.pipeline), edit and re-optimise, in the
user's language (locales/*/LC_MESSAGES/itinerary.po).

Thin page: inputs and panels live in components/itinerary/; the plan is made on a
button, kept in st.session_state and rendered from there. A plan that no longer matches the form says so; an edit
that pushes another place off the plan says which and why; a lock that cannot be kept is refused with the reason
(the plan on screen stays); "Undo last edit" restores the plan before the last edit.
"""

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import streamlit as st
from pydantic import TypeAdapter, ValidationError

from components import choices as C
from components.frame import provider_label, request_context
from components.itinerary import form, frames, inputs, panels, shape_panel, share, state, words
from components.itinerary.choices import ITINERARY
from components.itinerary.timeline import render_timeline
from components.language import current_lang, t
from components.legacy_pages import ensure_app_frame
from components.progress import Progress
from components.progress import run_with_progress as progress_run
from components.reservations import my_reservations
from core.app import RequestContext
from core.app.itinerary import EditOutcome, edit_itinerary
from core.errors import OmniError
from core.i18n import LANGS
from core.models.itinerary import TripRequest, UserEdit
from core.models.itinerary_result import ItineraryResult

ensure_app_frame()
lang = current_lang()
st.title(":material/calendar_month: " + t("itinerary.page.title", lang))
st.caption(t("itinerary.page.intro", lang))

region = state.current_region()
try:
    catalog = state.cached_catalog(region)
except (OmniError, ValueError, OSError):
    st.error(t("itinerary.page.region_unreadable", lang, region=region), icon=":material/error:")
    st.stop()
state.init_state(region, catalog, lang)
restored = share.restore_from_url()  # ?trip= (a shared link, a reload): the form, and its edits to re-apply
RESTORED = "it_restored"  # the restored edits handed to this run's plan_and_result (a rerun of it alone has none)

STAGES = {
    "prepare": "itinerary.progress.prepare",
    "optimise:per_day": "itinerary.progress.per_day",
    "optimise:multi_vehicle": "itinerary.progress.multi_vehicle",
    "timeline": "itinerary.progress.timeline",
    "explain": "itinerary.progress.explain",
    "critic": "itinerary.progress.critic",
    "done": "itinerary.progress.done",
}


#: what a planning step gives: a plan, or an edit's outcome (its plan in ``result``)
Planned = TypeVar("Planned", ItineraryResult, EditOutcome)


def run_with_progress(label: str, solve: Callable[[RequestContext, Progress], Planned]) -> Planned:
    """Run ``solve(ctx, progress)`` with this run's request context (the sidebar's provider) in the progress box."""
    ctx = request_context()
    return progress_run(
        t("itinerary.progress.with_provider", lang, label=label, provider=provider_label(ctx.provider_name, lang)),
        lambda progress: solve(ctx, progress),
        stages={stage: t(key, lang) for stage, key in STAGES.items()},
        done=lambda done: t("itinerary.progress.finished", lang, label=label, seconds=f"{_seconds(done):.1f}"),
    )


def _seconds(done: ItineraryResult | EditOutcome) -> float:
    """How long the planning took (an edit's: its new plan's)."""
    return (done.result if isinstance(done, EditOutcome) else done).seconds


def fail(exc: Exception, section: str | None = None, payload: Mapping[str, Any] | None = None) -> None:
    """Keep the error beside the widget it concerns and redraw; the inputs are untouched."""
    error = form.ERRORS.record(exc, section=section)
    error["labels"] = {code: form.field_label(error["field"], payload, catalog, lang=code) for code in LANGS}


# --- input ---------------------------------------------------------------------------------------
share.render_error(lang)
inputs.render_demo_picker(lang)
with st.container(border=True):
    st.markdown("##### " + t("itinerary.page.places", lang))
    inputs.render_place_picker(catalog, lang)
    st.markdown("##### " + t("itinerary.page.days", lang))
    inputs.render_day_inputs(catalog, lang)
    st.markdown("##### " + t("itinerary.page.lunch_pacing", lang))
    inputs.render_lunch_and_pacing(lang)


def optimise_section() -> None:
    """The Optimise button and its plan (a shared link's restored request is planned once, on the full run that read
    it: ``RESTORED``)."""
    restored = st.session_state.pop(RESTORED, None)
    optimise = st.button(
        t("itinerary.page.optimise", lang),
        key="optimise",
        type="primary",
        icon=":material/auto_awesome:",
        on_click=state.clear_error,
    )
    form.show_error("plan")
    if not (optimise or restored is not None):
        return
    st.session_state.pop(state.ERROR, None)
    request: TripRequest | None = None
    try:
        request = form.trip_request(st.session_state, st.session_state[state.SELECTION], catalog, region)
        planned = run_with_progress(
            t("itinerary.progress.optimising", lang),
            lambda ctx, progress: share.plan(request, restored, ctx=ctx, progress=progress),
        )
    except (ValidationError, OmniError) as exc:
        state.clear_result()  # the old plan goes: it does not answer this form
        # a rule met only when planning names its place by position (places.1.fixed_start): the request says which
        fail(exc, None, request.model_dump(mode="json") if request is not None else None)
        st.rerun()  # redraw with the message next to the input it concerns; inputs are kept
    else:
        st.session_state[state.BASE_REQUEST] = request
        st.session_state[state.RESULT] = planned
        st.session_state[state.EDITS] = list(restored or [])
        st.session_state[state.HISTORY] = []
        st.session_state.pop(state.EDIT_NOTE, None)
        ITINERARY.set(day_select=0)


def my_reservations_section() -> None:
    with st.expander(t("itinerary.page.my_reservations", lang), expanded=False, key="it_my_reservations"):
        my_reservations("it_my")


# --- result (rendered from state) ---------------------------------------------------------------
def apply_edit_now(clear_edits: bool) -> None:
    """Apply the edit form (or clear the edits) and re-plan, before the result is drawn: one script run per edit
    (the plan is not drawn twice, before and after it changes). A refused lock or bad input is kept as the edit
    section's error; the plan on screen stays."""
    result = st.session_state[state.RESULT]
    base = st.session_state.get(state.BASE_REQUEST) or result.request
    edit = None
    try:
        if clear_edits:
            edits: list[dict[str, Any]] = []
            label = t("itinerary.progress.without_edits", lang)
        else:
            chosen = ITINERARY.get()
            edit = form.edit_from_form(
                chosen.edit_action,
                chosen.edit_stop,
                chosen.edit_day,
                st.session_state.get("edit_time"),
            )
            edits = [*st.session_state.get(state.EDITS, []), edit]
            label = t("itinerary.progress.reoptimising", lang)
        typed = TypeAdapter(list[UserEdit]).validate_python(edits)
        outcome = run_with_progress(
            label, lambda ctx, progress: edit_itinerary(ctx, result, typed, base=base, progress=progress)
        )
    except (ValidationError, OmniError) as exc:
        fail(exc, "edit", base.model_dump(mode="json"))
        return
    new_result = outcome.result
    if outcome.status == "refused" and edit is not None:  # a lock that cannot be kept: say why, keep the plan
        new_names = words.names_of(new_result.request)
        said = {code: words.refused_lock_words(edit, new_result, new_names, code) for code in LANGS}
        st.session_state[state.ERROR] = {
            "code": "EDIT_REFUSED",
            "field": "edit_stop",
            "label": "",
            "section": "edit",
            "message": said["en"],
            "words": said,
        }
        return
    state.remember_for_undo()
    dropped = outcome.newly_dropped
    st.session_state[state.RESULT] = new_result
    st.session_state[state.EDITS] = edits
    shape_panel.remember_difference(outcome)  # what it changed, per day and overall
    if edit is not None and dropped:
        st.session_state[state.EDIT_NOTE] = {"edit": edit, "dropped": dropped}
    else:
        st.session_state.pop(state.EDIT_NOTE, None)


def apply_edits() -> None:
    """An edit, a clear, a reorder or an add to a day asked on this run, applied before the result is drawn; then the
    link follows the plan on screen (the address to copy)."""
    if st.session_state.get(state.RESULT) is not None and (
        st.session_state.get("edit_apply") or st.session_state.get("edit_clear")
    ):
        st.session_state.pop(state.ERROR, None)
        apply_edit_now(bool(st.session_state.get("edit_clear")))
    if st.session_state.get(state.RESULT) is not None and shape_panel.pending():  # a reorder or an add to a day
        shape_panel.apply_pending(catalog, run_with_progress, lang)
    share.render_link(lang)


def result_head(result: ItineraryResult, names: words.Names) -> list[str]:
    """The trip's title, a stale notice, its status, the last edit's note and difference, totals, quality and the
    balance of its days; the warnings the details still have to say."""
    st.divider()
    st.subheader(state.trip_title(result.trip_name, lang))
    stale = form.stale_message(
        st.session_state,
        st.session_state[state.SELECTION],
        catalog,
        region,
        st.session_state.get(state.BASE_REQUEST),
        lang=lang,
    )
    if stale:  # the form was edited after planning: say so rather than show it as the current plan
        with st.container(key="stale_result"):
            st.info(stale, icon=":material/update:")
    unknown_warnings = panels.render_status(result, names, lang)
    panels.render_edit_note(st.session_state.get(state.EDIT_NOTE), result, names, lang)
    shape_panel.render_difference(result, lang)
    panels.render_totals(result, lang)
    panels.render_quality(result, names, lang)
    panels.render_balance(result, names, lang)
    return unknown_warnings


@st.fragment
def day_panel() -> None:
    """The chosen day's chart, table and map (only that day's are drawn): choosing another day reruns only this
    part of the page."""
    result = st.session_state[state.RESULT]
    names = words.names_of(result.request)
    day_index = C.select(
        st,
        ITINERARY,
        "day_select",
        t("itinerary.page.day", lang),
        list(range(len(result.days))),
        format_func=lambda i: frames.day_option_label(result, i, lang),
        radio=True,
        horizontal=True,
    )
    left, right = st.columns([3, 2])
    with left:
        render_timeline(result.days[day_index], result, lang=lang, names=names)
    with right:
        panels.render_day_map(result, day_index, names, lang)
        panels.render_day_caption(result, day_index, lang)


def _follow_stop() -> None:
    """Choosing a stop preselects the day it is on."""
    stop = ITINERARY.get().edit_stop
    current = frames.stop_day(st.session_state[state.RESULT], stop) if stop is not None else None
    if current is not None:
        ITINERARY.set(edit_day=current)


def edit_controls(result: ItineraryResult, names: words.Names) -> None:
    """The stop, the action, its day and time, and Apply, Clear and Undo (applied by ``apply_edits`` on the run the
    click starts); then the reorder and the add to a day (shape_panel)."""
    st.markdown("##### " + t("itinerary.page.adjust", lang))
    where = frames.stop_whereabouts(result, lang)
    stop_keys = [p.key for p in result.request.places]
    c1, c2, c3, c4 = st.columns([3, 5, 2, 2], vertical_alignment="bottom")
    edit_stop = C.select(
        c1,
        ITINERARY,
        "edit_stop",
        t("itinerary.edit.stop", lang),
        stop_keys,
        on_change=_follow_stop,
        format_func=lambda k: t("itinerary.edit.stop_option", lang, place=names.shown(k, lang), where=where.get(k, "")),
    )
    action = C.select(
        c2,
        ITINERARY,
        "edit_action",
        t("itinerary.edit.action", lang),
        state.EDIT_ACTIONS,
        format_func=lambda a: t(words.ACTION_WORDS[a], lang),
        radio=True,
        horizontal=True,
    )
    C.select(
        c3,
        ITINERARY,
        "edit_day",
        t("itinerary.edit.day", lang),
        list(range(len(result.days))),
        default=frames.stop_day(result, edit_stop) or 0,
        format_func=lambda i: words.day_words(i, result.days[i].date, lang),
        disabled=action in {"remove", "unlock"},
    )
    c4.time_input(
        t("itinerary.edit.time", lang), key="edit_time", value=None, disabled=action != "lock", persist_state="session"
    )
    edit_buttons()
    form.show_error("edit")
    shape_panel.render(result, catalog, lang, form.show_error)


def edit_buttons() -> None:
    b1, b2, b3, _ = st.columns([2, 2, 2, 2])
    b1.button(  # applied before the result is drawn (apply_edits)
        t("itinerary.edit.apply", lang),
        key="edit_apply",
        type="primary",
        icon=":material/refresh:",
        width="stretch",
        on_click=state.clear_error,
    )
    b2.button(
        t("itinerary.edit.clear", lang),
        key="edit_clear",
        width="stretch",
        disabled=not st.session_state.get(state.EDITS),
        on_click=state.clear_error,
    )
    b3.button(
        t("itinerary.edit.undo", lang),
        key="edit_undo",
        icon=":material/undo:",
        width="stretch",
        disabled=not st.session_state.get(state.HISTORY),
        on_click=state.undo_last_edit,
    )


def edits_table(names: words.Names) -> None:
    edits = st.session_state.get(state.EDITS, [])
    if not edits:
        st.caption(t("itinerary.edit.none", lang))
        return
    st.caption(t("itinerary.edit.active", lang))
    with st.container(key="edits_table"):  # .st-key-edits_table: the browser bench waits for it
        st.dataframe(
            frames.edits_frame(edits, names, lang),
            key="edits_frame",
            hide_index=True,
            placeholder="",
            width="stretch",
            column_config={
                "#": st.column_config.NumberColumn("#", width="small"),
                "action": st.column_config.TextColumn(t("itinerary.edit.col.action", lang)),
                "place": st.column_config.TextColumn(t("itinerary.edit.col.place", lang), width="large"),
                "day": st.column_config.TextColumn(t("itinerary.edit.col.day", lang)),
                "start time": st.column_config.TextColumn(t("itinerary.edit.col.time", lang)),
            },
        )


@st.fragment
def plan_and_result() -> None:
    """Optimise, the edits and the result (issue 32): a click on Optimise, Apply, Clear, Undo, a reorder or an add
    reruns this part only (the form above is not drawn again); a change in the form reruns the page.

    Everything above the day panel is in one container: a progress box, an error, the edit's note or its
    difference come and go inside it without moving the day panel, so the browser keeps the day map's frame
    (Leaflet loaded, the base drawn) and only takes in the day's new pins."""
    with st.container():
        optimise_section()
        my_reservations_section()
        apply_edits()
        shown: ItineraryResult | None = st.session_state.get(state.RESULT)
        if shown is None:
            st.info(t("itinerary.page.empty", lang), icon=":material/lightbulb:")
            return
        result = shown
        names = words.names_of(result.request)
        unknown_warnings = result_head(result, names)
    day_panel()
    st.markdown("##### " + t("itinerary.page.reserve", lang))
    panels.render_reservations(result, names, lang)
    st.markdown("##### " + t("itinerary.page.dropped", lang))
    panels.render_dropped(result, names, lang)
    edit_controls(result, names)
    edits_table(names)
    st.markdown("##### " + t("itinerary.page.export", lang))
    panels.render_downloads(result, names, lang)
    panels.render_details(result, unknown_warnings, lang)


st.session_state[RESTORED] = restored  # planned by this run's plan_and_result; a rerun of it alone plans nothing
plan_and_result()
