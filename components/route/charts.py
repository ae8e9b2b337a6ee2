"""Distance-versus-time scatter of the candidate routes, with the Pareto front marked, worded in one language."""

from __future__ import annotations

from typing import Any, TypedDict

import altair as alt
import pandas as pd

from components.route_words import STRATEGY_WORDS, order_text
from core.i18n import Lang, t
from core.models.route import RoutePlanResult

KINDS = {"best": "route.chart.best", "Pareto front": "route.chart.pareto", "dominated": "route.chart.dominated"}
KIND_COLOURS = {"best": "#d62728", "Pareto front": "#ff7f0e", "dominated": "#9aa5b1"}


def candidates_frame(result: RoutePlanResult, *, lang: Lang = "en") -> pd.DataFrame:
    """One row per candidate: its figures, its order in ``lang``, its ``kind`` (a code) and that kind in words."""
    sep = t("route.list_separator", lang)
    rows = []
    for i, c in enumerate(result.candidates):
        kind = "best" if i == result.best_index else ("Pareto front" if c.pareto_optimal else "dominated")
        rows.append(
            {
                "rank": c.rank if c.rank is not None else i + 1,
                "km": c.total_distance_m / 1000,
                "minutes": c.total_duration_s / 60,
                "order": order_text(result, c, lang),
                "pareto": bool(c.pareto_optimal),
                "kind": kind,
                "label": t(KINDS[kind], lang),
                "best for": sep.join(t(STRATEGY_WORDS[s], lang) for s in c.best_for),
            }
        )
    return pd.DataFrame(rows, columns=["rank", "km", "minutes", "order", "pareto", "kind", "label", "best for"])


class ColourScale(TypedDict):
    """An Altair colour scale: the legend's entries and their colours."""

    domain: list[str]
    range: list[str]


def colour_scale(data: pd.DataFrame, lang: Lang) -> ColourScale:
    """The legend's entries: only the kinds some point has (a plan whose every candidate is on the front lists no
    "dominated"), in the fixed order and colours of ``KINDS``."""
    present = set(data["kind"])
    kinds = [kind for kind in KINDS if kind in present]
    return {"domain": [t(KINDS[kind], lang) for kind in kinds], "range": [KIND_COLOURS[kind] for kind in kinds]}


def pareto_chart(result: RoutePlanResult, *, lang: Lang = "en") -> alt.LayerChart:
    """Scatter of km vs minutes; the Pareto front joined by a line; the best route in red."""
    data = candidates_frame(result, lang=lang)
    colour = alt.Color(
        "label:N",
        title=t("route.chart.candidate", lang),
        scale=alt.Scale(**colour_scale(data, lang)),
    )
    tooltip = [
        alt.Tooltip("rank:Q", title=t("route.col.rank", lang)),
        alt.Tooltip("km:Q", format=".1f", title=t("route.col.km", lang)),
        alt.Tooltip("minutes:Q", format=".0f", title=t("route.col.minutes", lang)),
        alt.Tooltip("order:N", title=t("route.col.order", lang)),
        alt.Tooltip("best for:N", title=t("route.col.best_for", lang)),
    ]
    x = alt.X("km:Q", title=t("route.chart.x", lang), scale=alt.Scale(zero=False))
    y = alt.Y("minutes:Q", title=t("route.chart.y", lang), scale=alt.Scale(zero=False))
    points = alt.Chart(data).mark_circle(size=110, opacity=0.85).encode(x=x, y=y, color=colour, tooltip=tooltip)
    front = (
        alt.Chart(data[data["pareto"]].sort_values("km"))
        .mark_line(color=KIND_COLOURS["Pareto front"], strokeDash=[5, 3], point=False)
        .encode(x=x, y=y, order="km:Q")
    )
    # alt.layer is typed LayerChart | FacetChart (it hoists shared facet encodings): these layers have none
    return alt.LayerChart(layer=[front, points]).properties(height=300, title=t("route.chart.title", lang))


_SPEC_CACHE = "route_pareto_spec"


def pareto_spec(result: RoutePlanResult, *, lang: Lang = "en") -> dict[str, Any]:
    """The same chart as ``pareto_chart``, written as a Vega-Lite spec directly: Altair takes a few hundred
    milliseconds to build and check it (issue 12 §5), this takes one. The data are the candidates' own figures."""
    data = candidates_frame(result, lang=lang)
    records = [
        {key: (value.item() if hasattr(value, "item") else value) for key, value in row.items()}
        for row in data.to_dict(orient="records")
    ]
    x = {"field": "km", "type": "quantitative", "title": t("route.chart.x", lang), "scale": {"zero": False}}
    y = {"field": "minutes", "type": "quantitative", "title": t("route.chart.y", lang), "scale": {"zero": False}}
    colour = {
        "field": "label",
        "type": "nominal",
        "title": t("route.chart.candidate", lang),
        "scale": colour_scale(data, lang),
    }
    tooltip = [
        {"field": "rank", "type": "quantitative", "title": t("route.col.rank", lang)},
        {"field": "km", "type": "quantitative", "format": ".1f", "title": t("route.col.km", lang)},
        {"field": "minutes", "type": "quantitative", "format": ".0f", "title": t("route.col.minutes", lang)},
        {"field": "order", "type": "nominal", "title": t("route.col.order", lang)},
        {"field": "best for", "type": "nominal", "title": t("route.col.best_for", lang)},
    ]
    return {
        "title": t("route.chart.title", lang),
        "height": 300,
        "datasets": {"candidates": records},
        "data": {"name": "candidates"},
        "layer": [
            {
                "transform": [{"filter": "datum.pareto"}],
                "mark": {"type": "line", "color": KIND_COLOURS["Pareto front"], "strokeDash": [5, 3], "point": False},
                "encoding": {"x": x, "y": y, "order": {"field": "km", "type": "quantitative"}},
            },
            {
                "mark": {"type": "circle", "size": 110, "opacity": 0.85},
                "encoding": {"x": x, "y": y, "color": colour, "tooltip": tooltip},
            },
        ],
    }


def render_pareto_chart(result: RoutePlanResult, *, lang: Lang) -> None:
    """The chart, its spec built once per result and language (kept beside the result in the session)."""
    import streamlit as st

    cached = st.session_state.get(_SPEC_CACHE)
    if cached is None or cached[0] is not result or cached[1] != lang:
        st.session_state[_SPEC_CACHE] = cached = (result, lang, pareto_spec(result, lang=lang))
    st.vega_lite_chart(cached[2], key="pareto_chart", width="stretch")
