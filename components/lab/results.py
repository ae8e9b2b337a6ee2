"""The strategy lab's results, rendered from ``st.session_state`` (components/lab/state.py): what the figures can
say (the honesty notes), the pair of strategies with n and spread, the charts, the optimisers by problem size, the
views of single trips (components/lab/trips.py: the trip days, the map, a request's drill-down into the route
planner), and the exports. Words from lab.po; codes, ids and the core's
messages only in the collapsed details.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from components.debug_view import render_raw
from components.lab import charts as C
from components.lab import state as S
from components.lab import trips
from components.lab.choices import copy_choice, keep_choice
from components.lab.words import (
    cannot_differ_sentence,
    closeness_sentence,
    error_reason,
    objective_name,
    optimiser_name,
    pair_sentence,
    strategy_name,
)
from components.language import t
from core.app.lab import summarize
from core.i18n import Lang
from core.models.lab import LabSummary

if TYPE_CHECKING:
    import altair as alt


def _summary(result: S.LabResult, *, a: str | None, b: str | None, optimiser: str) -> LabSummary:
    """The summary of the table for a pair (None: every pair), kept per result in the session."""
    memo: dict[tuple[Any, ...], LabSummary] = st.session_state.setdefault(S.SUMMARIES, {})
    key = (result.path, result.signature, a, b, optimiser)
    if key not in memo:
        memo[key] = summarize(result.frame, a=a, b=b, optimiser=optimiser)
    return memo[key]


def _choices(frame: pd.DataFrame) -> tuple[list[str], list[str]]:
    routes = frame[frame["strategy"].notna()]
    strategies = [s for s in dict.fromkeys(routes["strategy"]) if isinstance(s, str)]
    optimisers = [o for o in dict.fromkeys(routes["optimiser"]) if isinstance(o, str)]
    return strategies, optimisers


def render_results(result: S.LabResult, current: str, lang: Lang) -> None:
    frame = result.frame
    st.divider()
    st.subheader(t("lab.results.title", lang))
    if result.signature is not None and result.signature != current:
        with st.container(key="lab_stale"):
            st.info(t("lab.results.stale", lang), icon=":material/update:")
    elif result.signature is None:
        st.caption(t("lab.results.from_file", lang, name=result.name))
    ok = int((frame["status"] == "ok").sum())
    st.caption(
        t(
            "lab.results.facts",
            lang,
            requests=int(frame["request_id"].nunique()),
            rows=len(frame),
            ok=ok,
            errors=int((frame["status"] == "error").sum()),
        )
        + (
            " " + t("lab.results.sample", lang, run=result.requests_run, total=result.requests_total)
            if result.requests_run is not None and result.requests_total and result.requests_run < result.requests_total
            else ""
        )
    )
    strategies, optimisers = _choices(frame)
    if len(strategies) < 2:
        if strategies:  # trip days alone have no strategies: their own table below says so
            st.info(t("lab.results.one_strategy", lang))
        a = b = strategies[0] if strategies else None
        optimiser = optimisers[0] if optimisers else "project"
        summary = _summary(result, a=None, b=None, optimiser=optimiser) if strategies else None
    else:
        keep_choice("lab_a", strategies, "fastest_time")
        c1, c2, c3 = st.columns(3)
        c1.selectbox(
            t("lab.pair.a", lang),
            strategies,
            key="lab_a",
            on_change=copy_choice,
            args=("lab_a",),
            format_func=lambda s: strategy_name(s, lang),
            persist_state="session",
        )
        others = [s for s in strategies if s != st.session_state["lab_a"]]
        keep_choice("lab_b", others, "shortest_distance")
        c2.selectbox(
            t("lab.pair.b", lang),
            others,
            key="lab_b",
            on_change=copy_choice,
            args=("lab_b",),
            format_func=lambda s: strategy_name(s, lang),
            persist_state="session",
        )
        keep_choice("lab_pair_optimiser", optimisers, "project")
        c3.selectbox(
            t("lab.pair.optimiser", lang),
            optimisers,
            key="lab_pair_optimiser",
            on_change=copy_choice,
            args=("lab_pair_optimiser",),
            format_func=lambda o: optimiser_name(o, lang),
            help=t("lab.pair.optimiser_help", lang),
            persist_state="session",
        )
        a, b, optimiser = st.session_state["lab_a"], st.session_state["lab_b"], st.session_state["lab_pair_optimiser"]
        summary = _summary(result, a=a, b=b, optimiser=optimiser)
    cannot = _render_honesty(summary, frame, lang) if summary is not None else []
    charts: dict[str, alt.TopLevelMixin] = {}
    if summary is not None and a is not None and b is not None and a != b:
        charts.update(_render_pair(summary, frame, a=a, b=b, optimiser=optimiser, cannot=cannot, lang=lang))
    if summary is not None:
        charts.update(_render_optimisers(summary, lang))
    trips.render_trips(frame, lang)
    if a is not None and b is not None:
        trips.render_map(result, a=a, b=b, lang=lang)
    trips.render_drill_down(result, strategy=a, lang=lang)
    if summary is not None:
        _render_exports(result, optimiser=optimiser, charts=charts, lang=lang)


def _render_honesty(summary: LabSummary, frame: pd.DataFrame, lang: Lang) -> list[tuple[str, str, str]]:
    """What the figures can and cannot say: estimates (strategies cannot differ), partly estimated, errors.
    Returns the groups where the strategies cannot differ."""
    label = trips.group_label(lang)
    cannot: list[tuple[str, str, str]] = []
    for flag in summary.flags:
        group = (str(flag.region), str(flag.provider), str(flag.mode))
        if flag.code == "STRATEGIES_CANNOT_DIFFER":
            cannot.append(group)
        elif flag.code == "PARTLY_ESTIMATED":
            st.info(t("lab.honesty.partly", lang, group=label(*group), count=flag.count), icon=":material/info:")
    errors = frame[frame["status"] == "error"]
    if len(errors):
        with st.container(key="lab_errors"):
            st.warning(t("lab.honesty.errors", lang, count=len(errors), requests=int(errors["request_id"].nunique())))
            firsts = errors.drop_duplicates(subset=["request_id", "error_code"])
            for _, row in firsts.head(8).iterrows():
                st.markdown(
                    "- "
                    + t(
                        "lab.errors.row",
                        lang,
                        n=int(row["request_index"]) + 1,
                        reason=error_reason(row["error_code"], lang),
                    )
                )
            raw = [f"{row['request_id']} · {row['error_code']}: {row['error_message']}" for _, row in firsts.iterrows()]
            render_raw(raw, key="lab_errors_raw", lang=lang)
    return cannot


def _render_pair(
    summary: LabSummary,
    frame: pd.DataFrame,
    *,
    a: str,
    b: str,
    optimiser: str,
    cannot: list[tuple[str, str, str]],
    lang: Lang,
) -> dict[str, alt.TopLevelMixin]:
    """The pair of strategies: a sentence per group (a warning where they cannot differ), the table of the time
    saved and the distance added, then the charts; returns the charts drawn (for the exports)."""
    label = trips.group_label(lang)
    st.markdown("##### " + t("lab.pair.title", lang, a=strategy_name(a, lang), b=strategy_name(b, lang)))
    rows = _render_pair_sentences(summary, a=a, b=b, cannot=cannot, label=label, lang=lang)
    if rows:
        _render_pair_table(rows, summary, lang)
    return _render_pair_charts(frame, a=a, b=b, optimiser=optimiser, cannot=cannot, label=label, lang=lang)


def _render_pair_sentences(
    summary: LabSummary, *, a: str, b: str, cannot: list[tuple[str, str, str]], label: C.GroupLabel, lang: Lang
) -> list[dict[str, object]]:
    """A sentence per group of the pair (where the strategies cannot differ, a warning and how many differ);
    returns the pair table's rows, one per group."""
    rows: list[dict[str, object]] = []
    for pair in summary.pairs:
        group = (pair.region, pair.provider, pair.mode)
        if group in cannot:
            with st.container(key=f"lab_cannot_differ_{len(rows)}"):
                st.warning(cannot_differ_sentence(label(*group), pair.n, a, b, lang), icon=":material/straighten:")
                st.caption(t("lab.honesty.shown", lang, differ=pair.n_differ, n=pair.n))
        else:
            st.markdown(pair_sentence(pair, lang, group=label(*group)))
            if why := closeness_sentence(pair, lang):  # equal or nearly: why, beside the figures
                st.info(why, icon=":material/info:")
        s, d = pair.time_saved_s, pair.distance_added_m
        rows.append(
            {
                "group": label(*group),
                "n": pair.n,
                "differ": pair.n_differ,
                "saved_median": None if s.median is None else s.median / 60,
                "saved_p10": None if s.p10 is None else s.p10 / 60,
                "saved_p90": None if s.p90 is None else s.p90 / 60,
                "saved_ci": _interval(s.median_ci_low, s.median_ci_high, 60, "{:+.1f}"),
                "added_median": None if d.median is None else d.median / 1000,
                "added_p10": None if d.p10 is None else d.p10 / 1000,
                "added_p90": None if d.p90 is None else d.p90 / 1000,
                "added_ci": _interval(d.median_ci_low, d.median_ci_high, 1000, "{:+.2f}"),
                "estimates": group in cannot,
            }
        )
    return rows


def _render_pair_table(rows: list[dict[str, object]], summary: LabSummary, lang: Lang) -> None:
    """The pair table: per group, n, how many differ, the time saved (min) and distance added (km) with their
    p10–p90 and the median's confidence interval, and whether the figures are estimates."""
    minutes, km = t("lab.table.minutes_suffix", lang), t("lab.table.km_suffix", lang)
    st.dataframe(
        pd.DataFrame(rows),
        key="lab_pair_table",
        hide_index=True,
        width="stretch",
        column_config={
            "group": t("lab.table.group", lang),
            "n": st.column_config.NumberColumn("n", help=t("lab.table.n_help", lang)),
            "differ": st.column_config.NumberColumn(t("lab.table.differ", lang)),
            "saved_median": st.column_config.NumberColumn(t("lab.table.saved_median", lang) + minutes, format="%+.1f"),
            "saved_p10": st.column_config.NumberColumn("p10" + minutes, format="%+.1f"),
            "saved_p90": st.column_config.NumberColumn("p90" + minutes, format="%+.1f"),
            "saved_ci": t("lab.table.ci", lang) + minutes,
            "added_median": st.column_config.NumberColumn(t("lab.table.added_median", lang) + km, format="%+.2f"),
            "added_p10": st.column_config.NumberColumn("p10" + km, format="%+.2f"),
            "added_p90": st.column_config.NumberColumn("p90" + km, format="%+.2f"),
            "added_ci": t("lab.table.ci", lang) + km,
            "estimates": st.column_config.CheckboxColumn(t("lab.table.estimates", lang)),
        },
    )
    st.caption(t("lab.table.explain", lang, resamples=int(summary.bootstrap["resamples"])))


def _render_pair_charts(
    frame: pd.DataFrame,
    *,
    a: str,
    b: str,
    optimiser: str,
    cannot: list[tuple[str, str, str]],
    label: C.GroupLabel,
    lang: Lang,
) -> dict[str, alt.TopLevelMixin]:
    """The pair's charts: the difference per request and the Pareto view (groups where the strategies can differ),
    and time against distance where they cannot; returns them by name."""
    charts: dict[str, alt.TopLevelMixin] = {}
    pairs = C.pair_frame(frame, a=a, b=b, optimiser=optimiser, group_label=label)
    shown = pairs[[(r, p, m) not in cannot for r, p, m in zip(pairs["region"], pairs["provider"], pairs["mode"])]]
    if len(shown):
        with st.container(key="lab_difference_chart"):
            difference = C.difference_chart(shown, a=a, b=b, lang=lang)
            st.altair_chart(difference, key="lab_difference")
            charts["difference"] = difference
        keep = [(r, p, m) not in cannot for r, p, m in zip(frame["region"], frame["provider"], frame["mode"])]
        points = C.pareto_frame(frame[keep], optimiser=optimiser, group_label=label, lang=lang)
        with st.container(key="lab_pareto_chart"):
            pareto = C.pareto_chart(points, lang=lang)
            st.altair_chart(pareto, key="lab_pareto", width="stretch")
            st.caption(t("lab.chart.pareto_explain", lang))
            charts["pareto"] = pareto
    if cannot:
        data = C.estimate_frame(frame, cannot, group_label=label)
        if len(data):
            with st.container(key="lab_estimate_chart"):
                estimate = C.estimate_chart(data, lang=lang)
                st.altair_chart(estimate, key="lab_estimate", width="stretch")
                st.caption(t("lab.chart.estimate_explain", lang))
                charts["estimate"] = estimate
    return charts


def _interval(lo: float | None, hi: float | None, unit: float, fmt: str) -> str:
    if lo is None or hi is None:
        return "–"
    return f"{fmt.format(lo / unit)} … {fmt.format(hi / unit)}"


def _render_optimisers(summary: LabSummary, lang: Lang) -> dict[str, alt.TopLevelMixin]:
    objectives = [o for o in ("distance_m", "duration_s") if any(s.objective == o for s in summary.optimisers)]
    if not objectives:
        return {}
    st.markdown("##### " + t("lab.opt.title", lang))
    keep_choice("lab_objective", objectives, "distance_m")
    st.radio(
        t("lab.opt.objective", lang),
        objectives,
        key="lab_objective",
        on_change=copy_choice,
        args=("lab_objective",),
        format_func=lambda o: objective_name(o, lang),
        horizontal=True,
        persist_state="session",
    )
    data = C.optimiser_frame(
        summary, objective=st.session_state["lab_objective"], group_label=trips.group_label(lang), lang=lang
    )
    charts: dict[str, alt.TopLevelMixin] = {}
    c1, c2 = st.columns(2)
    with c1, st.container(key="lab_gap_chart"):
        gap = C.gap_chart(data, lang=lang)
        st.altair_chart(gap, key="lab_gap", width="stretch")
        charts["gap"] = gap
    with c2, st.container(key="lab_time_chart"):
        time = C.time_chart(data, lang=lang)
        st.altair_chart(time, key="lab_time", width="stretch")
        charts["time"] = time
    table = data.sort_values(["group", "order", "optimiser"]).drop(columns=["order"])
    st.dataframe(
        table,
        key="lab_optimiser_table",
        hide_index=True,
        width="stretch",
        column_config={
            "size": t("lab.chart.size", lang),
            "optimiser": t("lab.chart.optimiser", lang),
            "group": t("lab.table.group", lang),
            "n": st.column_config.NumberColumn("n", help=t("lab.table.n_gap_help", lang)),
            "errors": t("lab.table.errors", lang),
            "at_best": t("lab.table.at_best", lang),
            "gap_median": st.column_config.NumberColumn(t("lab.table.gap_median", lang), format="%.2f"),
            "gap_p10": st.column_config.NumberColumn("p10 (%)", format="%.2f"),
            "gap_p90": st.column_config.NumberColumn("p90 (%)", format="%.2f"),
            "gap_worst": st.column_config.NumberColumn(t("lab.table.gap_worst", lang), format="%.2f"),
            "time_median": st.column_config.NumberColumn(t("lab.table.time_median", lang), format="%.1f"),
            "time_p10": st.column_config.NumberColumn("p10 (ms)", format="%.1f"),
            "time_p90": st.column_config.NumberColumn("p90 (ms)", format="%.1f"),
            "time_n": st.column_config.NumberColumn(t("lab.table.time_n", lang)),
        },
    )
    st.caption(t("lab.opt.explain", lang))
    return charts


def _render_exports(
    result: S.LabResult, *, optimiser: str, charts: Mapping[str, alt.TopLevelMixin], lang: Lang
) -> None:
    st.markdown("##### " + t("lab.export.title", lang))
    full = _summary(result, a=None, b=None, optimiser=optimiser)
    c1, c2, c3, c4 = st.columns(4)
    c1.download_button(
        t("lab.export.csv", lang),
        C.summary_csv(full),
        file_name=C.export_name(result.name, "summary", "csv"),
        mime="text/csv",
        key="lab_csv",
        icon=":material/table:",
    )
    if not charts:
        return
    names = {
        "difference": "lab.export.chart.difference",
        "pareto": "lab.export.chart.pareto",
        "estimate": "lab.export.chart.estimate",
        "gap": "lab.export.chart.gap",
        "time": "lab.export.chart.time",
    }
    options = list(charts)
    keep_choice("lab_export_chart", options, options[0])
    c2.selectbox(
        t("lab.export.chart", lang),
        options,
        key="lab_export_chart",
        on_change=copy_choice,
        args=("lab_export_chart",),
        format_func=lambda k: t(names[k], lang),
        label_visibility="collapsed",
        persist_state="session",
    )
    chosen = st.session_state["lab_export_chart"]
    chart = charts[chosen]
    c3.download_button(
        t("lab.export.html", lang),
        lambda: C.chart_html(chart),
        file_name=C.export_name(result.name, chosen, "html"),
        mime="text/html",
        key="lab_html",
        icon=":material/code:",
    )
    if C.vl_convert_available():
        c4.download_button(
            t("lab.export.png", lang),
            lambda: C.chart_png(chart) or b"",
            file_name=C.export_name(result.name, chosen, "png"),
            mime="image/png",
            key="lab_png",
            icon=":material/image:",
        )
    else:
        c4.caption(t("lab.export.no_png", lang))
