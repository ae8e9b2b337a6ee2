"""The itinerary page's form widgets, in one language (itinerary.po): the demo trips, the place table, the days, lunch
and pacing. They only draw and keep their values in the session; the request they make, its errors beside their
widgets and the notice of a changed form are components/itinerary/form.py's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

import streamlit as st

from components import choices as C
from components.itinerary.choices import ITINERARY
from components.itinerary.form import show_error
from components.itinerary.frames import selection_frame
from components.itinerary.state import (
    EDITOR_COLUMNS,
    LOADED_TRIP,
    MEAL_CHOICES,
    MODES,
    PACINGS,
    SELECTION,
    VIEW,
    _on_editor_change,
    cached_demo_trips,
    catalog_index,
    clear_selection,
    demo_name,
    hotels_of,
    included,
    load_demo_trip,
    place_label,
    refresh_view,
)
from components.itinerary.words import MODE_WORDS, PACING_WORDS, PRIORITY_WORDS, day_words
from components.services import settings
from core.errors import OmniError
from core.i18n import Lang, t
from core.models.common import PRIORITIES, TravelMode
from core.models.itinerary import MAX_TRIP_DAYS, Pacing


def render_demo_picker(lang: Lang) -> None:
    trips = cached_demo_trips()
    if not trips:
        st.caption(t("itinerary.demo.none", lang))
        return
    ids = list(trips)
    c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
    C.select(
        c1,
        ITINERARY,
        "trip_demo",
        t("itinerary.demo.label", lang),
        ids,
        format_func=lambda i: demo_name(i, trips[i], lang),
    )
    c2.button(
        t("itinerary.demo.load", lang),
        key="trip_load",
        on_click=load_demo_trip,
        width="stretch",
        icon=":material/download:",
    )
    loaded = st.session_state.get(LOADED_TRIP)
    if loaded in trips:
        st.caption(t("itinerary.demo.loaded", lang, name=demo_name(loaded, trips[loaded], lang)))


#: the place table's columns, what a person chooses first (a 1,400-px window cut the priority off at the right)
PLACES_KEY_COLUMNS = ["include", "name", "priority", "visit min", "fixed day", "meal"]
PLACES_COLUMN_ORDER = PLACES_KEY_COLUMNS + [c for c in EDITOR_COLUMNS if c not in PLACES_KEY_COLUMNS]
PLACE_NAME_PX = 240  # "上海博物馆(人民广场馆)", "Shanghai Museum (People's Square)"
PRIORITY_PX = 120  # "Nice to have" and the select's arrow


#: the meal column's choices → their words (itinerary.po)
MEAL_WORDS = {"none": "itinerary.places.meal.none", "lunch": "itinerary.meal.lunch", "dinner": "itinerary.meal.dinner"}


def _choice_column(name: str, choices: Sequence[str], words: Mapping[str, str], lang: Lang) -> Any:
    """A column of the place table whose cells are one of ``choices``, each shown in its words."""
    return st.column_config.SelectboxColumn(
        t(f"itinerary.places.col.{name}", lang),
        options=list(choices),
        required=True,
        format_func=lambda c: t(words[str(c)], lang) if str(c) in words else str(c),
        help=t(f"itinerary.places.help.{name}", lang),
        width=PRIORITY_PX,
    )


def _render_place_search(lang: Lang) -> None:
    c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
    c1.text_input(
        t("itinerary.places.search", lang),
        key="place_search",
        on_change=refresh_view,
        placeholder=t("itinerary.places.search_placeholder", lang),
        persist_state="session",
    )
    c2.toggle(
        t("itinerary.places.only_selected", lang),
        key="places_only_selected",
        on_change=refresh_view,
        persist_state="session",
    )


def render_place_picker(catalog: Sequence[Mapping[str, Any]], lang: Lang) -> None:
    """Search box + the editable place table (include, priority, visit minutes, fixed day, meal)."""
    _render_place_search(lang)
    if VIEW not in st.session_state:
        refresh_view()
    ids = [pid for pid in st.session_state[VIEW] if pid in catalog_index(catalog)]
    selection = st.session_state[SELECTION]
    frame = selection_frame(ids, catalog, selection, lang)
    st.data_editor(
        frame,
        key="places_editor",
        on_change=_on_editor_change,
        num_rows="fixed",
        hide_index=True,
        width="stretch",
        height=320,
        placeholder="",  # an empty cell stays empty (never "None")
        column_order=PLACES_COLUMN_ORDER,
        disabled=["name", "other name", "category", "opening hours"],
        column_config={
            "include": st.column_config.CheckboxColumn(t("itinerary.places.col.include", lang), width="small"),
            "name": st.column_config.TextColumn(t("itinerary.places.col.name", lang), width=PLACE_NAME_PX),
            "other name": st.column_config.TextColumn(t("itinerary.places.col.other_name", lang), width="medium"),
            "category": st.column_config.TextColumn(t("itinerary.places.col.category", lang), width="small"),
            "opening hours": st.column_config.TextColumn(
                t("itinerary.places.col.hours", lang), help=t("itinerary.places.help.hours", lang)
            ),
            "visit min": st.column_config.NumberColumn(
                t("itinerary.places.col.visit", lang),
                min_value=1,
                max_value=720,
                step=5,
                help=t("itinerary.places.help.visit", lang),
            ),
            "priority": _choice_column("priority", PRIORITIES, PRIORITY_WORDS, lang),
            "fixed day": st.column_config.NumberColumn(
                t("itinerary.places.col.fixed_day", lang),
                min_value=1,
                max_value=MAX_TRIP_DAYS,
                step=1,
                help=t("itinerary.places.help.fixed_day", lang),
            ),
            "meal": _choice_column("meal", MEAL_CHOICES, MEAL_WORDS, lang),
        },
    )
    chosen = included(selection)
    counts = {p: sum(1 for pid in chosen if selection[pid].get("priority") == p) for p in PRIORITIES}
    # "clear" sits under the table: above it, the table's toolbar (shown on hover) covered the button
    count, clear = st.columns([4, 1], vertical_alignment="center")
    clear.button(t("itinerary.places.clear", lang), key="places_clear", on_click=clear_selection, width="stretch")
    count.caption(
        t(
            "itinerary.places.count",
            lang,
            chosen=len(chosen),
            must=counts["must"],
            should=counts["should"],
            nice=counts["nice"],
            shown=len(ids),
            total=len(catalog),
        )
    )
    show_error("places")


def render_day_inputs(catalog: Sequence[Mapping[str, Any]], lang: Lang) -> None:
    index = catalog_index(catalog)
    hotels = hotels_of(catalog)
    current = ITINERARY.get().trip_hotel
    if current and current in index and current not in hotels:
        hotels = [current, *hotels]
    c1, c2, c3, c4, c5 = st.columns([2, 1, 1, 1, 3])
    c1.date_input(t("itinerary.days.start_date", lang), key="trip_start_date", persist_state="session")
    c2.number_input(
        t("itinerary.days.count", lang),
        key="trip_days",
        min_value=1,
        max_value=MAX_TRIP_DAYS,
        step=1,
        persist_state="session",
    )
    per_day = bool(st.session_state.get("per_day_hours"))
    c3.time_input(
        t("itinerary.days.day_start", lang),
        key="day_start",
        step=timedelta(minutes=15),
        disabled=per_day,
        persist_state="session",
    )
    c4.time_input(
        t("itinerary.days.day_end", lang),
        key="day_end",
        step=timedelta(minutes=15),
        disabled=per_day,
        persist_state="session",
    )
    C.select(
        c5,
        ITINERARY,
        "trip_hotel",
        t("itinerary.days.hotel", lang),
        hotels,
        format_func=lambda pid: place_label(index[pid], lang) if pid in index else pid,
        help=t("itinerary.days.hotel_help", lang),
    )
    st.checkbox(t("itinerary.days.per_day", lang), key="per_day_hours", persist_state="session")
    if st.session_state.get("per_day_hours"):
        n = int(st.session_state.get("trip_days") or 1)
        start_date = st.session_state.get("trip_start_date")
        cols = st.columns(min(n, 4))
        for i in range(n):
            st.session_state.setdefault(f"day_start_{i}", st.session_state.get("day_start"))
            st.session_state.setdefault(f"day_end_{i}", st.session_state.get("day_end"))
            label = t("itinerary.day.number", lang, n=i + 1)
            if isinstance(start_date, date):
                label = day_words(i, start_date + timedelta(days=i), lang)
            with cols[i % len(cols)]:
                st.caption(label)
                a, b = st.columns(2)
                a.time_input(
                    t("itinerary.days.starts", lang),
                    key=f"day_start_{i}",
                    step=timedelta(minutes=15),
                    persist_state="session",
                )
                b.time_input(
                    t("itinerary.days.ends", lang),
                    key=f"day_end_{i}",
                    step=timedelta(minutes=15),
                    persist_state="session",
                )
    show_error("days")


def render_lunch_and_pacing(lang: Lang) -> None:
    c1, c2, c3, c4 = st.columns([1, 1, 1, 1], vertical_alignment="bottom")
    c1.toggle(t("itinerary.lunch.enabled", lang), key="lunch_enabled", persist_state="session")
    on = bool(st.session_state.get("lunch_enabled"))
    c2.time_input(
        t("itinerary.lunch.from", lang),
        key="lunch_start",
        step=timedelta(minutes=15),
        disabled=not on,
        persist_state="session",
    )
    c3.time_input(
        t("itinerary.lunch.to", lang),
        key="lunch_end",
        step=timedelta(minutes=15),
        disabled=not on,
        persist_state="session",
    )
    c4.number_input(
        t("itinerary.lunch.minutes", lang),
        key="lunch_minutes",
        min_value=10,
        max_value=180,
        step=5,
        disabled=not on,
        persist_state="session",
    )
    long_visit = settings().itinerary_lunch_on_site_min_visit_min
    st.toggle(
        t("itinerary.lunch.on_site", lang, minutes=long_visit),
        key="lunch_on_site",
        disabled=not on or not long_visit,
        help=t("itinerary.lunch.on_site_help", lang),
        persist_state="session",
    )
    show_error("lunch")
    c5, c6 = st.columns([3, 2])
    C.value_widget(
        c5.select_slider,
        ITINERARY,
        "pacing",
        t("itinerary.pacing.label", lang),
        options=list(PACINGS),
        format_func=lambda p: t(PACING_WORDS[p], lang),
        help=t("itinerary.pacing.help", lang),
    )
    C.select(
        c6, ITINERARY, "trip_mode", t("itinerary.mode.label", lang), MODES, format_func=lambda m: t(MODE_WORDS[m], lang)
    )
    policy_caption(st.session_state.get("trip_mode") or "driving", st.session_state.get("pacing") or "normal", lang)


def policy_caption(mode: TravelMode, pacing: Pacing, lang: Lang) -> None:
    """What the pacing means, in words and numbers (from the settings)."""
    from core.app.itinerary import robustness_policy

    try:
        p = robustness_policy(mode, pacing, settings=settings())
    except (OmniError, ValueError, KeyError, TypeError):
        return
    st.caption(
        t(
            "itinerary.pacing.caption",
            lang,
            pacing=t(PACING_WORDS[pacing], lang) if pacing in PACING_WORDS else pacing,
            factor=f"{p.factor:g}",
            buffer=p.buffer_min,
            visit=f"{p.visit_factor:g}",
        )
    )
