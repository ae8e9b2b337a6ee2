"""The agent's command-line faces: python -m core route | route --file | run."""

import json
import subprocess
import sys

import pytest

from tests.support.paths import ROOT as PROJECT_ROOT

ROOT = PROJECT_ROOT


def _env(tmp_path):
    return {
        "PATH": "/usr/bin:/bin",
        "OMNI_DB_URL": f"sqlite:///{tmp_path / 'omni.db'}",
        "OMNI_AGENT_EVENT_LOG": str(tmp_path / "events.jsonl"),
    }


def run_process(*args, tmp_path):
    """In a new process: the entry point end to end."""
    return subprocess.run(
        [sys.executable, "-m", "core", *args], cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def run(core_cli):
    """``python -m core ARGS`` in this process (tests/support/cli.py), on its own database and event log."""
    return lambda *args, tmp_path: core_cli(*args, env=_env(tmp_path))


def test_route_prints_the_router_output(tmp_path):
    proc = run_process("route", "明天天气", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["route"] == "SYSTEM1_API"
    assert set(out) >= {
        "route",
        "confidence",
        "reasons",
        "required_capabilities",
        "consent_required",
        "budget",
        "ui_hint",
    }


def test_route_file_prints_one_json_line_per_message_with_router_ms(tmp_path, run):
    msgs = tmp_path / "msgs.txt"
    msgs.write_text("删除清水寺\n官网查房\n\n规划 5 天游+冷门+还能订到\n", encoding="utf-8")
    proc = run("route", "--file", str(msgs), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [l["route"] for l in lines] == ["SYSTEM1_API", "SYSTEM2_WEBBROWSE", "SYSTEM2_REASONING"]
    assert all(isinstance(l["router_ms"], (int, float)) for l in lines)
    assert lines[1]["consent_required"] is True


def test_run_without_consent_stops_at_need_consent(tmp_path, run):
    proc = run("run", "--message", "去酒店官网查下周六还有没有房", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["route"]["route"] == "SYSTEM2_WEBBROWSE"
    assert out["result"]["status"] == "NEED_CONSENT"


def test_route_without_a_message_exits_2(tmp_path, run):
    proc = run("route", tmp_path=tmp_path)
    assert proc.returncode == 2
    assert json.loads(proc.stderr)["error"]["field"] == "message"


def test_run_exit_codes_say_whether_the_answer_is_a_success(tmp_path, run):
    ok = run("run", "--message", "明天天气", tmp_path=tmp_path)
    assert ok.returncode == 0 and json.loads(ok.stdout)["result"]["status"] == "OK"
    bad = run("run", "--message", "2月30日去外滩", tmp_path=tmp_path)  # a date that does not exist
    out = json.loads(bad.stdout)
    assert bad.returncode == 2 and out["result"]["error_code"] == "INVALID_INPUT"
    assert "2月30日" in out["result"]["answer_text"] and "Traceback" not in bad.stderr
    failed = run("run", "--message", "确认", "--confirm", "dr-forged", tmp_path=tmp_path)
    assert failed.returncode == 1 and json.loads(failed.stdout)["result"]["status"] == "FAILED"


def test_run_takes_the_step_budget_from_the_command_line(tmp_path, run):
    """QA case 7 from the command line: one step is not enough for a 3-day plan (TIMEOUT, BUDGET_EXCEEDED), and the
    answer still carries a fallback and what to do next; the exit code says it is not a success."""
    proc = run(
        "run",
        "--message",
        "规划3天上海行程",
        "--max-steps",
        "1",
        "--now",
        "2026-05-04T09:00:00+08:00",
        tmp_path=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    assert out["route"]["budget"]["max_steps"] == 1
    assert (out["result"]["status"], out["result"]["error_code"]) == ("TIMEOUT", "BUDGET_EXCEEDED")
    assert out["observability"]["fallback_used"] is True and out["result"]["next_steps"]


def test_run_takes_the_time_and_browser_budgets_and_refuses_one_out_of_range(tmp_path, run):
    proc = run(
        "run", "--message", "plan 2 days in Shanghai", "--max-seconds", "45", "--max-browser-steps", "3",
        "--now", "2026-05-04T09:00:00+08:00", tmp_path=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["route"]["budget"]["max_seconds"] == 45
    bad = run("run", "--message", "plan 2 days in Shanghai", "--max-steps", "0", tmp_path=tmp_path)
    assert bad.returncode == 2 and "max_steps" in bad.stderr and not bad.stdout


@pytest.mark.parametrize(
    ("message", "problem"),
    [
        ("规划今天上海一天，去外滩，早上7点到8点", "WINDOW_PAST"),  # over at 09:00
        ("plan today in Shanghai with the Bund, from 6pm to 5pm", "END_NOT_AFTER_START"),
    ],
)
def test_run_never_says_ok_for_hours_it_could_not_use(tmp_path, run, message, problem):
    """Issue 31: the CLI's answer for hours that cannot be the day is NEED_MORE_INFO with the hours asked again."""
    proc = run("run", "--message", message, "--now", "2026-11-27T09:00:00+08:00", tmp_path=tmp_path)
    result = json.loads(proc.stdout)["result"]
    assert result["status"] == "NEED_MORE_INFO"
    assert {"code": "missing", "args": {"field": "day_window", "problem": problem}} in result["next_steps"]
