"""Every benchmark behind ``python -m bench`` (and ``python -m core bench``, handed over to it): the batch tables on
tiny instances written here (tests never read the shared benchmark folder), the itinerary timing, and structured
errors for a missing folder or optional package."""

from __future__ import annotations

import itertools
import json
import sys
import types

import pytest

from bench.__main__ import main

pytestmark = pytest.mark.slow

SQUARE = """NAME: sq4
TYPE: TSP
DIMENSION: 4
EDGE_WEIGHT_TYPE: EUC_2D
NODE_COORD_SECTION
1 0 0
2 0 10
3 10 10
4 10 0
EOF
"""

SOLOMON = """TINY

VEHICLE
NUMBER     CAPACITY
  3         100

CUSTOMER
CUST NO.  XCOORD.   YCOORD.    DEMAND   READY TIME  DUE DATE   SERVICE   TIME
    0      0          0          0          0        1000          0
    1      10         0          10         0        1000         10
    2      0          10         10         0        1000         10
    3      -10        0          10         0        1000         10
"""


def _bench_dir(tmp_path):
    (tmp_path / "tsplib").mkdir()
    (tmp_path / "tsplib" / "sq4.tsp").write_text(SQUARE)
    (tmp_path / "solomon").mkdir()
    (tmp_path / "solomon" / "TINY.txt").write_text(SOLOMON)
    known = {
        "tsplib": {"sq4": 40},
        "solomon": {"TINY": {"vehicles": 1, "distance": 64.14}},
        "solomon_min_distance": {"TINY": {"vehicles": 1, "distance": 64.14}},
    }
    (tmp_path / "known_optima.json").write_text(json.dumps(known))
    return tmp_path


def test_bench_tsplib_prints_the_table_with_the_gap_to_the_optimum(tmp_path, capsys):
    bench = _bench_dir(tmp_path)
    assert main(["tsplib", "--dir", str(bench), "--limits", "0.2"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| sq4")]
    assert len(rows) == 1
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    assert cells[:5] == ["sq4", "4", "40", "40", "0.00 %"]


def test_bench_solomon_solves_and_checks_each_instance(tmp_path, capsys):
    bench = _bench_dir(tmp_path)
    out = tmp_path / "results.jsonl"
    assert main(["solomon", "--dir", str(bench), "--time-limit", "1", "--out", str(out), "TINY"]) == 0
    row = json.loads(out.read_text().splitlines()[-1])
    # one vehicle serves all three (capacity 100): depot -> 1 -> 2 -> 3 -> depot in some order, 20 + 2*14.14 + 20
    assert row["instance"] == "TINY" and row["feasible"] and row["vehicles"] == 1
    assert row["distance"] == pytest.approx(20 + 20 * 2**0.5, abs=1e-6)
    assert "Target met" in capsys.readouterr().out


def test_bench_without_the_instances_folder_is_a_structured_error(tmp_path, capsys):
    assert main(["tsplib", "--dir", str(tmp_path / "missing")]) == 2
    err = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert err["error"]["field"] == "dir"


def test_bench_lkh_names_its_optional_package(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "elkai", None)  # as on a machine without the benchmark-only package
    assert main(["lkh", "--sizes", "10", "--seeds", "1"]) == 2
    assert "elkai" in json.loads(capsys.readouterr().err.strip().splitlines()[-1])["error"]["message"]


def test_bench_itinerary_times_every_demo_trip_per_variant(capsys):
    assert main(["itinerary", "--repeats", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    trips = {r["trip"] for r in out["rows"]}
    assert {"shanghai_3day_30places", "shanghai_2day_monday_museum", "shanghai_family_day"} <= trips
    for r in out["rows"]:
        assert r["median_s"] > 0 and r["critic_passed"] and r["status"] == "ready"
        assert r["chosen"] in ("per_day", "multi_vehicle")
    auto = {r["trip"]: r for r in out["rows"] if r["variant"] == "auto"}
    assert auto["shanghai_3day_30places"]["visits"] == 30


class _BruteForceLKH:
    """Stands in for elkai (a benchmark-only package): the exact tour of a tiny matrix, closed like elkai's."""

    def __init__(self, matrix):
        self.matrix = matrix

    def solve_tsp(self, runs=10):
        n = len(self.matrix)
        best = min(
            itertools.permutations(range(1, n)),
            key=lambda p: sum(self.matrix[a][b] for a, b in zip((0, *p), (*p, 0))),
        )
        return [0, *best, 0]


def test_bench_lkh_compares_the_tour_with_the_reference_solver(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "elkai", types.SimpleNamespace(DistanceMatrix=_BruteForceLKH))
    assert main(["lkh", "--sizes", "7", "--seeds", "1", "2", "--time-limit", "0.2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [json.loads(line) for line in lines if line.startswith("{")]
    assert [(r["n"], r["seed"]) for r in rows] == [(7, 1), (7, 2)]
    for r in rows:  # seven points: our tour is optimal too (the reference works on rounded weights)
        assert r["ratio"] == pytest.approx(1.0, abs=1e-5)
    assert lines[-1].startswith("n=7: mean ratio 1.0000")


def test_single_runs_take_their_options_before_the_benchmark_too(capsys):
    assert main(["--repeats", "1", "plan", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["stops"] == 2 and out["repeats"] == 1
    assert main(["--repeats", "0", "plan", "2"]) == 2
    assert json.loads(capsys.readouterr().err.strip().splitlines()[-1])["error"]["field"] == "repeats"


def test_a_batch_option_before_the_benchmark_is_an_error_not_ignored(tmp_path, capsys):
    assert main(["--time-limit", "3", "solomon", "--dir", str(_bench_dir(tmp_path))]) == 2
    err = json.loads(capsys.readouterr().err.strip().splitlines()[-1])["error"]
    assert err["field"] == "time_limit" and "bench solomon" in err["message"]


def test_core_hands_bench_over_to_its_own_process_and_passes_the_exit_code_through(capfd):
    from core.__main__ import main as core_main

    assert core_main(["bench", "--repeats", "0", "plan", "2"]) == 2  # written by the child: capfd, not capsys
    assert json.loads(capfd.readouterr().err.strip().splitlines()[-1])["error"]["field"] == "repeats"
    assert core_main(["bench", "--help"]) == 0
    assert "tsplib" in capfd.readouterr().out


def test_core_help_lists_bench_without_importing_it(monkeypatch, capsys):
    from core.__main__ import main as core_main

    monkeypatch.delitem(sys.modules, "bench.cli", raising=False)
    assert core_main(["--help"]) == 0
    assert "bench" in capsys.readouterr().out and "bench.cli" not in sys.modules
