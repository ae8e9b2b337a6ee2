"""The itinerary page's result panels, in one language (itinerary.po): status and warnings, totals, the check and
the robustness, the day map, the places not on the plan, what the last edit did, the downloads, and one collapsed
"Details" section with the codes, formulas, ids and the decision log (rendered from the ItineraryResult in
session state)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from components.itinerary.frames import (
    decision_log_frame,
    dropped_details_frame,
    dropped_frame,
    file_stem,
    variants_frame,
    violations_details_frame,
    violations_frame,
)
from components.itinerary.state import MAP_FRAME, trip_title
from components.itinerary.timeline import entry_name
from components.itinerary.words import (
    MODE_WORDS,
    PACING_WORDS,
    Names,
    balance_moved_words,
    balance_words,
    day_words,
    details_lines,
    dropped_by_edit_words,
    itinerary_warning_words,
    status_words,
    travel_source_words,
)
from components.services import request_clock
from core.i18n import Lang, t
from core.models.itinerary_result import ItineraryResult


def render_status(result: ItineraryResult, names: Names, lang: Lang) -> list[str]:
    """The plan's status and its warnings in words; returns the warnings whose shape is not known (for the
    Details)."""
    sentence = status_words(result, names, lang)
    if result.status == "ready":
        st.success(sentence, icon=":material/check_circle:")
    else:
        st.warning(sentence, icon=":material/warning:")
    unknown = []
    for warning in result.warnings:
        words, known = itinerary_warning_words(warning, names, lang)
        st.warning(words, icon=":material/info:")
        if not known:
            unknown.append(warning)
    return unknown


def render_edit_note(note: Mapping[str, Any] | None, result: ItineraryResult, names: Names, lang: Lang) -> None:
    """What the last edit did to other places ("Locking X to day 3 left out Y: why")."""
    if not note or not note.get("dropped"):
        return
    with st.container(key="edit_note"):
        st.warning(
            dropped_by_edit_words(note["edit"], note["dropped"], result, names, lang), icon=":material/swap_horiz:"
        )


def render_totals(result: ItineraryResult, lang: Lang) -> None:
    totals = result.totals
    p = result.policy
    source = travel_source_words(result.matrix_source, lang)
    # one wrapping row of metrics each as wide as its words: seven equal columns cut "27.4 公里" to "27.4 …"
    row = st.container(horizontal=True, gap="medium", key="itinerary_totals")
    row.metric(
        t("itinerary.totals.visits", lang),
        f"{totals.visits} / {totals.places_requested}",
        help=t("itinerary.totals.visits_help", lang),
        width="content",
    )
    row.metric(
        t("itinerary.totals.dropped", lang),
        totals.dropped,
        help=t("itinerary.totals.dropped_help", lang, musts=totals.must_dropped),
        width="content",
    )
    row.metric(
        t("itinerary.totals.visiting", lang),
        t("itinerary.unit.hours", lang, hours=f"{totals.visit_min / 60:.1f}"),
        help=t("itinerary.totals.visiting_help", lang, pacing=t(PACING_WORDS[result.pacing], lang)),
        width="content",
    )
    row.metric(
        t("itinerary.totals.travel_planned", lang),
        t("itinerary.unit.minutes", lang, minutes=totals.travel_robust_min),
        help=t("itinerary.totals.travel_planned_help", lang, factor=f"{p.factor:g}", buffer=p.buffer_min),
        width="content",
    )
    row.metric(
        t("itinerary.totals.travel_estimate", lang),
        t("itinerary.unit.minutes", lang, minutes=f"{totals.travel_nominal_min:.0f}"),
        help=t("itinerary.totals.source_help", lang, source=source),
        width="content",
    )
    row.metric(
        t("itinerary.totals.waiting", lang),
        t("itinerary.unit.minutes", lang, minutes=totals.wait_min),
        help=t("itinerary.totals.waiting_help", lang, lunch=totals.lunch_min),
        width="content",
    )
    row.metric(
        t("itinerary.totals.distance", lang),
        t("itinerary.unit.km", lang, km=f"{totals.distance_m / 1000:.1f}"),
        help=t("itinerary.totals.source_help", lang, source=source),
        width="content",
    )
    st.caption(
        t(
            "itinerary.totals.caption",
            lang,
            source=source,
            mode=t(MODE_WORDS[result.mode], lang),
            pacing=t(PACING_WORDS[result.pacing], lang),
            lunch=totals.lunch_min,
        )
    )


def render_quality(result: ItineraryResult, names: Names, lang: Lang) -> None:
    """The independent check's verdict and the robustness score, in words (the definitions are in the Details)."""
    c1, c2 = st.columns(2)
    with c1.container(border=True, key="critic_box"):
        critic = result.critic
        if critic is None:
            st.markdown(t("itinerary.critic.not_run", lang))
        elif critic.passed:
            st.markdown(t("itinerary.critic.passed", lang, n=len(critic.checks)))
        else:
            st.markdown(t("itinerary.critic.failed", lang, n=len(critic.violations)))
            headers = {
                "day": t("itinerary.critic.col.day", lang),
                "place": t("itinerary.critic.col.place", lang),
                "problem": t("itinerary.critic.col.problem", lang),
            }
            st.table(violations_frame(result, names, lang).rename(columns=headers), hide_index=True)
    with c2.container(border=True, key="robustness_box"):
        r = result.robustness
        st.markdown(t("itinerary.robustness.score", lang, score=f"{r.score:.2f}"))
        if r.legs and r.min_slack_min is not None:
            st.caption(
                t(
                    "itinerary.robustness.caption",
                    lang,
                    covered=r.legs_fully_covered,
                    legs=r.legs,
                    percent=f"{r.tolerance:.0%}",
                    least=r.min_slack_min,
                    mean=f"{r.mean_slack_min or 0:.0f}",
                )
            )
        else:
            st.caption(t("itinerary.robustness.no_legs", lang))


def render_balance(result: ItineraryResult, names: Names, lang: Lang) -> None:
    """Beside the days: why they stay uneven (a sentence per reason), or that places were moved to even them."""
    said = balance_words(result, names, lang)
    if said:
        with st.container(key="balance_box"):
            st.info("\n\n".join(said), icon=":material/balance:")
        return
    moved = balance_moved_words(result, lang)
    if moved:
        st.caption(moved)


def render_day_caption(result: ItineraryResult, day_index: int, lang: Lang) -> None:
    day = result.days[day_index]
    totals = day.totals
    st.caption(
        t(
            "itinerary.day.caption",
            lang,
            day=day_words(day_index, day.date, lang),
            visits=totals.visits,
            visit=totals.visit_min,
            travel=totals.travel_robust_min,
            estimate=f"{totals.travel_nominal_min:.0f}",
            km=f"{totals.distance_m / 1000:.1f}",
            wait=totals.wait_min,
            lunch=totals.lunch_min,
            start=f"{day.day_start:%H:%M}",
            end=f"{day.day_end:%H:%M}",
        )
    )


def render_day_map(result: ItineraryResult, day_index: int, names: Names, lang: Lang) -> None:
    """The day's map: a base drawn once for the trip (kept by the browser across edits and days while its box
    holds the plan), and the day's line and pins sent to it as layers (issue 32: an edit does not load a new map)."""
    import folium
    from streamlit_folium import st_folium

    from components.itinerary import day_map
    from components.maps import _base_url_path

    base_url_path = _base_url_path()
    frame = day_map.trip_frame(result, st.session_state.get(MAP_FRAME))
    st.session_state[MAP_FRAME] = frame
    m = day_map.build_day_base(
        frame,
        base_url_path=base_url_path,
        region=result.request.region,
        provider=st.session_state.get("active_provider"),
        lang=lang,
    )
    layers = day_map.build_day_layers(m, result.days[day_index], names=names, lang=lang, base_url_path=base_url_path)
    with st.container(key="day_map_box"):
        st_folium(
            m,
            key="day_map",
            height=460,
            use_container_width=True,
            returned_objects=[],
            feature_group_to_add=layers,
            layer_control=folium.LayerControl(collapsed=True),
        )
    st.caption(t("itinerary.map.caption", lang))


def render_dropped(result: ItineraryResult, names: Names, lang: Lang) -> None:
    frame = dropped_frame(result, names, lang)
    if frame.empty:
        st.success(t("itinerary.dropped.none", lang), icon=":material/done_all:")
        return
    headers = {
        "place": t("itinerary.dropped.col.place", lang),
        "other name": t("itinerary.dropped.col.other_name", lang),
        "priority": t("itinerary.dropped.col.priority", lang),
        "why": t("itinerary.dropped.col.why", lang),
        "fix": t("itinerary.dropped.col.fix", lang),
    }
    with st.container(key="dropped_box"):  # .st-key-dropped_box in the page (browser tests)
        # a static table: the reasons and fixes wrap and are never cut off
        st.table(frame.rename(columns=headers), hide_index=True)
    st.caption(t("itinerary.dropped.caption", lang))


def render_details(result: ItineraryResult, unknown_warnings: list[str], lang: Lang) -> None:
    """The figures said in words ("Details", collapsed), then one collapsed "raw data (for debugging)" section with
    what analysts read: codes, formulas, ids, the solver, the decision log. The page says what they mean in words
    above it."""
    with st.expander(t("common.details", lang), expanded=False, key="it_words"):
        st.markdown("  \n".join(details_lines(result, lang)))  # the figures below, said in words
    _raw_details(result, unknown_warnings, lang)


@st.fragment
def _raw_details(result: ItineraryResult, unknown_warnings: list[str], lang: Lang) -> None:
    """The raw data is drawn only while its section is open (issue 32): its tables and captions are not sent, nor
    drawn by the browser, on every plan and edit that nobody reads them for. Opening it reruns this part alone."""
    box = st.expander(
        t("common.debug", lang), expanded=False, key="it_details", icon=":material/bug_report:", on_change="rerun"
    )
    if box.open:
        with box:
            _raw_details_body(result, unknown_warnings)


def _raw_details_body(result: ItineraryResult, unknown_warnings: list[str]) -> None:
    p = result.policy
    r = result.robustness
    st.caption(
        f"status={result.status} · error_code={result.error_code or '-'} · variant={result.variant} · "
        f"solved in {result.seconds:.2f} s · matrix_source={result.matrix_source} · mode={result.mode} · "
        f"pacing={result.pacing} · timezone={result.timezone}"
    )
    st.caption(
        f"robust_min = ceil(nominal_min × {p.factor:g} + {p.buffer_min}) · visit × {p.visit_factor:g} "
        f"(policy source: {p.source})"
    )
    st.caption(
        f"robustness: {r.definition}; tolerance {r.tolerance:g}; {r.legs_fully_covered}/{r.legs} legs; "
        f"min slack {r.min_slack_min} min; mean {r.mean_slack_min} min"
    )
    if result.critic is not None:
        st.caption("critic checks: " + ", ".join(result.critic.checks))
        if result.critic.violations:
            st.dataframe(violations_details_frame(result), key="critic_details_table", hide_index=True)
    for warning in result.warnings:
        st.caption(("⚠ " if warning in unknown_warnings else "") + warning)
    if result.balance is not None:
        b = result.balance
        loads = "; ".join(f"day {d.day_index}: {d.visits} visits, {d.busy_min}/{d.free_min} min" for d in b.days)
        st.caption(
            f"balance: balanced={b.balanced} · visit spread {b.visit_spread} (≤ {b.max_visit_spread}) · "
            f"busy spread {b.busy_spread_min} min · moves {b.moves} "
            f"(+{b.extra_travel_min} robust travel min) · {loads}"
        )
        for reason in b.reasons:
            st.caption(
                f"balance reason {reason.code}: day {reason.heavy_day} → day {reason.light_day} · "
                f"keys={reason.keys} · {reason.facts}"
            )
    if result.dropped_items:
        st.dataframe(dropped_details_frame(result), key="dropped_details_table", hide_index=True, width="stretch")
    st.dataframe(
        decision_log_frame(result),
        key="decision_log_table",
        hide_index=True,
        width="stretch",
        column_config={"facts": st.column_config.TextColumn("facts", width="large")},
    )
    if result.variants:
        st.caption("variants (fewest must dropped, then least dropped penalty, then least travel + wait):")
        st.dataframe(variants_frame(result), key="variants_table", hide_index=True, width="stretch")


def worded_result(result: ItineraryResult, names: Names, lang: Lang) -> ItineraryResult:
    """A copy of the result whose trip and entries are named in ``lang`` (for the calendar file)."""
    days = [
        day.model_copy(
            update={
                "entries": [
                    e.model_copy(update={"name": entry_name(day, i, names, lang)}) for i, e in enumerate(day.entries)
                ]
            }
        )
        for day in result.days
    ]
    return result.model_copy(update={"days": days, "trip_name": trip_title(result.trip_name, lang)})


def render_downloads(result: ItineraryResult, names: Names, lang: Lang) -> None:
    """The plan as data (JSON, the result as the planner made it) and as a calendar in ``lang`` (ICS)."""
    from core.app import itinerary as itinerary_app

    stem = file_stem(result.model_copy(update={"trip_name": trip_title(result.trip_name, lang)}))

    def json_text() -> str:
        return result.model_dump_json(indent=2)

    def ics_text() -> str:
        worded = worded_result(result, names, lang)
        return itinerary_app.ics(worded, generated_at=request_clock()(), lang=lang)

    # The files are made when clicked (a callable, kept for the session), not made for every new plan and stored
    # as media files on every run: a static file was dropped when a run that did not reach this button ended (an
    # edit's rerun), and the button still on screen then answered 404 (issue 12 §5). "ignore": no rerun.
    c1, c2 = st.columns(2)
    c1.download_button(
        t("itinerary.download.json", lang),
        data=json_text,
        on_click="ignore",
        file_name=f"{stem}.json",
        mime="application/json",
        key="it_dl_json",
        icon=":material/data_object:",
        width="stretch",
    )
    c2.download_button(
        t("itinerary.download.ics", lang),
        data=ics_text,
        on_click="ignore",
        file_name=f"{stem}.ics",
        mime="text/calendar",
        key="it_dl_ics",
        icon=":material/calendar_month:",
        width="stretch",
    )
    st.caption(t("itinerary.download.caption", lang))


def render_reservations(
    result: ItineraryResult, names: Names, lang: Lang, *, key_prefix: str = "it_res", party_size: int = 2
) -> None:
    """ "Reserve" on every planned visit whose pack place takes bookings: the trip's date and the planned arrival
    rounded up to the venue's next slot (the earliest bookable slot once that has passed)."""
    from zoneinfo import ZoneInfo

    from components import reservations

    region = result.request.region
    service = reservations.service_for(region)
    place_ids = {p.key: p.place_id for p in result.request.places}
    zone = ZoneInfo(result.timezone)
    offers = []
    for day in result.days:
        for entry in day.entries:
            place_id = place_ids.get(entry.key or "")
            if entry.kind != "visit" or entry.continues_visit or not place_id:
                continue
            arrival = entry.arrival.astimezone(zone) if entry.arrival.tzinfo else entry.arrival
            offer = reservations.offer_for(
                service,
                place_id,
                key=f"d{day.day_index}_{entry.key}",
                label=t(
                    "itinerary.reserve.offer",
                    lang,
                    day=day_words(day.day_index, day.date, lang),
                    time=f"{arrival:%H:%M}",
                    place=names.shown(entry.key, lang, entry.name),
                ),
                day=day.date,
                at=arrival.time(),
            )
            if offer is not None:
                offers.append(offer)
    reservations.render_offers(offers, key_prefix=key_prefix, party_size=party_size, region=region)
