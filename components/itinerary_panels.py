"""The itinerary page's result panels: status, totals, the critic and robustness, the day map, dropped places,
the decision log and the downloads (rendered from the ItineraryResult in session state)."""

from __future__ import annotations

import streamlit as st

from components.itinerary_frames import decision_log_frame, dropped_frame, file_stem, variants_frame, violations_frame
from core.models.itinerary_result import ItineraryResult


def render_status(result: ItineraryResult) -> None:
    t = result.totals
    if result.status == "ready":
        st.success(
            f"Plan ready: {t.visits} of {t.places_requested} places over {t.days} day(s); {t.dropped} dropped.",
            icon=":material/check_circle:",
        )
    elif result.status == "infeasible":
        musts = [d.name for d in result.dropped_items if d.priority == "must" and d.reason_code != "REMOVED_BY_USER"]
        st.warning(
            f"Not every must-visit fits ({result.error_code}): "
            + (", ".join(musts) if musts else "a locked stop cannot be kept")
            + ". See the dropped items for the reason and the smallest fix.",
            icon=":material/warning:",
        )
    else:
        st.warning("The plan needs review: the critic found problems (below).", icon=":material/warning:")
    for warning in result.warnings:
        st.warning(warning, icon=":material/info:")


def render_totals(result: ItineraryResult) -> None:
    t = result.totals
    p = result.policy
    c = st.columns(7)
    c[0].metric("Visits 游览", f"{t.visits} / {t.places_requested}", help="Places on the plan / places requested")
    c[1].metric("Dropped 未安排", t.dropped, help=f"{t.must_dropped} of them must-visits")
    c[2].metric(
        "Visiting", f"{t.visit_min / 60:.1f} h", help=f"Visit minutes, × {p.visit_factor:g} for {result.pacing} pacing"
    )
    c[3].metric(
        "Travel (robust)",
        f"{t.travel_robust_min} min",
        help=f"Planned travel: ceil(nominal × {p.factor:g} + {p.buffer_min} min) per leg ({p.source})",
    )
    c[4].metric(
        "Travel (nominal)", f"{t.travel_nominal_min:.0f} min", help=f"Provider's figure: {result.matrix_source}"
    )
    c[5].metric(
        "Waiting 等候",
        f"{t.wait_min} min",
        help=f"Explicit waits (e.g. for opening time); lunch: {t.lunch_min} min in all",
    )
    c[6].metric("Distance", f"{t.distance_m / 1000:.1f} km", help=f"Source: {result.matrix_source}")
    st.caption(
        f"Travel figures: nominal from **{result.matrix_source}** ({result.mode}); robust = ceil(nominal × "
        f"{p.factor:g} + {p.buffer_min} min), the time the plan reserves (policy: {p.source}, {result.pacing} pacing). "
        f"Lunch {t.lunch_min} min in all (lunch policy). "
        f"Variant used: {result.variant}. Solved in {result.seconds:.2f} s."
    )


def render_quality(result: ItineraryResult) -> None:
    """The critic's verdict and the robustness score with its definition."""
    c1, c2 = st.columns(2)
    with c1.container(border=True, key="critic_box"):
        critic = result.critic
        if critic is None:
            st.markdown("**Critic 校验:** not run")
        elif critic.passed:
            st.markdown(f"**Critic 校验: passed ✓** — {len(critic.checks)} independent checks")
            st.caption(", ".join(critic.checks))
        else:
            st.markdown(f"**Critic 校验: {len(critic.violations)} violation(s) ✗**")
            st.dataframe(violations_frame(result), key="critic_table", hide_index=True, width="stretch")
    with c2.container(border=True, key="robustness_box"):
        r = result.robustness
        st.markdown(f"**Robustness 稳健度: {r.score:.2f}** (0 = any delay breaks the plan, 1 = every leg covered)")
        slack = "no legs"
        if r.min_slack_min is not None:
            slack = f"min slack {r.min_slack_min} min, mean {r.mean_slack_min:.0f} min"
        st.caption(
            f"Definition: {r.definition}; tolerance {r.tolerance:g} (a leg is covered when the rest of its day could "
            f"absorb it taking {r.tolerance:.0%} longer than its robust time). "
            f"{r.legs_fully_covered} of {r.legs} legs covered · {slack}."
        )


def render_day_map(result: ItineraryResult, day_index: int) -> None:
    from streamlit_folium import st_folium

    from components.maps import _base_url_path, build_day_map

    day = result.days[day_index]
    m = build_day_map(
        day,
        base_url_path=_base_url_path(),
        region=result.request.region,
        provider=st.session_state.get("active_provider"),
    )
    with st.container(key="day_map_box"):
        st_folium(m, key="day_map", height=460, use_container_width=True, returned_objects=[])
    st.caption(
        "Numbers = visiting order; H = hotel. Dashed lines join the stops in order (straight lines, "
        "not the road path). Colours: red must, blue should, grey nice, purple locked."
    )


def render_dropped(result: ItineraryResult) -> None:
    frame = dropped_frame(result)
    if frame.empty:
        st.success("Nothing dropped: every requested place is on the plan.", icon=":material/done_all:")
        return
    with st.container(key="dropped_box"):  # .st-key-dropped_box in the page (browser tests)
        st.dataframe(
            frame,
            key="dropped_table",
            hide_index=True,
            width="stretch",
            column_config={
                "why": st.column_config.TextColumn("why", width="large"),
                "smallest fix": st.column_config.TextColumn("smallest fix", width="medium"),
            },
        )
    st.caption(
        "Reason codes: CLOSED_ON_DAY · OUTSIDE_OPENING_HOURS · UNREACHABLE_IN_WINDOW · DAY_TOO_FULL · "
        "LUNCH_CONFLICT · LOW_PRIORITY_TRADEOFF · REMOVED_BY_USER. The smallest fix is the least change found that makes it fit."
    )


def render_decision_log(result: ItineraryResult) -> None:
    st.dataframe(
        decision_log_frame(result),
        key="decision_log_table",
        hide_index=True,
        width="stretch",
        column_config={"facts": st.column_config.TextColumn("facts", width="large")},
    )
    if result.variants:
        st.caption("Variants compared (fewest must dropped, then least dropped penalty, then least travel + wait):")
        st.dataframe(variants_frame(result), key="variants_table", hide_index=True, width="stretch")


def render_downloads(result: ItineraryResult) -> None:
    from core.itinerary.ics import itinerary_to_ics

    stem = file_stem(result)
    c1, c2 = st.columns(2)
    c1.download_button(
        "Download JSON",
        data=result.model_dump_json(indent=2),
        file_name=f"{stem}.json",
        mime="application/json",
        key="it_dl_json",
        icon=":material/data_object:",
        width="stretch",
    )
    c2.download_button(
        "Download calendar (ICS)",
        data=itinerary_to_ics(result),
        file_name=f"{stem}.ics",
        mime="text/calendar",
        key="it_dl_ics",
        icon=":material/calendar_month:",
        width="stretch",
    )
    st.caption(
        "The ICS has one event per visit and lunch, in the trip's time zone "
        f"({result.timezone}); import it into any calendar app."
    )


def render_reservations(result: ItineraryResult, *, key_prefix: str = "it_res", party_size: int = 2) -> None:
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
                label=f"Day {day.day_index + 1} · {day.date:%m-%d} {arrival:%H:%M} · **{entry.name}**",
                day=day.date,
                at=arrival.time(),
            )
            if offer is not None:
                offers.append(offer)
    reservations.render_offers(offers, key_prefix=key_prefix, party_size=party_size, region=region)
