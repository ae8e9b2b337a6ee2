"""Distance-versus-time scatter of the candidate routes, with the Pareto front marked."""

from __future__ import annotations

import altair as alt
import pandas as pd

from core.models.route import RoutePlanResult


def candidates_frame(result: RoutePlanResult) -> pd.DataFrame:
    rows = [
        {
            "rank": c.rank if c.rank is not None else i + 1,
            "km": c.total_distance_m / 1000,
            "minutes": c.total_duration_s / 60,
            "order": " → ".join(c.full_order_labels),
            "pareto": bool(c.pareto_optimal),
            "kind": "best" if i == result.best_index else ("Pareto front" if c.pareto_optimal else "dominated"),
            "best for": ", ".join(c.best_for),
        }
        for i, c in enumerate(result.candidates)
    ]
    return pd.DataFrame(rows, columns=["rank", "km", "minutes", "order", "pareto", "kind", "best for"])


def pareto_chart(result: RoutePlanResult) -> alt.LayerChart:
    """Scatter of km vs minutes; the Pareto front joined by a line; the best route in red."""
    data = candidates_frame(result)
    colour = alt.Color(
        "kind:N",
        title="candidate",
        scale=alt.Scale(domain=["best", "Pareto front", "dominated"], range=["#d62728", "#ff7f0e", "#9aa5b1"]),
    )
    tooltip = [
        alt.Tooltip("rank:Q"),
        alt.Tooltip("km:Q", format=".1f"),
        alt.Tooltip("minutes:Q", format=".0f"),
        alt.Tooltip("order:N"),
        alt.Tooltip("best for:N"),
    ]
    x = alt.X("km:Q", title="distance (km)", scale=alt.Scale(zero=False))
    y = alt.Y("minutes:Q", title="time (min)", scale=alt.Scale(zero=False))
    points = alt.Chart(data).mark_circle(size=110, opacity=0.85).encode(x=x, y=y, color=colour, tooltip=tooltip)
    front = (
        alt.Chart(data[data["pareto"]].sort_values("km"))
        .mark_line(color="#ff7f0e", strokeDash=[5, 3], point=False)
        .encode(x=x, y=y, order="km:Q")
    )
    return alt.layer(front, points).properties(height=300, title="Candidates: distance vs time (Pareto front)")


def render_pareto_chart(result: RoutePlanResult) -> None:
    import streamlit as st

    st.altair_chart(pareto_chart(result), key="pareto_chart", width="stretch")
