import json
import os
import re
import subprocess
import sys

import pytest

from tests.support.paths import ROOT as PROJECT_ROOT
from tests.support.region_packs import write_pack

ROOT = PROJECT_ROOT


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    root = write_pack(tmp_path_factory.mktemp("data"))
    return {**os.environ, "OMNI_DATA_DIR": str(root), "OMNI_REGION": "testcity"}


def run(args, env):
    """In a new process: for ``bench``, which core hands to a new interpreter of its own anyway."""
    return subprocess.run(
        [sys.executable, "-m", "core", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def cli(core_cli, env):
    """``python -m core ARGS`` in this process, on the module's pack (tests/support/cli.py)."""
    return lambda args: core_cli(*args, env=env)


def write(tmp_path, obj):
    p = tmp_path / "req.json"
    p.write_text(json.dumps(obj, ensure_ascii=False) if not isinstance(obj, str) else obj, encoding="utf-8")
    return str(p)


GOOD = {
    "origin_mode": "fixed",
    "origin_address": "人民广场",
    "destination_address": "外滩",
    "stops": [{"address": "豫园"}, {"address": "新天地"}, {"address": "上海博物馆"}],
}


def test_plan_prints_the_result_as_json(tmp_path, env):
    """In a new process: the entry point end to end (``python -m core``)."""
    html = tmp_path / "out.html"
    proc = run(
        [
            "plan",
            "--request",
            write(tmp_path, GOOD),
            "--provider",
            "offline",
            "--region",
            "testcity",
            "--html",
            str(html),
        ],
        env,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["success"] is True
    assert out["best_route"]["full_order_labels"][0] == "人民广场"
    assert len(out["resolved_stops"]) == 3
    assert out["provider_calls"]["matrix"] == 1
    assert "<html" in html.read_text(encoding="utf-8").lower()


@pytest.mark.parametrize(
    "body,field",
    [
        ({**GOOD, "stops": []}, "stops"),
        ({**GOOD, "origin_address": None}, "origin_address"),
        ({**GOOD, "route_strategy": "cheapest"}, "route_strategy"),
        ("{not json", "request"),
        ({**GOOD, "stops": [{"address": "zzzz qqq 不存在的地方"}]}, "stops.0"),
    ],
)
def test_bad_input_exits_2_with_a_structured_error(tmp_path, cli, body, field):
    proc = cli(["plan", "--request", write(tmp_path, body)])
    assert proc.returncode == 2
    err = json.loads(proc.stderr.strip().splitlines()[-1])["error"]
    assert set(err) == {"code", "message", "field"}
    assert err["field"] == field
    assert proc.stdout == ""


def test_missing_file_and_unknown_provider_exit_2(tmp_path, cli):
    proc = cli(["plan", "--request", str(tmp_path / "nope.json")])
    assert proc.returncode == 2 and "not found" in proc.stderr
    proc = cli(["plan", "--request", write(tmp_path, GOOD), "--provider", "carrier-pigeon"])
    assert proc.returncode == 2 and json.loads(proc.stderr)["error"]["field"] == "provider"


def test_usage_errors_exit_2(cli):
    assert cli(["plan"]).returncode == 2


def test_usage_errors_also_print_a_structured_error(cli):
    proc = cli(["plan"])
    assert proc.returncode == 2 and proc.stdout == ""
    err = json.loads(proc.stderr.strip().splitlines()[-1])["error"]
    assert err["code"] == "INVALID_INPUT" and err["field"] == "request" and "--request" in err["message"]


@pytest.mark.parametrize(
    "args,field",
    [
        (["bench", "plan", "abc"], "target"),
        (["bench", "plan", "0"], "target"),
        (["bench", "plan", "2", "--repeats", "0"], "repeats"),
        (["bench", "plan", "2", "--time-limit", "0"], "time_limit"),
        (["bench", "plan", "150", "--repeats", "1"], "target"),  # more stops than the pack has places
    ],
)
def test_bench_rejects_bad_arguments_without_a_traceback(env, args, field):
    proc = run(args, env)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    err = json.loads(proc.stderr.strip().splitlines()[-1])["error"]
    assert err["field"] == field
    assert "\n" not in err["message"]


def test_plan_accepts_stops_as_plain_strings(tmp_path, cli):
    proc = cli(["plan", "--request", write(tmp_path, {**GOOD, "stops": ["豫园", "新天地"]})])
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["resolved_stops"]) == 2


def test_plan_puts_the_own_order_beside_the_best(tmp_path, cli):
    # issue 32: the same option as the request's own_order, from a flag; the facts in the JSON
    proc = cli(["plan", "--request", write(tmp_path, GOOD), "--own-order", "2,0,1"])
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    own, diff = out["own_route"], out["own_difference"]
    assert own["chosen_by"] == "person" and own["stop_order"] == [2, 0, 1]
    assert [p["id"] for p in own["points"]] == ["origin", "stops.2", "stops.0", "stops.1", "destination"]
    assert diff["delta_distance_m"] == own["total_distance_m"] - out["best_route"]["total_distance_m"]
    kept = json.loads(cli(["plan", "--request", write(tmp_path, GOOD), "--keep-order"]).stdout)
    assert kept["own_route"]["stop_order"] == [0, 1, 2]
    bad = cli(["plan", "--request", write(tmp_path, GOOD), "--own-order", "2,zero,1"])
    assert bad.returncode == 2 and json.loads(bad.stderr)["error"]["field"] == "own_order"


def test_plan_words_its_summary_in_the_language_asked(tmp_path, cli):
    """Issue 31: the summary and the optimiser's note are worded by the CLI from the catalogs (English by default)."""
    en = json.loads(cli(["plan", "--request", write(tmp_path, GOOD)]).stdout)
    zh = json.loads(cli(["plan", "--request", write(tmp_path, GOOD), "--lang", "zh"]).stdout)
    han = re.compile(r"[\u4e00-\u9fff]")
    assert en["summary"].startswith("Best order: ") and en["optimizer"]["note"]
    assert not han.search(en["optimizer"]["note"])
    assert zh["summary"].startswith("最佳顺序") and han.search(zh["optimizer"]["note"])
    assert en["best_route"] == zh["best_route"]  # the same facts, worded twice
