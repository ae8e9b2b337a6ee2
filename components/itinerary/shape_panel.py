"""The itinerary's shaping controls (issue 32, X8): put a stop at a position of a day, add a catalogue place to a
chosen day; and what the last edit changed, per day and overall, in the user's language.

The edits run on the plan on screen (``core.app.itinerary.edit_itinerary``, which lays the day out again rather than
solving again), on top of the edits before them; a refusal says the constraint it breaks and the plan stays. Widgets
keep their values across page switches (``persist_state="session"``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import streamlit as st
from pydantic import TypeAdapter, ValidationError

from components.itinerary import state
from components.itinerary.words import Names, catalog_name, day_short, day_words, edit_words, names_of
from components.session import StateView
from core.app.itinerary import EditOutcome, edit_itinerary
from core.errors import InputError, OmniError
from core.i18n import LANGS, Lang, join_words, t
from core.models.itinerary import UserEdit
from core.models.itinerary_edit import Measure, PlanDifference, ShapeRefusal
from core.models.itinerary_result import ItineraryResult
from core.words.itinerary import MEAL_KEYS

DIFFERENCE = "it_difference"  # {"result": id of the plan it leads to, "difference": PlanDifference}
SECTION = "shape"
REORDER, ADD = "shape_reorder", "shape_add"  # the buttons' keys
#: a run of the page's planning step with its progress box: (label, solve(ctx, progress)) → the outcome
Runner = Callable[[str, Callable[[Any, Any], EditOutcome]], EditOutcome]


def visit_orders(result: ItineraryResult) -> list[list[str]]:
    """Each day's visits in order (a visit split by a lunch on site once)."""
    return [[e.key for e in d.entries if e.kind == "visit" and e.key and e.part != 2] for d in result.days]


def addable_places(result: ItineraryResult, catalog: Sequence[Mapping[str, Any]]) -> list[str]:
    """Catalogue places not on the plan (hotels left out): what can be added to a day."""
    planned = {k for order in visit_orders(result) for k in order}
    return [str(p["id"]) for p in catalog if p["id"] not in planned and p.get("category") not in state.HOTEL_CATEGORIES]


# --- the edit from the controls ------------------------------------------------------------------------------------


def pending() -> str | None:
    """Which shaping button this run answers (None: neither)."""
    return next((kind for kind in (REORDER, ADD) if st.session_state.get(kind)), None)


def edit_from_controls(kind: str, values: StateView) -> dict[str, Any]:
    """A UserEdit dict from the controls' values (positions are shown from 1, kept from 0)."""
    if kind == REORDER:
        if not values.get("shape_stop"):
            raise InputError("choose a stop to put in place", field="shape_stop")
        return {
            "kind": "reorder",
            "key": values["shape_stop"],
            "day_index": int(values.get("shape_day") or 0),
            "position": max(1, int(values.get("shape_position") or 1)) - 1,
        }
    if not values.get("shape_place"):
        raise InputError("choose a place to add", field="shape_place")
    edit: dict[str, Any] = {
        "kind": "add",
        "place": {"place_id": values["shape_place"]},
        "day_index": int(values.get("shape_add_day") or 0),
    }
    if values.get("shape_add_position"):
        edit["position"] = max(1, int(values["shape_add_position"])) - 1
    return edit


def apply_pending(catalog: Sequence[Mapping[str, Any]], run: Runner, lang: Lang) -> None:
    """Make the pressed shaping edit on the plan on screen, before the result is drawn; a refusal or bad input is
    kept as the panel's error (worded in both languages) and the plan on screen stays."""
    kind = pending()
    result: ItineraryResult | None = st.session_state.get(state.RESULT)
    if kind is None or result is None:
        return
    base = st.session_state.get(state.BASE_REQUEST) or result.request
    try:
        edit = edit_from_controls(kind, st.session_state)
        edits = [*st.session_state.get(state.EDITS, []), edit]
        typed = TypeAdapter(list[UserEdit]).validate_python(edits)
        outcome = run(
            t("itinerary.progress.reoptimising", lang),
            lambda ctx, progress: edit_itinerary(ctx, result, typed, base=base, progress=progress),
        )
    except (ValidationError, OmniError) as exc:
        message = getattr(exc, "message", str(exc))
        said = {code: t("itinerary.shape.error", code) for code in LANGS}
        _keep_error("INVALID_INPUT", message, said)
        return
    if outcome.status == "refused":
        names = _names_with_catalog(result, catalog)
        said = {code: refusal_words(edit, outcome.conflict, result, names, code) for code in LANGS}
        _keep_error("EDIT_REFUSED", said["en"], said)
        return
    state.remember_for_undo()
    st.session_state[state.RESULT] = outcome.result
    st.session_state[state.EDITS] = edits
    st.session_state.pop(state.EDIT_NOTE, None)
    remember_difference(outcome)


def remember_difference(outcome: EditOutcome) -> None:
    """Keep the difference an applied edit made, for the plan it led to (shown while that plan is on screen)."""
    if outcome.status == "applied" and outcome.difference is not None:
        st.session_state[DIFFERENCE] = {"result": id(outcome.result), "difference": outcome.difference}


def _keep_error(code: str, message: str, said: Mapping[Lang, str]) -> None:
    field = "shape_stop" if st.session_state.get(REORDER) else "shape_place"
    st.session_state[state.ERROR] = {
        "code": code,
        "field": field,
        "label": "",
        "section": SECTION,
        "message": message,
        "words": dict(said),
    }


def _names_with_catalog(result: ItineraryResult, catalog: Sequence[Mapping[str, Any]]) -> Names:
    """The plan's names, and the catalogue's for places not (yet) in the trip."""
    names = names_of(result.request)
    table = dict(names.table)
    for place in catalog:
        table.setdefault(str(place["id"]), (str(place.get("name_zh") or ""), str(place.get("name_en") or "")))
    return Names(table, names.typed)


# --- words ---------------------------------------------------------------------------------------------------------


def refusal_words(
    edit: Mapping[str, Any], conflict: ShapeRefusal | None, result: ItineraryResult, names: Names, lang: Lang
) -> str:
    """``Putting X at position 1 of day 2 is not possible: <the constraint>. The plan is unchanged.``"""
    if conflict is None:  # a shaping refusal always names its constraint; this is defensive
        return t("itinerary.shape.error", lang)
    why = conflict_words(conflict, result, names, lang)
    return t("itinerary.edit.refused", lang, edit=edit_words(edit, names, lang), why=why)


CONFLICT_WORDS = {
    "CLOSED_ON_DAY": "itinerary.shape.why.closed_on_day",
    "OUTSIDE_OPENING_HOURS": "itinerary.shape.why.outside_opening_hours",
    "LOCKED_TIME": "itinerary.shape.why.locked_time",
    "LUNCH_WINDOW": "itinerary.shape.why.lunch_window",
    "LUNCH_TAKEN": "itinerary.shape.why.lunch_taken",
    "MEAL_TIME": "itinerary.shape.why.meal_time",
    "PAST_DAY_END": "itinerary.shape.why.past_day_end",
    "BEFORE_DAY_START": "itinerary.shape.why.before_day_start",
    "DAY_TOO_FULL": "itinerary.shape.why.day_too_full",
}


def conflict_words(conflict: ShapeRefusal, result: ItineraryResult, names: Names, lang: Lang) -> str:
    """The constraint an edit breaks, in a sentence: the place, the day and the times it concerns."""
    facts = conflict.facts
    key = CONFLICT_WORDS[conflict.code]
    if conflict.code == "OUTSIDE_OPENING_HOURS" and not facts.get("arrival"):
        key = "itinerary.shape.why.outside_opening_hours_start"
    if conflict.code == "PAST_DAY_END" and not facts.get("finish"):
        key = "itinerary.shape.why.past_day_end_start"
    if conflict.code == "MEAL_TIME" and not facts.get("arrival"):
        key = "itinerary.shape.why.meal_time_day"
    return t(
        key,
        lang,
        place=names.shown(conflict.key, lang),
        day=day_short(conflict.day_index, result, lang),
        hours=str(facts.get("open_hours") or "").replace("-", "–"),
        arrival=facts.get("arrival", ""),
        start=facts.get("start", ""),
        finish=facts.get("finish", ""),
        day_start=facts.get("day_start", ""),
        day_end=facts.get("day_end", ""),
        lunch=facts.get("lunch_min", ""),
        window=f"{facts.get('window_start', '')}–{facts.get('window_end', '')}",
        meal=t(MEAL_KEYS[meal], lang) if (meal := str(facts.get("meal") or "")) in MEAL_KEYS else "",
        meal_window=str(facts.get("meal_window") or "").replace("-", "–"),
        lunch_place=names.shown(str(facts["lunch_key"]), lang) if facts.get("lunch_key") else "",
    )


def _measure_words(key: str, before: Measure, after: Measure, lang: Lang, **extra: str) -> str:
    return t(
        key,
        lang,
        travel=after.travel_min,
        travel_delta=f"{after.travel_min - before.travel_min:+d}",
        km=f"{after.distance_m / 1000:.1f}",
        km_delta=f"{(after.distance_m - before.distance_m) / 1000:+.1f}",
        stops=after.stops,
        stops_delta=f"{after.stops - before.stops:+d}",
        **extra,
    )


def difference_words(difference: PlanDifference, result: ItineraryResult, lang: Lang) -> list[str]:
    """What the last edit changed: the whole trip first, then each day it changed (travel minutes, km, stops, each
    with its change); the days it left alone are said in one line."""
    lines = [_measure_words("itinerary.shape.diff.total", difference.before, difference.after, lang)]
    same = []
    for d in difference.days:
        if d.changed:
            day = day_short(d.day_index, result, lang)
            lines.append(_measure_words("itinerary.shape.diff.day", d.before, d.after, lang, day=day))
        else:
            same.append(day_short(d.day_index, result, lang))
    if same:
        lines.append(t("itinerary.shape.diff.same", lang, days=join_words(same, lang)))
    return lines


# --- drawing -------------------------------------------------------------------------------------------------------


def render_difference(result: ItineraryResult, lang: Lang) -> None:
    """The last edit's difference while its plan is on screen (an undo or a new plan hides it)."""
    kept = st.session_state.get(DIFFERENCE)
    if not kept or kept.get("result") != id(result):
        return
    lines = difference_words(kept["difference"], result, lang)
    with st.container(key="edit_difference"):
        st.info("  \n".join(lines), icon=":material/compare_arrows:")


def render(
    result: ItineraryResult, catalog: Sequence[Mapping[str, Any]], lang: Lang, show_error: Callable[[str], None]
) -> None:
    """The two shaping rows: a stop to a position of a day; a catalogue place to a day (at a position, or where it
    costs least)."""
    st.markdown("###### " + t("itinerary.shape.title", lang))
    st.caption(t("itinerary.shape.intro", lang))
    longest = max((len(o) for o in visit_orders(result)), default=0)
    _render_reorder(result, _names_with_catalog(result, catalog), longest, lang)
    _render_add(result, catalog, longest, lang)
    show_error(SECTION)


def _day_label(result: ItineraryResult, lang: Lang) -> Callable[[int], str]:
    return lambda i: day_words(i, result.days[i].date, lang)


def _render_reorder(result: ItineraryResult, names: Names, longest: int, lang: Lang) -> None:
    days = list(range(len(result.days)))
    where = {k: (d, i) for d, order in enumerate(visit_orders(result)) for i, k in enumerate(order)}
    day_label = _day_label(result, lang)
    c1, c2, c3, c4 = st.columns([4, 3, 2, 2], vertical_alignment="bottom")
    c1.selectbox(
        t("itinerary.shape.stop", lang),
        list(where),
        key="shape_stop",
        persist_state="session",
        format_func=lambda k: t(
            "itinerary.shape.stop_option",
            lang,
            place=names.shown(k, lang),
            day=where[k][0] + 1,
            position=where[k][1] + 1,
        ),
    )
    c2.selectbox(t("itinerary.shape.day", lang), days, key="shape_day", persist_state="session", format_func=day_label)
    c3.number_input(
        t("itinerary.shape.position", lang),
        min_value=1,
        max_value=longest + 1,
        step=1,
        value=1,
        key="shape_position",
        persist_state="session",
    )
    c4.button(
        t("itinerary.shape.reorder", lang),
        key=REORDER,
        icon=":material/swap_vert:",
        width="stretch",
        disabled=not where,
        on_click=state.clear_error,
    )


def _render_add(result: ItineraryResult, catalog: Sequence[Mapping[str, Any]], longest: int, lang: Lang) -> None:
    days = list(range(len(result.days)))
    day_label = _day_label(result, lang)
    addable = addable_places(result, catalog)
    by_id = {str(p["id"]): p for p in catalog}
    a1, a2, a3, a4 = st.columns([4, 3, 2, 2], vertical_alignment="bottom")
    a1.selectbox(
        t("itinerary.shape.place", lang),
        addable,
        key="shape_place",
        persist_state="session",
        index=None,
        placeholder=t("itinerary.shape.place_placeholder", lang),
        format_func=lambda k: catalog_name(by_id[k], lang).shown if k in by_id else k,
    )
    a2.selectbox(
        t("itinerary.shape.day", lang), days, key="shape_add_day", persist_state="session", format_func=day_label
    )
    a3.number_input(
        t("itinerary.shape.position", lang),
        min_value=1,
        max_value=longest + 1,
        step=1,
        value=None,
        placeholder=t("itinerary.shape.position_best", lang),
        key="shape_add_position",
        persist_state="session",
    )
    a4.button(
        t("itinerary.shape.add", lang),
        key=ADD,
        icon=":material/add_location_alt:",
        width="stretch",
        disabled=not addable,
        on_click=state.clear_error,
    )
