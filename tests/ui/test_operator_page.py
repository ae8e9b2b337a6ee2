"""The agent's operator page (issue 22 §6), with AppTest, in both languages: the live metrics as labelled rows, the
acceptance set run from its button, and the decision log of a turn asked on the chat page (this session's history)."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from core.config import get_settings
from tests.support.agent_packs import write_agent_pack
from tests.support.paths import ROOT as PROJECT_ROOT

pytestmark = pytest.mark.ui

OPERATOR = str(PROJECT_ROOT / "pages" / "operator.py")
CONSOLE = str(PROJECT_ROOT / "pages" / "agent_console.py")
CJK = re.compile(r"[\u3400-\u9fff]")
TITLE = {"en": "Agent operations", "zh": "助手运维"}
STEP = {"en": "Step", "zh": "步骤"}
PART = {"en": "Part of the agent", "zh": "助手的环节"}
RULES_CHECK = {"en": "rules check", "zh": "规则检查"}
REASONING = {"en": "the reasoning path", "zh": "推理路径"}
DEBUG = {"en": "Raw data (for debugging)", "zh": "原始数据(调试用)"}
RATE_EN = "Reasoning path success by scenario"
CODE = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[a-z]+_[a-z_]+\b|\bNone\b|\bTrue\b|\bFalse\b")


def _env(tmp_path, monkeypatch) -> None:
    write_agent_pack(tmp_path / "data")
    (tmp_path / "kb").mkdir(exist_ok=True)
    for k, v in {
        "OMNI_DATA_DIR": str(tmp_path / "data"),
        "OMNI_REGION": "agentcity",
        "OMNI_PROVIDER": "offline",
        "OMNI_DB_URL": f"sqlite:///{tmp_path / 'ui.db'}",
        "OMNI_AGENT_EVENT_LOG": str(tmp_path / "ev.jsonl"),
        "OMNI_KB_DIR": str(tmp_path / "kb"),
    }.items():
        monkeypatch.setenv(k, v)
    get_settings.cache_clear()


def _page(path: str, lang: str, history=None) -> AppTest:
    at = AppTest.from_file(path, default_timeout=60)
    at.query_params["lang"] = lang
    if history is not None:
        at.session_state["agent_history"] = history
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.fixture(params=["en", "zh"])
def lang(request):
    return request.param


@pytest.fixture
def env(tmp_path, monkeypatch):
    _env(tmp_path, monkeypatch)
    yield
    get_settings.cache_clear()


@pytest.mark.browser  # the acceptance set's captcha case visits the demo venue site in headless Chromium
def test_the_operator_page_shows_metrics_and_runs_the_acceptance_set(env, lang):
    at = _page(OPERATOR, lang)
    assert TITLE[lang] in at.title[0].value
    [metrics] = [d for d in at.dataframe if "metric" in d.value.columns]
    labels = list(metrics.value["metric"])
    assert len(labels) == 11 and all(bool(CJK.search(x)) == (lang == "zh") for x in labels)
    assert list(metrics.value["value"])[0] == "0"  # no request in this event log yet
    at.button(key="agent_qa").click().run()
    assert not at.exception, at.exception
    passed = [m.value for m in at.metric if m.label == ("Acceptance passed" if lang == "en" else "验收通过")]
    assert passed == ["8/8"]


def test_the_operator_page_shows_the_decision_log_of_a_chat_turn(env, lang):
    chat = _page(CONSOLE, lang)
    chat.chat_input(key="agent_prompt").set_value("规划1天行程：外滩、豫园和上海博物馆").run()
    assert not chat.exception, chat.exception
    history = chat.session_state["agent_history"]
    at = _page(OPERATOR, lang, history)
    [log] = [d for d in at.dataframe if STEP[lang] in d.value.columns]
    assert list(log.value.columns) == [STEP[lang], PART[lang]]  # words only: no codes, no facts
    assert RULES_CHECK[lang] in set(log.value[PART[lang]])  # the step policy.check_itinerary, said as its part
    cells = " ".join(str(v) for v in log.value.to_numpy().ravel())
    assert not CODE.search(cells) and bool(CJK.search(cells)) == (lang == "zh"), cells
    status = " ".join(c.value for c in at.caption)
    assert REASONING[lang] in status and "SYSTEM2" not in status and "OK" not in status.split()
    # the codes and facts are kept, in the collapsed raw-data expander only
    [raw] = [e for e in at.expander if e.label == DEBUG[lang]]
    assert "policy.check_itinerary" in raw.code[0].value and '"reason_code"' in raw.code[0].value
    [metrics] = [d for d in at.dataframe if "metric" in d.value.columns]
    assert list(metrics.value["value"])[0] == "1"  # the chat turn is in the event log


def test_the_success_rate_per_scenario_is_said_in_words(lang):
    from components.agent.operator_words import metric_rows

    rows = metric_rows({"system2_success_rate": {"plan": 0.5, "browse": 1.0}}, lang)
    [rate] = [r["value"] for r in rows if r["metric"] == ("推理路径各场景成功率" if lang == "zh" else RATE_EN)]
    assert rate == {"en": "trip plans 50%; web look-ups 100%", "zh": "行程规划 50%；网页查询 100%"}[lang]
    assert not CODE.search(rate) and "None" not in " ".join(r["value"] for r in rows)


def test_the_operator_page_is_in_the_apps_navigation():
    source = (PROJECT_ROOT / "app.py").read_text(encoding="utf-8")
    assert 'st.Page("pages/operator.py", title=t("common.nav.operator"), url_path="operator")' in source


def test_an_acceptance_row_is_said_in_words(lang):
    from components.agent.operator_words import acceptance_frame

    row = {"case": "官网查房", "expected": "SYSTEM2_WEBBROWSE / NEED_CONSENT", "got": "SYSTEM1_API / FAILED",
           "error_code": None, "passed": False, "checks": {"route": False}, "ms": 1234.5}  # fmt: skip
    [said] = acceptance_frame([row], lang).to_dict("records")
    assert said == {
        "en": {"Question": "官网查房", "Expected": "the reasoning path with web browsing (live venue pages): waiting "
               "for your permission to browse", "Got": "the fast path (maps, weather and the trip's own data): could "
               "not be answered", "Passed": "no", "Time (s)": "1.2"},
        "zh": {"问题": "官网查房", "预期": "推理路径并浏览网页（场馆实时页面）：等待您允许浏览网页",
               "实际": "快速路径（地图、天气和行程数据）：未能回答", "通过": "否", "用时（秒）": "1.2"},
    }[lang]  # fmt: skip
