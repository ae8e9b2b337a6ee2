"""One itinerary day as a Gantt timeline (altair) and as a table, worded in one language (itinerary.po).

``timeline_frame``, ``gantt_spec`` (the chart drawn) and ``gantt_chart`` (the same chart in Altair, the reference the
spec is tested against) are pure (pandas / altair, no Streamlit) and unit-testable;
``render_timeline`` draws both. Times are shown as the region's local wall-clock time: the
datetimes are made naive in the trip's zone, so the browser's own time zone does not shift them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import altair as alt
import pandas as pd

from components.itinerary.words import (
    KIND_WORDS,
    Names,
    day_words,
    names_of,
    place_of_entry,
    priority_words,
    travel_source_words,
)
from core.i18n import Lang, t
from core.models.itinerary_result import DayTimeline, ItineraryResult, TimelineEntry
from core.words.itinerary_ics import travel_words

KINDS = ("visit", "travel", "lunch", "wait")
KIND_COLOURS = ("#1f77b4", "#9aa5b1", "#ff7f0e", "#e6c229")
#: the Gantt rows in the order of the day's entries (each bar and opening-hours bar carries its entry's "row")
ROW_ORDER = {"field": "row", "op": "min"}
TIMELINE_COLUMNS = ["#", "name", "kind", "start", "end", "minutes", "slack", "travel", "priority", "locked", "source"]
#: the table's headers (column → key)
#: the day table's columns a person reads first (a browser test checks that they are on screen and not cut)
TIMELINE_KEY_COLUMNS = ["start", "end", "name", "kind"]
TIMELINE_TIME_PX = 64  # "10:00" and its header, with the cell's padding
TIMELINE_NAME_PX = 320  # "上海博物馆(人民广场馆) → 外滩", "Jing'an Temple → Wukang Mansion"

TIMELINE_HEADERS = {
    "#": "itinerary.timeline.col.number",
    "kind": "itinerary.timeline.col.kind",
    "name": "itinerary.timeline.col.name",
    "start": "itinerary.timeline.col.start",
    "end": "itinerary.timeline.col.end",
    "minutes": "itinerary.timeline.col.minutes",
    "slack": "itinerary.timeline.col.slack",
    "travel": "itinerary.timeline.col.travel",
    "priority": "itinerary.timeline.col.priority",
    "locked": "itinerary.timeline.col.locked",
    "source": "itinerary.timeline.col.source",
}


def local(dt: datetime, zone: str) -> datetime:
    """``dt`` as a naive local wall-clock datetime of ``zone``."""
    if dt.tzinfo is None:
        return dt
    return dt.astimezone(ZoneInfo(zone)).replace(tzinfo=None)


def _hhmm(dt: datetime, zone: str) -> str:
    return local(dt, zone).strftime("%H:%M")


def entry_name(day: DayTimeline, i: int, names: Names, lang: Lang) -> str:
    """What happens at step ``i``, in ``lang``: a visit's place, "→ place" for travel, lunch or a wait and where."""
    entry = day.entries[i]
    if entry.kind == "visit" and entry.meal and not entry.part:  # the place is the meal: say so
        return t(f"itinerary.timeline.meal_{entry.meal}", lang, place=names.shown(entry.key, lang, entry.name))
    if entry.kind == "visit":
        return names.shown(entry.key, lang, entry.name)
    if entry.kind == "travel":
        return t(
            "itinerary.timeline.travel_to",
            lang,
            origin=names.shown(entry.from_key, lang),
            place=names.shown(entry.to_key, lang),
        )
    where = names.shown(place_of_entry(day, i), lang)
    if entry.kind == "lunch":
        on_site = i > 0 and day.entries[i - 1].kind == "visit" and day.entries[i - 1].part == 1
        return t("itinerary.timeline.lunch_on_site" if on_site else "itinerary.timeline.lunch_near", lang, place=where)
    return t("itinerary.timeline.wait_at", lang, place=where)


def entry_label(i: int, day: DayTimeline, names: Names, lang: Lang) -> str:
    """The Gantt row label: step number and what happens (travel rows name where they go)."""
    entry = day.entries[i]
    if entry.kind == "travel":
        name = "→ " + names.shown(entry.to_key, lang)
    else:
        name = entry_name(day, i, names, lang)
    if entry.part:  # a visit split by a lunch on site: the two bars say which half they are
        name += " (1/2)" if entry.part == 1 else " (2/2)"
    return f"{i + 1:02d} {name}"


def _source(entry: TimelineEntry, lang: Lang) -> str:
    if entry.kind == "travel":
        return travel_source_words(entry.source, lang)
    if entry.kind == "visit":
        return travel_source_words(entry.source or "opening_hours", lang)
    if entry.kind == "lunch":
        return travel_source_words(entry.source or "lunch_policy", lang)
    return travel_source_words(None, lang)


def timeline_frame(
    day: DayTimeline, zone: str, result: ItineraryResult, *, lang: Lang = "en", names: Names | None = None
) -> pd.DataFrame:
    """One row per timeline entry in time order, in ``lang``; times as HH:MM local; every figure with its source.
    No empty number cells: a figure that does not apply is an empty text."""
    names = names or names_of(result.request)
    rows = []
    for i, e in enumerate(day.entries):
        rows.append(
            {
                "#": i + 1,
                "kind": t(KIND_WORDS[e.kind], lang),
                "name": entry_name(day, i, names, lang),
                "start": _hhmm(e.start, zone),
                "end": _hhmm(e.end, zone),
                "minutes": e.minutes(),
                "slack": e.slack_min,
                "travel": travel_words(e, lang),
                "priority": priority_words(e.priority, lang) if e.kind == "visit" else "",
                "locked": bool(e.locked),
                "source": _source(e, lang),
            }
        )
    return pd.DataFrame(rows, columns=TIMELINE_COLUMNS)


def gantt_frame(day: DayTimeline, zone: str, *, lang: Lang = "en", names: Names) -> pd.DataFrame:
    """The bars of the Gantt chart: row label, kind (code, for the colours) and its words, local start/end and
    tooltip facts in ``lang``."""
    rows = []
    for i, e in enumerate(day.entries):
        detail = ""
        if e.kind == "travel":
            detail = travel_words(e, lang)
        elif e.kind == "visit":
            other = names.of(e.key, lang, e.name).other
            parts = [priority_words(e.priority, lang), t("itinerary.gantt.arrive", lang, time=_hhmm(e.arrival, zone))]
            if other:
                parts.insert(0, other)
            if e.locked:
                parts.append(t("itinerary.gantt.locked", lang))
            if e.part:
                parts.append(t("itinerary.gantt.before_lunch" if e.part == 1 else "itinerary.gantt.after_lunch", lang))
            detail = " · ".join(p for p in parts if p)
        rows.append(
            {
                "row": i,
                "label": entry_label(i, day, names, lang),
                "kind": e.kind,
                "what": t(KIND_WORDS[e.kind], lang),
                "name": entry_name(day, i, names, lang),
                "start": local(e.start, zone),
                "end": local(e.end, zone),
                "time": f"{_hhmm(e.start, zone)}–{_hhmm(e.end, zone)}",
                "minutes": e.minutes(),
                "slack_min": e.slack_min,
                "detail": detail,
            }
        )
    return pd.DataFrame(
        rows,
        columns=["row", "label", "kind", "what", "name", "start", "end", "time", "minutes", "slack_min", "detail"],
    )


def opening_frame(day: DayTimeline, zone: str, *, lang: Lang = "en", names: Names) -> pd.DataFrame:
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
                        "row": i,
                        "label": entry_label(i, day, names, lang),
                        "open": a,
                        "close": b,
                        "hours": t("itinerary.gantt.open", lang, start=f"{a:%H:%M}", end=f"{b:%H:%M}"),
                    }
                )
    return pd.DataFrame(rows, columns=["row", "label", "open", "close", "hours"])


def _vl_datetime(dt: datetime) -> alt.DateTime:
    return alt.DateTime(year=dt.year, month=dt.month, date=dt.day, hours=dt.hour, minutes=dt.minute)


def gantt_chart(
    day: DayTimeline, result: ItineraryResult, *, lang: Lang = "en", names: Names | None = None
) -> alt.LayerChart:
    """Visits, travel, lunch and waits as bars on the day's clock; opening hours as pale bars behind
    the visits; the lunch window as a shaded band. Every word in ``lang``."""
    names = names or names_of(result.request)
    zone = result.timezone
    bars = gantt_frame(day, zone, lang=lang, names=names)
    lo, hi = local(day.day_start, zone), local(day.day_end, zone)
    x_scale = alt.Scale(domain=[_vl_datetime(lo), _vl_datetime(hi)])
    y = alt.Y("label:N", sort=alt.EncodingSortField(field="row", op="min"), title=None, axis=alt.Axis(labelLimit=260))
    x_axis = alt.Axis(format="%H:%M", title=t("itinerary.gantt.axis", lang), tickCount="hour")
    layers = []
    if result.lunch.enabled and day.lunch_required:
        ws, we = result.lunch.window_start, result.lunch.window_end
        band = pd.DataFrame(
            [
                {
                    "from": datetime.combine(day.date, ws),
                    "to": datetime.combine(day.date, we),
                    "what": t("itinerary.gantt.lunch_window", lang, start=f"{ws:%H:%M}", end=f"{we:%H:%M}"),
                }
            ]
        )
        layers.append(
            alt.Chart(band)
            .mark_rect(color="#ff7f0e", opacity=0.08)
            .encode(
                x=alt.X("from:T", scale=x_scale, axis=x_axis),
                x2="to:T",
                tooltip=[alt.Tooltip("what:N", title=t("itinerary.gantt.lunch", lang))],
            )
        )
    opening = opening_frame(day, zone, lang=lang, names=names)
    if len(opening):
        layers.append(
            alt.Chart(opening)
            .mark_bar(color="#2ca02c", opacity=0.15, height=18)
            .encode(
                x=alt.X("open:T", scale=x_scale, axis=x_axis),
                x2="close:T",
                y=y,
                tooltip=[alt.Tooltip("hours:N", title=t("itinerary.gantt.opening_hours", lang))],
            )
        )
    kind_words = [t(KIND_WORDS[k], lang) for k in KINDS]
    colour = alt.Color(
        "what:N",
        title=None,
        scale=alt.Scale(domain=kind_words, range=list(KIND_COLOURS)),
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
                alt.Tooltip("what:N", title=t("itinerary.timeline.col.kind", lang)),
                alt.Tooltip("name:N", title=t("itinerary.timeline.col.name", lang)),
                alt.Tooltip("time:N", title=t("itinerary.gantt.time", lang)),
                alt.Tooltip("minutes:Q", title=t("itinerary.timeline.col.minutes", lang)),
                alt.Tooltip("slack_min:Q", title=t("itinerary.timeline.col.slack", lang)),
                alt.Tooltip("detail:N", title=t("itinerary.gantt.detail", lang)),
            ],
        )
    )
    title = day_words(day.day_index, day.date, lang)
    # One 24-px band per entry; Streamlit keeps the chart's own height (height="content").
    # alt.layer is typed LayerChart | FacetChart (it hoists shared facet encodings): these layers have none
    return alt.LayerChart(layer=layers).properties(height=alt.Step(24), title=title)


def _vl_dt(dt: datetime) -> dict[str, int]:
    return {"year": dt.year, "month": dt.month, "date": dt.day, "hours": dt.hour, "minutes": dt.minute}


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as JSON values, as Altair writes them: datetimes as ISO text, numpy numbers as Python numbers."""
    rows = frame.to_dict(orient="records")
    return [
        {
            k: v.isoformat() if isinstance(v, datetime) else (v.item() if hasattr(v, "item") else v)
            for k, v in row.items()
        }
        for row in rows
    ]


def gantt_spec(
    day: DayTimeline, result: ItineraryResult, *, lang: Lang = "en", names: Names | None = None
) -> dict[str, Any]:
    """The same chart as ``gantt_chart``, written as a Vega-Lite spec directly: Altair's building and schema
    validation took about 0.6 s of a click under load (issue 12 §5); this takes a few milliseconds. The data are
    the timeline's own entries (``gantt_frame``, ``opening_frame``)."""
    names = names or names_of(result.request)
    zone = result.timezone
    bars = gantt_frame(day, zone, lang=lang, names=names)
    lo, hi = local(day.day_start, zone), local(day.day_end, zone)
    scale = {"domain": [_vl_dt(lo), _vl_dt(hi)]}
    axis = {"format": "%H:%M", "title": t("itinerary.gantt.axis", lang), "tickCount": "hour"}
    # rows in the entries' order through their "row" field, not a list of their labels: the spec then stays the same
    # when an edit changes the day's entries, and the browser updates the chart's data instead of drawing it anew
    y = {"field": "label", "type": "nominal", "sort": dict(ROW_ORDER), "title": None, "axis": {"labelLimit": 260}}
    datasets: dict[str, list[dict[str, Any]]] = {}
    layers: list[dict[str, Any]] = []
    if result.lunch.enabled and day.lunch_required:
        datasets["lunch_window"] = [_lunch_window_row(day, result, lang)]
        layers.append(_lunch_window_layer(scale, axis, lang))
    opening = opening_frame(day, zone, lang=lang, names=names)
    if len(opening):
        datasets["opening"] = _records(opening)
        layers.append(_opening_layer(scale, axis, y, lang))
    datasets["bars"] = _records(bars)
    layers.append(_entries_layer(scale, axis, y, lang))
    # One 24-px band per entry; Streamlit keeps the chart's own height (height="content").
    return {
        "title": day_words(day.day_index, day.date, lang),
        "height": {"step": 24},
        "datasets": datasets,
        "layer": layers,
    }


def _lunch_window_row(day: DayTimeline, result: ItineraryResult, lang: Lang) -> dict[str, Any]:
    """The lunch window of the day as the data of its band: from, to (ISO) and its words."""
    ws, we = result.lunch.window_start, result.lunch.window_end
    what = t("itinerary.gantt.lunch_window", lang, start=f"{ws:%H:%M}", end=f"{we:%H:%M}")
    start, end = datetime.combine(day.date, ws), datetime.combine(day.date, we)
    return {"from": start.isoformat(), "to": end.isoformat(), "what": what}


def _lunch_window_layer(scale: dict[str, Any], axis: dict[str, Any], lang: Lang) -> dict[str, Any]:
    """The lunch window: a faint orange band across every row (dataset ``lunch_window``)."""
    return {
        "data": {"name": "lunch_window"},
        "mark": {"type": "rect", "color": "#ff7f0e", "opacity": 0.08},
        "encoding": {
            "x": {"field": "from", "type": "temporal", "scale": scale, "axis": axis},
            "x2": {"field": "to"},
            "tooltip": [{"field": "what", "type": "nominal", "title": t("itinerary.gantt.lunch", lang)}],
        },
    }


def _opening_layer(scale: dict[str, Any], axis: dict[str, Any], y: dict[str, Any], lang: Lang) -> dict[str, Any]:
    """Each visit's opening hours: a faint green bar behind its row (dataset ``opening``)."""
    return {
        "data": {"name": "opening"},
        "mark": {"type": "bar", "color": "#2ca02c", "opacity": 0.15, "height": 18},
        "encoding": {
            "x": {"field": "open", "type": "temporal", "scale": scale, "axis": axis},
            "x2": {"field": "close"},
            "y": y,
            "tooltip": [{"field": "hours", "type": "nominal", "title": t("itinerary.gantt.opening_hours", lang)}],
        },
    }


def _entries_layer(scale: dict[str, Any], axis: dict[str, Any], y: dict[str, Any], lang: Lang) -> dict[str, Any]:
    """The day's entries: a bar each, coloured by kind, with the entry's facts in its tooltip (dataset ``bars``)."""

    def tip(field: str, kind: str, key: str) -> dict[str, str]:
        return {"field": field, "type": kind, "title": t(key, lang)}

    return {
        "data": {"name": "bars"},
        "mark": {"type": "bar", "cornerRadius": 3, "height": 12},
        "encoding": {
            "x": {"field": "start", "type": "temporal", "scale": scale, "axis": axis},
            "x2": {"field": "end"},
            "y": y,
            "color": {
                "field": "what",
                "type": "nominal",
                "title": None,
                "scale": {"domain": [t(KIND_WORDS[k], lang) for k in KINDS], "range": list(KIND_COLOURS)},
                "legend": {"orient": "top"},
            },
            "tooltip": [
                tip("what", "nominal", "itinerary.timeline.col.kind"),
                tip("name", "nominal", "itinerary.timeline.col.name"),
                tip("time", "nominal", "itinerary.gantt.time"),
                tip("minutes", "quantitative", "itinerary.timeline.col.minutes"),
                tip("slack_min", "quantitative", "itinerary.timeline.col.slack"),
                tip("detail", "nominal", "itinerary.gantt.detail"),
            ],
        },
    }


def render_timeline(
    day: DayTimeline, result: ItineraryResult, *, lang: Lang, names: Names | None = None
) -> pd.DataFrame:
    """The Gantt chart and, below it, the same day as a table, in ``lang``. Returns the table."""
    import streamlit as st

    names = names or names_of(result.request)
    with st.container(key="timeline_box"):  # .st-key-timeline_box in the page (browser tests)
        st.vega_lite_chart(gantt_spec(day, result, lang=lang, names=names), key="timeline_chart", width="stretch")
    frame = timeline_frame(day, result.timezone, result, lang=lang, names=names)

    def header(col: str) -> str:
        return t(TIMELINE_HEADERS[col], lang)

    st.dataframe(
        frame,
        key="timeline_table",
        hide_index=True,
        placeholder="",
        width="stretch",
        # when, what and where first: in the chart's column (3/5 of the page) a 400-px name pushed the start off-screen
        column_order=TIMELINE_KEY_COLUMNS + [c for c in frame.columns if c not in TIMELINE_KEY_COLUMNS],
        column_config={
            "#": st.column_config.NumberColumn(header("#"), width="small"),
            "kind": st.column_config.TextColumn(header("kind"), width="small"),
            "name": st.column_config.TextColumn(header("name"), width=TIMELINE_NAME_PX),
            "start": st.column_config.TextColumn(header("start"), width=TIMELINE_TIME_PX),
            "end": st.column_config.TextColumn(header("end"), width=TIMELINE_TIME_PX),
            "minutes": st.column_config.NumberColumn(header("minutes"), width="small"),
            "slack": st.column_config.NumberColumn(
                header("slack"), width="small", help=t("itinerary.timeline.help.slack", lang)
            ),
            "travel": st.column_config.TextColumn(
                header("travel"), width="large", help=t("itinerary.timeline.help.travel", lang)
            ),
            "priority": st.column_config.TextColumn(header("priority"), width="small"),
            "locked": st.column_config.CheckboxColumn(header("locked"), width="small"),
            "source": st.column_config.TextColumn(header("source"), width="medium"),
        },
    )
    return frame
