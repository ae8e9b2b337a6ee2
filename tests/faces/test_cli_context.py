"""The command line is a face: each command builds one ``RequestContext`` from its arguments (--user, --lang,
--region, --provider, --now) and calls ``core.app`` (docs/ARCHITECTURE.md, "Command line and API")."""

from __future__ import annotations

import json

import pytest

from core.i18n import has_cjk
from tests.support.paths import ROOT

HELSINKI = ROOT / "data" / "scenarios" / "helsinki-museums.json"


@pytest.fixture
def shipped_packs(monkeypatch):
    from core.config import get_settings

    monkeypatch.delenv("OMNI_DATA_DIR", raising=False)
    monkeypatch.delenv("OMNI_REGION", raising=False)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_plan_goes_through_core_app_on_the_context_of_its_arguments(shipped_packs, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)  # the scenario asks for its HTML report, written to the current folder
    import core.app.route as route_app
    from core.__main__ import main

    seen = []
    real = route_app.plan_route

    def spy(ctx, request, **kwargs):
        seen.append(ctx)
        return real(ctx, request, **kwargs)

    monkeypatch.setattr(route_app, "plan_route", spy)
    assert main(["plan", "--request", str(HELSINKI), "--provider", "offline", "--region", "helsinki"]) == 0
    out = json.loads(capsys.readouterr().out)
    [ctx] = seen
    assert (ctx.region.name, ctx.provider_name, ctx.timezone) == ("helsinki", "offline", "Europe/Helsinki")
    assert out["region"] == "helsinki" and out["provider"] == ctx.providers.name
    # the result counts this request's calls: those of the context's own view of the providers
    assert out["provider_calls"] == ctx.providers.snapshot().model_dump()
    assert out["provider_calls"]["matrix"] >= 1 and out["success"] is True


def test_plan_with_an_unknown_region_is_a_field_error(shipped_packs, capsys):
    from core.__main__ import main

    assert main(["plan", "--request", str(HELSINKI), "--provider", "offline", "--region", "atlantis"]) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.fixture
def run(core_cli):
    """``python -m core ARGS`` in this process (tests/support/cli.py), on its own database and event log."""
    return lambda *args, tmp_path: core_cli(
        *args,
        env={
            "OMNI_DB_URL": f"sqlite:///{tmp_path / 'omni.db'}",
            "OMNI_AGENT_EVENT_LOG": str(tmp_path / "events.jsonl"),
        },
    )


def test_run_lang_zh_answers_an_english_message_in_chinese(tmp_path, run):
    message = "What's the weather tomorrow?"
    now = "2030-01-04T10:00:00+08:00"  # the context's clock: "tomorrow" is 2030-01-05
    zh = run("run", "--message", message, "--lang", "zh", "--now", now, tmp_path=tmp_path)
    assert zh.returncode == 0, zh.stderr
    answer = json.loads(zh.stdout)["result"]["answer_text"]
    assert has_cjk(answer) and "2030-01-05" in answer
    en = run("run", "--message", message, "--now", now, tmp_path=tmp_path)  # no --lang: the message's language
    assert en.returncode == 0, en.stderr
    answer = json.loads(en.stdout)["result"]["answer_text"]
    assert "weather" in answer.lower() and "2030-01-05" in answer


def test_run_takes_user_as_well_as_user_id(tmp_path, run):
    proc = run("run", "--message", "明天天气", "--user", "alice", "--region", "shanghai", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"]["status"] == "OK"
    bad = run("run", "--message", "明天天气", "--now", "tomorrow", tmp_path=tmp_path)
    assert bad.returncode == 2 and json.loads(bad.stderr)["error"]["field"] == "now"
