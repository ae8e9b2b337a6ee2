"""Batches run end to end: through the CLI, on a Dask LocalCluster, resumed after an interruption, reproducibly,
and with failing requests kept as error rows."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from core.__main__ import main
from core.config import get_settings
from core.lab import task as lab_task
from core.lab.generate import generate_batch, write_batch
from core.lab.results import COLUMNS, comparable, grid_of, load_results, parts_dir
from core.lab.runner import run_batch
from core.models.lab import OPTIMISERS, LabGrid
from tests.support.paths import ROOT

#: every optimiser but Valhalla's, whose optimized_route is randomised inside the engine (its rows say so)
GRID = LabGrid(
    strategies=["shortest_distance", "fastest_time", "balanced"],
    modes=["driving", "walking"],
    optimisers=["project", "ortools_gls", "nearest_neighbour"],
    ortools_time_limit_s=0.2,
    seed=3,
)
FULL_GRID = GRID.model_copy(update={"optimisers": list(OPTIMISERS)})


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("batch")
    return write_batch(
        generate_batch(region="helsinki", kind="delivery", n=3, stops=(3, 6), seed=11, settings=get_settings()),
        folder / "b.jsonl",
    )


@pytest.fixture(scope="module")
def reference(batch: Path, tmp_path_factory) -> pd.DataFrame:
    """An uninterrupted run in this process: what the other runs must reproduce."""
    out = tmp_path_factory.mktemp("ref") / "r.parquet"
    run_batch(batch, GRID, out, workers=1, bar=False, settings=get_settings())
    return load_results(out)


def test_a_small_batch_end_to_end_through_the_cli(batch: Path, tmp_path: Path, capsys):
    grid = tmp_path / "grid.json"
    grid.write_text(FULL_GRID.model_dump_json(), encoding="utf-8")
    out = tmp_path / "results.parquet"
    assert main(["lab", "run", str(batch), "--grid", str(grid), "--out", str(out), "--workers", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rows"] == 3 * 2 * 3 * 4 and report["error_rows"] == 0 and report["executor"] == "serial"
    table = load_results(out)
    assert list(table.columns) == COLUMNS
    assert load_results(out.with_suffix(".csv")).shape == table.shape
    assert grid_of(out) == FULL_GRID
    assert not table.loc[table["optimiser"] == "valhalla", "reproducible"].any()
    assert table.loc[table["optimiser"].isin(["project", "nearest_neighbour"]), "reproducible"].all()
    assert set(table["metric_source"]) == {"valhalla"}
    assert (table["status"] == "ok").all()
    assert (table["package_version"] != "").all() and (table["ortools_version"] != "absent").all()
    assert set(table["pack_data_date"]) == {"2019-04-21T09:50:14Z"} and set(table["seed"]) == {3}
    exact = table[(table["objective"] == "distance_m") & (table["optimiser"] == "project")]
    assert (exact["gap"] == 0).all() and exact["best_known_exact"].all()  # <= 6 stops: Held-Karp or enumeration
    assert (table.loc[table["objective"] != "pareto", "gap"] >= 0).all()
    # figures agree with the request: every stop once, in a permutation
    for _, row in table.iterrows():
        assert sorted(json.loads(row["stop_order"])) == list(range(row["n_stops"]))

    assert main(["lab", "summary", str(out), "--a", "fastest_time", "--b", "shortest_distance"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert {(p["mode"], p["n"]) for p in summary["pairs"]} == {("driving", 3), ("walking", 3)}
    assert not [f for f in summary["flags"] if f["code"] == "STRATEGIES_CANNOT_DIFFER"]


def test_the_same_seed_and_versions_give_the_same_table(batch: Path, reference: pd.DataFrame, tmp_path: Path):
    out = tmp_path / "again.parquet"
    run_batch(batch, GRID, out, workers=1, bar=False, settings=get_settings())
    pd.testing.assert_frame_equal(comparable(load_results(out)), comparable(reference))


def test_a_run_interrupted_after_some_tasks_resumes_to_the_same_table(
    batch: Path, reference: pd.DataFrame, tmp_path: Path, monkeypatch
):
    out = tmp_path / "resumed.parquet"
    real = lab_task.run_task
    calls = {"n": 0}

    def interrupted(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] > 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(lab_task, "run_task", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_batch(batch, GRID, out, workers=1, chunk_size=1, bar=False, settings=get_settings())
    assert len(list(parts_dir(out).glob("part-*.parquet"))) == 2 and not out.exists()
    monkeypatch.setattr(lab_task, "run_task", real)
    report = run_batch(batch, GRID, out, workers=1, chunk_size=1, resume=True, bar=False, settings=get_settings())
    assert (report.tasks_skipped, report.tasks_run) == (2, 4)
    pd.testing.assert_frame_equal(comparable(load_results(out)), comparable(reference))


def test_resume_with_another_grid_is_refused(batch: Path, tmp_path: Path, capsys):
    out = tmp_path / "r.parquet"
    run_batch(batch, LabGrid(), out, workers=1, bar=False, settings=get_settings())
    grid = tmp_path / "g.json"
    grid.write_text(GRID.model_dump_json(), encoding="utf-8")
    assert main(["lab", "run", str(batch), "--grid", str(grid), "--out", str(out), "--resume", "--workers", "1"]) == 2
    assert json.loads(capsys.readouterr().err.strip().splitlines()[-1])["error"]["field"] == "grid"


def test_the_dask_path_on_a_local_cluster_gives_the_same_table(batch: Path, reference: pd.DataFrame, tmp_path: Path):
    from distributed import LocalCluster

    out = tmp_path / "dask.parquet"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        settings = get_settings().model_copy(update={"dask_scheduler": cluster.scheduler_address})
        report = run_batch(batch, GRID, out, bar=False, settings=settings, chunk_size=2)
    assert report.executor == "dask" and report.tasks_run == 6
    pd.testing.assert_frame_equal(comparable(load_results(out)), comparable(reference))


@pytest.mark.slow
def test_the_dask_path_on_two_worker_processes_gives_the_same_table(
    batch: Path, reference: pd.DataFrame, tmp_path: Path
):
    """Issue 33: the lab on a real ``distributed`` scheduler whose two workers are processes of their own (as on other
    machines: nothing shared with this process but the scheduler's address) makes the local run's rows."""
    from distributed import Client, LocalCluster

    out = tmp_path / "dask.parquet"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            pids = set(client.run(os.getpid).values())
        settings = get_settings().model_copy(update={"dask_scheduler": cluster.scheduler_address})
        report = run_batch(batch, GRID, out, bar=False, settings=settings, chunk_size=1)
    assert len(pids) == 2 and os.getpid() not in pids
    assert report.executor == "dask" and report.tasks_run == 6
    pd.testing.assert_frame_equal(comparable(load_results(out)), comparable(reference))


def test_failing_requests_are_error_rows_never_lost_rows(batch: Path, tmp_path: Path):
    good = batch.read_text(encoding="utf-8").splitlines()[0]
    unknown = json.loads(good)
    unknown["id"] = "nowhere"
    unknown["request"]["stops"][1] = {"name": "Xyzzy Plugh Nowhere Street 999", "address": "Xyzzy Plugh Nowhere 999"}
    lines = [
        good,
        "{not json",
        json.dumps(unknown),
        json.dumps(
            {
                "id": "no-stops",
                "region": "helsinki",
                "kind": "route",
                "request": {"origin_mode": "fixed", "origin_address": "x", "destination_address": "y", "stops": []},
            }
        ),
    ]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "bad.parquet"
    grid = LabGrid(strategies=["fastest_time"], optimisers=["project", "nearest_neighbour"])
    report = run_batch(path, grid, out, workers=1, bar=False, settings=get_settings())
    table = load_results(out)
    assert report.rows == len(table) == 4 * 2
    by_id = {rid: rows for rid, rows in table.groupby("request_id")}
    assert set(by_id) == {json.loads(good)["id"], "line-2", "nowhere", "no-stops"}
    assert set(by_id["line-2"]["error_code"]) == {"INVALID_INPUT"}
    assert set(by_id["nowhere"]["error_code"]) == {"UNRESOLVED_POINT"}
    assert "stop 2" in by_id["nowhere"]["error_message"].iloc[0]
    assert set(by_id["no-stops"]["error_code"]) == {"INVALID_INPUT"}
    assert "stops" in by_id["no-stops"]["error_message"].iloc[0]
    assert list(table["request_index"]) == [0, 0, 1, 1, 2, 2, 3, 3]  # file order kept


def test_strategies_on_offline_estimates_are_flagged_from_a_real_run(tmp_path: Path):
    items = generate_batch(region="shanghai", kind="sightseeing", n=3, stops=(3, 5), seed=4, settings=get_settings())
    path = write_batch(items, tmp_path / "sh.jsonl")
    out = tmp_path / "sh.parquet"
    grid = LabGrid(optimisers=["project", "valhalla"])
    run_batch(path, grid, out, workers=1, bar=False, settings=get_settings())
    table = load_results(out)
    assert set(table["metric_source"]) == {"offline_estimate"}
    valhalla = table[table["optimiser"] == "valhalla"]
    assert set(valhalla["status"]) == {"not_applicable"} and set(valhalla["error_code"]) == {"NO_ROAD_NETWORK"}
    from core.lab.summary import summarize

    summary = summarize(table)
    assert [f.code for f in summary.flags] == ["STRATEGIES_CANNOT_DIFFER"]
    assert all(p.n_differ == 0 and p.time_saved_s.median == 0 for p in summary.pairs)


def test_trip_requests_run_through_the_itinerary_pipeline(tmp_path: Path):
    items = generate_batch(region="shanghai", kind="trip-day", n=2, stops=(4, 5), seed=9, settings=get_settings())
    out = tmp_path / "trips.parquet"
    run_batch(
        write_batch(items, tmp_path / "t.jsonl"),
        LabGrid(modes=["walking"]),
        out,
        workers=1,
        bar=False,
        settings=get_settings(),
    )
    table = load_results(out)
    assert list(table["optimiser"]) == ["itinerary", "itinerary"] and table["strategy"].isna().all()
    assert (table["status"] == "ok").all() and (table["distance_m"] > 0).all()
    assert set(table["metric_source"]) == {"offline_estimate"}
    for item, (_, row) in zip(items, table.iterrows(), strict=True):
        visited = [pid for day in json.loads(row["place_order"]) for pid in day]
        assert visited and set(visited) <= set(item.place_ids[1:])  # the trip's own places, nothing else


@pytest.mark.slow
def test_local_processes_and_a_killed_run_resumed_from_the_cli(batch: Path, reference: pd.DataFrame, tmp_path: Path):
    grid = tmp_path / "grid.json"
    grid.write_text(GRID.model_dump_json(), encoding="utf-8")
    out = tmp_path / "killed.parquet"
    cmd = [sys.executable, "-m", "core", "lab", "run", str(batch), "--grid", str(grid), "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [*cmd, "--workers", "1"], cwd=ROOT, env=env, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list(parts_dir(out).glob("part-*.parquet")):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not out.exists()
    done = subprocess.run(
        [*cmd, "--resume", "--workers", "2", "--no-progress"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout)
    assert report["executor"] == "local" and report["tasks_skipped"] >= 1
    pd.testing.assert_frame_equal(comparable(load_results(out)), comparable(reference))
