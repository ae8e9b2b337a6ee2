"""One itinerary day as a Gantt timeline (altair) and as a table.

``timeline_frame`` and ``gantt_chart`` are pure (pandas / altair, no Streamlit) and unit-testable;
``render_timeline`` draws both. Times are shown as the region's local wall-clock time: the
datetimes are made naive in the trip's zone, so the browser's own time zone does not shift them.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import altair as alt
import pandas as pd

from core.models.itinerary_result import DayTimeline, ItineraryResult, TimelineEntry

KINDS = ("visit", "travel", "lunch", "wait")
KIND_COLOURS = ("#1f77b4", "#9aa5b1", "#ff7f0e", "#e6c229")
TIMELINE_COLUMNS = [
    "#",
    "kind",
    "name",
    "arrival",
    "start",
    "end",
    "departure",
    "minutes",
    "slack min",
    "nominal min",
    "robust min",
    "km",
    "priority",
    "locked",
    "source",
]


def local(dt: datetime, zone: str) -> datetime:
    """``dt`` as a naive local wall-clock datetime of ``zone``."""
    if dt.tzinfo is None:
        return dt
    return dt.astimezone(ZoneInfo(zone)).replace(tzinfo=None)


def _hhmm(dt: datetime, zone: str) -> str:
    return local(dt, zone).strftime("%H:%M")


def entry_label(i: int, entry: TimelineEntry) -> str:
    """The Gantt row label: step number and what happens (travel rows name where they go)."""
    name = entry.name
    if entry.kind == "travel" and "→" in name:
        name = "→ " + name.split("→", 1)[1].strip()
    if entry.part:  # a visit split by a lunch on site: the two bars say which half they are
        name += " (1/2)" if entry.part == 1 else " (2/2)"
    return f"{i + 1:02d} {name}"


def _source(entry: TimelineEntry, result: ItineraryResult | None) -> str:
    if entry.kind == "travel":
        policy = ""
        if result is not None:
            p = result.policy
            policy = f"; robust = ceil(nominal × {p.factor:g} + {p.buffer_min} min) ({p.source})"
        return f"nominal: {entry.source}{policy}"
    if entry.kind == "visit":
        length = ""
        if result is not None and result.policy.visit_factor != 1:
            length = f"; length × {result.policy.visit_factor:g} ({result.pacing} pacing)"
        return f"hours: {entry.source or '—'}{length}"
    if entry.kind == "lunch":
        return entry.source or "lunch_policy"
    return "schedule"


def timeline_frame(day: DayTimeline, zone: str, result: ItineraryResult | None = None) -> pd.DataFrame:
    """One row per timeline entry in time order; times as HH:MM local; every figure with its source."""
    rows = []
    for i, e in enumerate(day.entries):
        rows.append(
            {
                "#": i + 1,
                "kind": e.kind,
                "name": e.name,
                "arrival": _hhmm(e.arrival, zone),
                "start": _hhmm(e.start, zone),
                "end": _hhmm(e.end, zone),
                "departure": _hhmm(e.departure, zone),
                "minutes": e.minutes(),
                "slack min": e.slack_min,
                "nominal min": e.nominal_min if e.kind == "travel" else None,
                "robust min": e.robust_min if e.kind == "travel" else None,
                "km": round(e.distance_m / 1000, 1) if e.kind == "travel" and e.distance_m is not None else None,
                "priority": e.priority or "",
                "locked": bool(e.locked),
                "source": _source(e, result),
            }
        )
    frame = pd.DataFrame(rows, columns=TIMELINE_COLUMNS)
    for col in ("nominal min", "km"):
        frame[col] = frame[col].astype("Float64")
    frame["robust min"] = frame["robust min"].astype("Int64")
    return frame


def gantt_frame(day: DayTimeline, zone: str) -> pd.DataFrame:
    """The bars of the Gantt chart: row label, kind, local start/end and tooltip facts."""
    rows = []
    for i, e in enumerate(day.entries):
        detail = ""
        if e.kind == "travel":
            detail = f"robust {e.robust_min} min · nominal {e.nominal_min} min ({e.source})"
        elif e.kind == "visit":
            detail = f"{e.priority} · arrive {_hhmm(e.arrival, zone)}" + (" · locked" if e.locked else "")
            if e.part:
                detail += " · before lunch on site" if e.part == 1 else " · after lunch on site"
        rows.append(
            {
                "row": i,
                "label": entry_label(i, e),
                "kind": e.kind,
                "name": e.name,
                "start": local(e.start, zone),
                "end": local(e.end, zone),
                "time": f"{_hhmm(e.start, zone)}–{_hhmm(e.end, zone)}",
                "minutes": e.minutes(),
                "slack_min": e.slack_min,
                "detail": detail,
            }
        )
    return pd.DataFrame(
        rows, columns=["row", "label", "kind", "name", "start", "end", "time", "minutes", "slack_min", "detail"]
    )


def opening_frame(day: DayTimeline, zone: str) -> pd.DataFrame:
    """Opening intervals of each visited place that day, clipped to the day's bounds (drawn behind the bars)."""
    lo, hi = local(day.day_start, zone), local(day.day_end, zone)
    rows = []
    for i, e in enumerate(day.entries):
        if e.kind != "visit":
            continue
        for a, b in e.opening_windows:
            a, b = max(local(a, zone), lo), min(local(b, zone), hi)
            if a < b:
                rows.append(
                    {
                        "label": entry_label(i, e),
                        "open": a,
                        "close": b,
                        "hours": f"open {a:%H:%M}–{b:%H:%M} ({e.source})",
                    }
                )
    return pd.DataFrame(rows, columns=["label", "open", "close", "hours"])


def _vl_datetime(dt: datetime) -> alt.DateTime:
    return alt.DateTime(year=dt.year, month=dt.month, date=dt.day, hours=dt.hour, minutes=dt.minute)


def gantt_chart(day: DayTimeline, result: ItineraryResult) -> alt.LayerChart:
    """Visits, travel, lunch and waits as bars on the day's clock; opening hours as pale bars behind
    the visits; the lunch window as a shaded band."""
    zone = result.timezone
    bars = gantt_frame(day, zone)
    labels = list(bars["label"])
    lo, hi = local(day.day_start, zone), local(day.day_end, zone)
    x_scale = alt.Scale(domain=[_vl_datetime(lo), _vl_datetime(hi)])
    y = alt.Y("label:N", sort=labels, title=None, axis=alt.Axis(labelLimit=260))
    x_axis = alt.Axis(format="%H:%M", title=f"local time ({zone})", tickCount="hour")
    layers = []
    if result.lunch.enabled and day.lunch_required:
        ws, we = result.lunch.window_start, result.lunch.window_end
        band = pd.DataFrame(
            [
                {
                    "from": datetime.combine(day.date, ws),
                    "to": datetime.combine(day.date, we),
                    "what": f"lunch window {ws:%H:%M}–{we:%H:%M} (lunch policy)",
                }
            ]
        )
        layers.append(
            alt.Chart(band)
            .mark_rect(color="#ff7f0e", opacity=0.08)
            .encode(x=alt.X("from:T", scale=x_scale, axis=x_axis), x2="to:T", tooltip=[alt.Tooltip("what:N")])
        )
    opening = opening_frame(day, zone)
    if len(opening):
        layers.append(
            alt.Chart(opening)
            .mark_bar(color="#2ca02c", opacity=0.15, height=18)
            .encode(
                x=alt.X("open:T", scale=x_scale, axis=x_axis),
                x2="close:T",
                y=y,
                tooltip=[alt.Tooltip("hours:N", title="opening hours")],
            )
        )
    colour = alt.Color(
        "kind:N",
        title="kind",
        scale=alt.Scale(domain=list(KINDS), range=list(KIND_COLOURS)),
        legend=alt.Legend(orient="top"),
    )
    layers.append(
        alt.Chart(bars)
        .mark_bar(cornerRadius=3, height=12)
        .encode(
            x=alt.X("start:T", scale=x_scale, axis=x_axis),
            x2="end:T",
            y=y,
            color=colour,
            tooltip=[
                alt.Tooltip("kind:N"),
                alt.Tooltip("name:N"),
                alt.Tooltip("time:N"),
                alt.Tooltip("minutes:Q"),
                alt.Tooltip("slack_min:Q", title="slack (min)"),
                alt.Tooltip("detail:N"),
            ],
        )
    )
    title = f"Day {day.day_index + 1} · {day.date:%a %Y-%m-%d}"
    # One 24-px band per entry; Streamlit keeps the chart's own height (height="content").
    return alt.layer(*layers).properties(height=alt.Step(24), title=title)


def render_timeline(day: DayTimeline, result: ItineraryResult) -> pd.DataFrame:
    """The Gantt chart and, below it, the same day as a table. Returns the table."""
    import streamlit as st

    with st.container(key="timeline_box"):  # .st-key-timeline_box in the page (browser tests)
        st.altair_chart(gantt_chart(day, result), key="timeline_chart", width="stretch")
    frame = timeline_frame(day, result.timezone, result)
    st.dataframe(
        frame,
        key="timeline_table",
        hide_index=True,
        width="stretch",
        column_config={
            "#": st.column_config.NumberColumn("#", width="small"),
            "name": st.column_config.TextColumn("name", width="medium"),
            "nominal min": st.column_config.NumberColumn(
                "nominal min", format="%.1f", help="Travel minutes the provider gave"
            ),
            "robust min": st.column_config.NumberColumn(
                "robust min", help="Travel minutes planned with: ceil(nominal × factor + buffer)"
            ),
            "slack min": st.column_config.NumberColumn(
                "slack min", help="How much later this step could start without breaking any later window"
            ),
            "source": st.column_config.TextColumn("source", width="large"),
        },
    )
    return frame
