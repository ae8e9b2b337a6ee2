"""The strategy lab's charts (Altair) and exports, worded in one language (lab.po). No Streamlit here.

* ``pair_frame`` / ``difference_chart``: per request, the time strategy ``a`` saves against ``b`` and the distance
  it adds (the distribution, with the medians marked and n in the title);
* ``pareto_frame`` / ``pareto_chart``: every request × strategy, how far above that request's shortest distance and
  fastest time it lies (the corner is the best of both);
* ``optimiser_frame`` / ``gap_chart`` / ``time_chart``: each optimiser's gap to the best known and its time by
  problem size, the median with its p10–p90 bar and n in the tooltip;
* ``estimate_chart``: on straight-line estimates, every route's time against its distance: one line, which is why
  the strategies cannot differ there.

Exports: ``summary_csv`` (UTF-8 with a BOM, so Excel reads the characters), ``chart_html`` (self-contained when
vl-convert is installed: Vega's scripts inline, nothing fetched) and ``chart_png`` (vl-convert, offline).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import altair as alt
import pandas as pd

from components.lab.words import optimiser_name, strategy_name
from core.i18n import Lang, t

if TYPE_CHECKING:
    from core.models.lab import LabSummary

GroupLabel = Callable[[str, str, str], str]
BOM = "\ufeff"
STRATEGY_COLOURS = {"shortest_distance": "#1f77b4", "fastest_time": "#ff7f0e", "balanced": "#9467bd"}  # as on the map
LEGEND = alt.Legend(orient="bottom", direction="vertical", labelLimit=360, titleLimit=360)


def _ok(frame: pd.DataFrame, optimiser: str) -> pd.DataFrame:
    return frame[(frame["status"] == "ok") & (frame["optimiser"] == optimiser) & frame["strategy"].notna()]


def pair_frame(frame: pd.DataFrame, *, a: str, b: str, optimiser: str, group_label: GroupLabel) -> pd.DataFrame:
    """One row per request and group where both strategies have a route: time saved by ``a`` (min), distance it
    adds (km), whether the two chose different orders."""
    ok = _ok(frame, optimiser)
    keys = ["request_id", "request_index", "n_stops", "region", "provider", "mode"]
    left = ok[ok["strategy"] == a][[*keys, "distance_m", "duration_s", "stop_order"]]
    right = ok[ok["strategy"] == b][[*keys, "distance_m", "duration_s", "stop_order"]]
    both = left.merge(right, on=keys, suffixes=("_a", "_b"))
    out = pd.DataFrame(
        {
            "request_id": both["request_id"],
            "request": both["request_index"].astype(int) + 1,
            "stops": both["n_stops"].astype(int),
            "region": both["region"],
            "provider": both["provider"],
            "mode": both["mode"],
            "group": [group_label(r, p, m) for r, p, m in zip(both["region"], both["provider"], both["mode"])],
            "time_saved_min": (both["duration_s_b"] - both["duration_s_a"]) / 60.0,
            "distance_added_km": (both["distance_m_a"] - both["distance_m_b"]) / 1000.0,
            "differ": both["stop_order_a"] != both["stop_order_b"],
        }
    )
    return out.reset_index(drop=True)


#: axis ticks without trailing zeros: a sample where every difference is 0 reads "0", not "0.000000"
TICKS = "~f"  # fixed-point with Vega's precision from the tick step ("~g" turned 1500 into "1.5e+3")
BY_SIZE_HEIGHT = 460


def difference_chart(pairs: pd.DataFrame, *, a: str, b: str, lang: Lang) -> alt.HConcatChart:
    """Left: each request as a point (distance added → time saved), the medians as rules; right: the histogram
    of the time saved. The title carries n."""
    saved = t("lab.chart.time_saved", lang, a=strategy_name(a, lang), b=strategy_name(b, lang))
    added = t("lab.chart.distance_added", lang, a=strategy_name(a, lang), b=strategy_name(b, lang))
    request = t("lab.chart.request", lang)
    group = t("lab.chart.group", lang)
    base = alt.Chart(pairs)
    points = base.mark_circle(size=70, opacity=0.75).encode(
        x=alt.X("distance_added_km:Q", title=added, axis=alt.Axis(format=TICKS)),
        y=alt.Y("time_saved_min:Q", title=saved, axis=alt.Axis(format=TICKS)),
        color=alt.Color("group:N", title=group, legend=LEGEND),
        tooltip=[
            alt.Tooltip("request:Q", title=request),
            alt.Tooltip("stops:Q", title=t("lab.chart.stops", lang)),
            alt.Tooltip("time_saved_min:Q", title=saved, format="+.1f"),
            alt.Tooltip("distance_added_km:Q", title=added, format="+.2f"),
        ],
    )
    median_x = base.mark_rule(strokeDash=[4, 3], color="#888").encode(x="median(distance_added_km):Q")
    median_y = base.mark_rule(strokeDash=[4, 3], color="#888").encode(y="median(time_saved_min):Q")
    scatter = (points + median_x + median_y).properties(
        width=380, height=300, title=t("lab.chart.difference_title", lang, n=len(pairs))
    )
    histogram = (
        base.mark_bar(opacity=0.8)
        .encode(
            x=alt.X("time_saved_min:Q", bin=alt.Bin(maxbins=20), title=saved, axis=alt.Axis(format=TICKS)),
            y=alt.Y("count():Q", title=t("lab.chart.requests", lang), axis=alt.Axis(format=TICKS, tickMinStep=1)),
            color=alt.Color("group:N", title=group),
        )
        .properties(width=300, height=300, title=t("lab.chart.histogram_title", lang))
    )
    return alt.hconcat(scatter, histogram)


def pareto_frame(frame: pd.DataFrame, *, optimiser: str, group_label: GroupLabel, lang: Lang) -> pd.DataFrame:
    """Every request × strategy: % above the request's shortest distance and % above its fastest time (among
    the strategies run on the same matrix)."""
    ok = _ok(frame, optimiser)
    keys = ["request_id", "provider", "mode"]
    best = ok.groupby(keys)[["distance_m", "duration_s"]].transform("min")
    out = pd.DataFrame(
        {
            "request": ok["request_index"].astype(int) + 1,
            "strategy": [strategy_name(s, lang) for s in ok["strategy"]],
            "group": [group_label(r, p, m) for r, p, m in zip(ok["region"], ok["provider"], ok["mode"])],
            "distance_over_pct": (ok["distance_m"] / best["distance_m"].where(best["distance_m"] > 0) - 1) * 100,
            "time_over_pct": (ok["duration_s"] / best["duration_s"].where(best["duration_s"] > 0) - 1) * 100,
            "km": ok["distance_m"] / 1000.0,
            "minutes": ok["duration_s"] / 60.0,
        }
    )
    return out.fillna({"distance_over_pct": 0.0, "time_over_pct": 0.0}).reset_index(drop=True)


def pareto_chart(points: pd.DataFrame, *, lang: Lang) -> alt.Chart:
    dist = t("lab.chart.distance_over", lang)
    time = t("lab.chart.time_over", lang)
    strategy = t("lab.chart.strategy", lang)
    chart: alt.Chart = (  # annotated: altair's mark_* methods are typed as returning Any
        alt.Chart(points)
        .mark_point(filled=True, size=70, opacity=0.7)
        .encode(
            x=alt.X("distance_over_pct:Q", title=dist, axis=alt.Axis(format=TICKS)),
            y=alt.Y("time_over_pct:Q", title=time, axis=alt.Axis(format=TICKS)),
            color=alt.Color(
                "strategy:N",
                title=strategy,
                legend=alt.Legend(labelLimit=360, titleLimit=360),  # right: a bottom legend hid the title
                scale=alt.Scale(
                    domain=[strategy_name(s, lang) for s in STRATEGY_COLOURS], range=list(STRATEGY_COLOURS.values())
                ),
            ),
            shape=alt.Shape("group:N", title=t("lab.chart.group", lang), legend=alt.Legend(labelLimit=360)),
            tooltip=[
                alt.Tooltip("request:Q", title=t("lab.chart.request", lang)),
                alt.Tooltip("strategy:N", title=strategy),
                alt.Tooltip("km:Q", title=t("lab.chart.km", lang), format=".2f"),
                alt.Tooltip("minutes:Q", title=t("lab.chart.minutes", lang), format=".1f"),
                alt.Tooltip("distance_over_pct:Q", title=dist, format=".1f"),
                alt.Tooltip("time_over_pct:Q", title=time, format=".1f"),
            ],
        )
        .properties(width="container", height=340, title=t("lab.chart.pareto_title", lang, n=len(points)))
    )
    return chart


def _bucket_order(bucket: str) -> int:
    head = str(bucket).split("-")[0]
    return int(head) if head.isdigit() else -1


def optimiser_frame(summary: LabSummary, *, objective: str, group_label: GroupLabel, lang: Lang) -> pd.DataFrame:
    """The summary's optimiser rows for one objective: gap (%) and time (ms), median and p10–p90, n, by size."""
    rows: list[dict[str, object]] = []
    for o in summary.optimisers:
        if o.objective != objective:
            continue
        rows.append(
            {
                "size": o.size_bucket,
                "order": _bucket_order(o.size_bucket),
                "optimiser": optimiser_name(o.optimiser, lang),
                "group": group_label(o.region, o.provider, o.mode),
                "n": o.n,
                "errors": o.n_errors,
                "at_best": o.n_at_best,
                "gap_median": None if o.gap.median is None else o.gap.median * 100,
                "gap_p10": None if o.gap.p10 is None else o.gap.p10 * 100,
                "gap_p90": None if o.gap.p90 is None else o.gap.p90 * 100,
                "gap_worst": None if o.worst_gap is None else o.worst_gap * 100,
                "time_median": None if o.time_s.median is None else o.time_s.median * 1000,
                "time_p10": None if o.time_s.p10 is None else o.time_s.p10 * 1000,
                "time_p90": None if o.time_s.p90 is None else o.time_s.p90 * 1000,
                "time_n": o.time_s.n,
            }
        )
    columns = ["size", "order", "optimiser", "group", "n", "errors", "at_best", "gap_median", "gap_p10", "gap_p90"]
    columns += ["gap_worst", "time_median", "time_p10", "time_p90", "time_n"]
    return pd.DataFrame(rows, columns=columns)


def _by_size(data: pd.DataFrame, *, value: str, title: str, y_title: str, lang: Lang) -> alt.LayerChart:
    sizes = sorted(set(data["size"]), key=_bucket_order)
    x = alt.X("size:N", title=t("lab.chart.size", lang), sort=sizes)
    offset = alt.XOffset("optimiser:N")
    colour = alt.Color("optimiser:N", title=t("lab.chart.optimiser", lang), legend=LEGEND)
    tooltip = [
        alt.Tooltip("optimiser:N", title=t("lab.chart.optimiser", lang)),
        alt.Tooltip("size:N", title=t("lab.chart.size", lang)),
        alt.Tooltip("n:Q", title="n"),
        alt.Tooltip(f"{value}_median:Q", title=t("lab.chart.median", lang), format=".2f"),
        alt.Tooltip(f"{value}_p10:Q", title="p10", format=".2f"),
        alt.Tooltip(f"{value}_p90:Q", title="p90", format=".2f"),
    ]
    base = alt.Chart(data.dropna(subset=[f"{value}_median"]))
    bars = base.mark_rule(strokeWidth=2).encode(
        x=x,
        xOffset=offset,
        y=alt.Y(f"{value}_p10:Q", title=y_title, axis=alt.Axis(format=TICKS)),
        y2=f"{value}_p90:Q",
        color=colour,
    )
    dots = base.mark_point(filled=True, size=70).encode(
        x=x, xOffset=offset, y=f"{value}_median:Q", color=colour, tooltip=tooltip
    )
    # the height holds the plot, the rotated size labels and the three-line legend below (Streamlit fits the whole
    # chart into it: at 300 the plot was squeezed to a strip with a single "0" tick)
    chart: alt.LayerChart = (bars + dots).properties(width="container", height=BY_SIZE_HEIGHT, title=title)
    return chart  # annotated: altair's mark_* methods are typed as returning Any, and so is bars + dots


def gap_chart(data: pd.DataFrame, *, lang: Lang) -> alt.LayerChart:
    return _by_size(
        data, value="gap", title=t("lab.chart.gap_title", lang), y_title=t("lab.chart.gap_axis", lang), lang=lang
    )


def time_chart(data: pd.DataFrame, *, lang: Lang) -> alt.LayerChart:
    return _by_size(
        data, value="time", title=t("lab.chart.time_title", lang), y_title=t("lab.chart.time_axis", lang), lang=lang
    )


def estimate_frame(frame: pd.DataFrame, groups: list[tuple[str, str, str]], *, group_label: GroupLabel) -> pd.DataFrame:
    """The routes of groups flagged STRATEGIES_CANNOT_DIFFER: distance (km) and time (min) of each."""
    ok = frame[(frame["status"] == "ok") & frame["strategy"].notna()]
    mask = [(r, p, m) in set(groups) for r, p, m in zip(ok["region"], ok["provider"], ok["mode"])]
    rows = ok[mask]
    return pd.DataFrame(
        {
            "km": rows["distance_m"] / 1000.0,
            "minutes": rows["duration_s"] / 60.0,
            "group": [group_label(r, p, m) for r, p, m in zip(rows["region"], rows["provider"], rows["mode"])],
        }
    ).reset_index(drop=True)


def estimate_chart(data: pd.DataFrame, *, lang: Lang) -> alt.Chart:
    """Time against distance on straight-line estimates: every route on one line per mode."""
    chart: alt.Chart = (  # annotated: altair's mark_* methods are typed as returning Any
        alt.Chart(data)
        .mark_circle(size=60, opacity=0.7)
        .encode(
            x=alt.X("km:Q", title=t("lab.chart.km", lang)),
            y=alt.Y("minutes:Q", title=t("lab.chart.minutes", lang)),
            color=alt.Color("group:N", title=t("lab.chart.group", lang), legend=LEGEND),
        )
        .properties(width="container", height=260, title=t("lab.chart.estimate_title", lang, n=len(data)))
    )
    return chart


# ---- exports ----------------------------------------------------------------------------------------------
def summary_csv(summary: LabSummary) -> bytes:
    """The summary as CSV in UTF-8 with a byte-order mark (Excel then reads Chinese names and signs right)."""
    from core.app.lab import summary_table

    csv: str = summary_table(summary).to_csv(index=False)  # pandas (no stubs installed) types it as Any
    return (BOM + csv).encode("utf-8")


def export_name(batch_name: str, what: str, suffix: str) -> str:
    """``helsinki-delivery-200-summary.csv``: files are named after the batch."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in batch_name).strip("-") or "lab"
    return f"{safe}-{what}.{suffix}"


def vl_convert_available() -> bool:
    try:
        import vl_convert  # noqa: F401
    except ImportError:
        return False
    return True


def chart_html(chart: alt.TopLevelMixin) -> str:
    """The chart as a standalone HTML page: Vega's scripts inline when vl-convert is installed (offline),
    else Altair's default page (which loads them from a CDN when opened)."""
    if vl_convert_available():
        return chart.to_html(inline=True)
    return chart.to_html()


def chart_png(chart: alt.TopLevelMixin, *, scale: float = 2.0) -> bytes | None:
    """The chart as PNG (vl-convert renders it locally; None when it is not installed)."""
    if not vl_convert_available():
        return None
    import vl_convert as vlc

    spec = chart.to_dict()
    _fixed_size(spec)  # "container" has no meaning outside a page: a fixed width for a slide
    return bytes(vlc.vegalite_to_png(json.dumps(spec), scale=scale))


def _fixed_size(spec: Any) -> None:
    if isinstance(spec, dict):
        if spec.get("width") == "container":
            spec["width"] = 640
        for value in spec.values():
            _fixed_size(value)
    elif isinstance(spec, list):
        for value in spec:
            _fixed_size(value)
