"""The summary's statistics on hand-made tables with known values."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from core.errors import InputError
from core.lab.summary import spread, summarize, summary_frames


def route_row(request: str, strategy: str, distance: float, duration: float, **extra) -> dict:
    row = {
        "request_id": request,
        "region": "helsinki",
        "provider": "offline",
        "mode": "driving",
        "strategy": strategy,
        "optimiser": "project",
        "status": "ok",
        "error_code": None,
        "distance_m": distance,
        "duration_s": duration,
        "stop_order": json.dumps([0, 1] if strategy == "shortest_distance" else [1, 0]),
        "metric_source": "valhalla",
        "estimated_pairs": 0,
        "objective": None,
        "gap": None,
        "best_known_exact": None,
        "opt_time_s": None,
        "size_bucket": "1-5",
    }
    return {**row, **extra}


def pair_table(saved: list[float], added: list[float], **extra) -> pd.DataFrame:
    rows = []
    for i, (s, a) in enumerate(zip(saved, added, strict=True)):
        rows.append(route_row(f"r{i}", "shortest_distance", 10_000, 2_000, **extra))
        rows.append(route_row(f"r{i}", "fastest_time", 10_000 + a, 2_000 - s, **extra))
    return pd.DataFrame(rows)


def test_spread_gives_n_median_and_the_10th_and_90th_percentiles():
    s = spread(list(range(1, 11)))  # 1..10
    assert s.n == 10
    assert s.median == pytest.approx(5.5)
    assert s.p10 == pytest.approx(1.9)  # linear interpolation: 1 + 0.9 * (2 - 1)
    assert s.p90 == pytest.approx(9.1)
    assert s.mean == pytest.approx(5.5)
    assert s.median_ci_low <= s.median <= s.median_ci_high
    assert 1 <= s.median_ci_low and s.median_ci_high <= 10


def test_the_bootstrap_interval_is_seeded_and_collapses_on_a_constant():
    values = [3.0, 8.0, 1.0, 9.0, 4.0, 4.0, 7.0]
    assert spread(values, seed=5) == spread(values, seed=5)
    assert spread(values, seed=5).median_ci_low is not None
    constant = spread([42.0] * 9)
    assert (constant.median_ci_low, constant.median, constant.median_ci_high) == (42.0, 42.0, 42.0)
    assert spread([]).n == 0 and spread([]).median is None


def test_a_pair_of_strategies_reports_time_saved_and_distance_added_per_request():
    saved = [60, 120, 0, 30, 90]
    added = [500, 900, 0, 100, 700]
    summary = summarize(pair_table(saved, added), a="fastest_time", b="shortest_distance")
    (pair,) = summary.pairs
    assert (pair.a, pair.b, pair.n, pair.n_differ) == ("fastest_time", "shortest_distance", 5, 5)
    assert pair.time_saved_s.median == 60
    assert pair.time_saved_s.p10 == pytest.approx(np.percentile(saved, 10))
    assert pair.time_saved_s.p90 == pytest.approx(np.percentile(saved, 90))
    assert pair.distance_added_m.median == 500
    assert pair.flags == []
    # the other way round the signs turn
    (back,) = summarize(pair_table(saved, added), a="shortest_distance", b="fastest_time").pairs
    assert back.time_saved_s.median == -60 and back.distance_added_m.median == -500


def test_offline_estimates_are_flagged_as_strategies_that_cannot_differ():
    frame = pair_table([0, 0, 0], [0, 0, 0], metric_source="offline_estimate")
    summary = summarize(frame)
    assert [f.code for f in summary.flags] == ["STRATEGIES_CANNOT_DIFFER"]
    assert summary.flags[0].count == 6
    assert summary.pairs[0].flags == ["STRATEGIES_CANNOT_DIFFER"]
    partly = pair_table([10, 20], [5, 5])
    partly.loc[0, "estimated_pairs"] = 2
    assert [f.code for f in summarize(partly).flags] == ["PARTLY_ESTIMATED"]


def test_error_rows_are_counted_by_code_and_flagged():
    frame = pair_table([10, 20], [5, 5])
    frame.loc[1, ["status", "error_code"]] = ["error", "UNRESOLVED_POINT"]
    summary = summarize(frame)
    assert summary.errors == {"UNRESOLVED_POINT": 1}
    assert summary.pairs[0].n == 1  # the request with an error row has no pair
    assert any(f.code == "ERRORS" and f.count == 1 for f in summary.flags)


def test_optimiser_gaps_and_times_by_size_bucket():
    rows = []
    gaps = {"project": [0.0, 0.0, 0.0], "nearest_neighbour": [0.10, 0.30, 0.05]}
    for optimiser, values in gaps.items():
        for i, gap in enumerate(values):
            rows.append(
                route_row(
                    f"r{i}",
                    "shortest_distance",
                    1000,
                    100,
                    optimiser=optimiser,
                    objective="distance_m",
                    gap=gap,
                    best_known_exact=True,
                    opt_time_s=0.01 * (i + 1),
                    size_bucket="6-10" if i else "1-5",
                )
            )
    rows.append(route_row("r0", "balanced", 1000, 100, objective="pareto"))  # no single objective: not a gap
    summary = summarize(pd.DataFrame(rows))
    by = {(o.optimiser, o.size_bucket): o for o in summary.optimisers}
    assert set(by) == {
        ("nearest_neighbour", "1-5"),
        ("nearest_neighbour", "6-10"),
        ("project", "1-5"),
        ("project", "6-10"),
    }
    nn = by[("nearest_neighbour", "6-10")]
    assert nn.n == 2 and nn.gap.mean == pytest.approx(0.175) and nn.worst_gap == pytest.approx(0.30)
    assert nn.gap.median == pytest.approx(0.175) and nn.n_at_best == 0 and nn.n_best_exact == 2
    assert nn.time_s.median == pytest.approx(0.025) and nn.worst_time_s == pytest.approx(0.03)
    assert by[("project", "1-5")].n_at_best == 1 and by[("project", "1-5")].worst_gap == 0.0
    frames = summary_frames(summary)
    assert list(frames["optimisers"]["gap.mean"].round(4)) == [0.1, 0.175, 0.0, 0.0]


def test_the_summary_counts_what_stopped_each_search_and_the_reproducible_rows():
    stops = [("stall", True), ("stall", True), ("time_limit", False), ("max_kicks", True)]
    rows = [
        route_row(
            f"r{i}",
            "shortest_distance",
            1000,
            100,
            objective="distance_m",
            gap=0.0,
            search_stop=stop,
            reproducible=reproducible,
            size_bucket="16-20",
        )
        for i, (stop, reproducible) in enumerate(stops)
    ]
    (project,) = summarize(pd.DataFrame(rows)).optimisers
    assert project.stops == {"max_kicks": 1, "stall": 2, "time_limit": 1}
    assert project.n_reproducible == 3


def test_one_strategy_of_a_pair_alone_is_refused():
    with pytest.raises(InputError) as err:
        summarize(pair_table([1], [1]), a="fastest_time")
    assert err.value.field == "b"
    with pytest.raises(InputError) as err:
        summarize(pair_table([1], [1]), a="fastest_time", b="balanced")
    assert err.value.field == "b"
