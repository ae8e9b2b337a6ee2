"""The strategy lab's views of single trips (components/lab/results.py draws them below the figures): the trip days'
table, the map of one request's routes (pydeck), and a request's drill-down into the route planner. Words from
lab.po; codes and ids only in the collapsed details."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components.basemap import map_credits
from components.debug_view import render_raw
from components.frame import provider_label, region_name
from components.lab import charts as C
from components.lab import map as M
from components.lab import state as S
from components.lab.choices import copy_choice, keep_choice
from components.lab.words import (
    COLOUR_WORDS,
    error_reason,
    group_words,
    optimiser_name,
    percent,
    request_label,
    status_name,
    strategy_name,
)
from components.language import t
from core.i18n import Lang

ROUTE_PLANNER = "pages/route_planner.py"
OPEN_PLANNER = "lab_open_planner_now"  # set by the drill-down's button: switch to the route planner this run


def _open_in_planner(request_id: str, strategy: str | None, mode: str, provider: str) -> None:
    """on_click of "Open in the route planner": the request into the planner's form, then the page switch."""
    from core.models.lab import RouteBatchItem

    result = st.session_state.get(S.RESULT)
    item = result.items.get(request_id) if result is not None else None
    if isinstance(item, RouteBatchItem):
        S.prefill_route_planner(st.session_state, item, strategy=strategy, mode=mode, provider=provider)
        st.session_state[OPEN_PLANNER] = True


def group_label(lang: Lang) -> C.GroupLabel:
    """How a group of rows (region, provider, mode) is named in ``lang``."""

    def label(region: str, provider: str, mode: str) -> str:
        return group_words(region, provider, mode, lang, region_label=region_name, provider_label=provider_label)

    return label


def render_trips(frame: pd.DataFrame, lang: Lang) -> None:
    trips = frame[frame["request_kind"] == "trip"]
    if not len(trips):
        return
    st.markdown("##### " + t("lab.trips.title", lang))
    st.caption(t("lab.trips.explain", lang, n=int(trips["request_id"].nunique())))
    ok = trips[trips["status"] == "ok"]
    table = pd.DataFrame(
        {
            "request": ok["request_index"].astype(int) + 1,
            "km": ok["distance_m"] / 1000,
            "minutes": ok["duration_s"] / 60,
        }
    )
    st.dataframe(
        table,
        key="lab_trip_table",
        hide_index=True,
        column_config={
            "request": t("lab.chart.request", lang),
            "km": st.column_config.NumberColumn(t("lab.chart.km", lang), format="%.2f"),
            "minutes": st.column_config.NumberColumn(t("lab.chart.minutes", lang), format="%.1f"),
        },
    )


def render_map(result: S.LabResult, *, a: str, b: str, lang: Lang) -> None:
    frame = result.frame
    drawn = frame[(frame["optimiser"] == "project") & frame["geometry"].notna() & (frame["status"] == "ok")]
    st.markdown("##### " + t("lab.map.title", lang))
    if not len(drawn):
        st.info(t("lab.map.no_geometry", lang))
        return
    groups = list(dict.fromkeys(zip(drawn["region"], drawn["provider"], drawn["mode"])))
    keys = ["|".join(g) for g in groups]
    label = group_label(lang)
    keep_choice("lab_map_group", keys, keys[0])
    c1, c2 = st.columns(2)
    c1.selectbox(
        t("lab.map.group", lang),
        keys,
        key="lab_map_group",
        on_change=copy_choice,
        args=("lab_map_group",),
        format_func=lambda k: label(*k.split("|")),
        persist_state="session",
    )
    keep_choice("lab_map_colour", list(COLOUR_WORDS), "strategy")
    c2.radio(
        t("lab.map.colour", lang),
        list(COLOUR_WORDS),
        key="lab_map_colour",
        on_change=copy_choice,
        args=("lab_map_colour",),
        format_func=lambda c: t(COLOUR_WORDS[c], lang),
        horizontal=True,
        persist_state="session",
    )
    region, provider, mode = st.session_state["lab_map_group"].split("|")
    colour_by = st.session_state["lab_map_colour"]
    pack = M.pack_for(region)
    origins = {rid: item.place_ids[0] for rid, item in result.items.items() if item.place_ids}
    deck, facts = M.build_deck(
        frame,
        region=region,
        provider=provider,
        mode=mode,
        strategies=[a, b] if a != b else [a],
        colour_by=colour_by,
        a=a,
        b=b,
        pack=pack,
        origins=origins,
        lang=lang,
        request_label=lambda n, stops: t("lab.request.short", lang, n=n, stops=stops),
    )
    if deck is None:
        st.info(t("lab.map.no_geometry", lang))
        return
    with st.container(key="lab_map_box"):
        st.pydeck_chart(deck, height=520, width="stretch")
    if colour_by == "strategy":
        legend = t("lab.map.legend.strategy", lang, a=strategy_name(a, lang), b=strategy_name(b, lang))
    else:
        legend = t("lab.map.legend.saving", lang, a=strategy_name(a, lang), b=strategy_name(b, lang))
    st.caption(legend)
    shown = t("lab.map.shown", lang, routes=facts["routes"], total=facts["total"])
    if facts["background"] == "streets" and pack is not None:
        # the same short credits as every map (the source and the month of its data, not the builder's version)
        credits = map_credits(pack, "streets", lang)
        st.caption(shown + " " + t("lab.map.background.streets", lang, attribution=credits))
    else:
        st.caption(shown + " " + t("lab.map.background.outline", lang))


def render_drill_down(result: S.LabResult, *, strategy: str | None, lang: Lang) -> None:
    frame = result.frame
    st.markdown("##### " + t("lab.drill.title", lang))
    firsts = frame.drop_duplicates(subset=["request_id"]).sort_values("request_index")
    ids = [str(r) for r in firsts["request_id"]]
    labels = {
        str(row["request_id"]): request_label(row, lang, region_label=region_name) for _, row in firsts.iterrows()
    }
    keep_choice("lab_request", ids, ids[0])
    st.selectbox(
        t("lab.drill.request", lang),
        ids,
        key="lab_request",
        on_change=copy_choice,
        args=("lab_request",),
        format_func=lambda i: labels.get(i, i),
        persist_state="session",
    )
    chosen = st.session_state["lab_request"]
    rows = frame[frame["request_id"] == chosen]
    table = pd.DataFrame(
        {
            "strategy": [strategy_name(s, lang) if isinstance(s, str) else "–" for s in rows["strategy"]],
            "optimiser": [optimiser_name(o, lang) for o in rows["optimiser"]],
            "mode": [group_label(lang)(r, p, m) for r, p, m in zip(rows["region"], rows["provider"], rows["mode"])],
            "km": rows["distance_m"] / 1000,
            "minutes": rows["duration_s"] / 60,
            "gap": [percent(g) if pd.notna(g) else "–" for g in rows["gap"]],
            "status": [
                status_name(s, lang) if s == "ok" else f"{status_name(s, lang)}: {error_reason(c, lang)}"
                for s, c in zip(rows["status"], rows["error_code"])
            ],
        }
    )
    st.dataframe(
        table,
        key="lab_drill_table",
        hide_index=True,
        width="stretch",
        column_config={
            "strategy": t("lab.chart.strategy", lang),
            "optimiser": t("lab.chart.optimiser", lang),
            "mode": t("lab.table.group", lang),
            "km": st.column_config.NumberColumn(t("lab.chart.km", lang), format="%.2f"),
            "minutes": st.column_config.NumberColumn(t("lab.chart.minutes", lang), format="%.1f"),
            "gap": t("lab.table.gap", lang),
            "status": t("lab.table.status", lang),
        },
    )
    item = result.items.get(chosen)
    from core.models.lab import RouteBatchItem

    can_open = isinstance(item, RouteBatchItem)
    first = rows.iloc[0]
    st.button(
        t("lab.drill.open", lang),
        key="lab_open_planner",
        icon=":material/route:",
        disabled=not can_open,
        help=t("lab.drill.open_help", lang),
        on_click=_open_in_planner,  # a callback: the sidebar's region widget may only change before it is drawn
        args=(chosen, strategy, str(first["mode"]), str(first["provider"])),
    )
    if not can_open:
        st.caption(t("lab.drill.no_request" if item is None else "lab.drill.trip", lang))
    if st.session_state.pop(OPEN_PLANNER, False):
        st.switch_page(ROUTE_PLANNER)
    data = item.model_dump(mode="json", exclude_none=True) if item is not None else None
    render_raw([str(chosen)], data=data, key="lab_drill_raw", lang=lang)  # the request as the batch has it
