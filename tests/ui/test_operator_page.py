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
    [log] = [d for d in at.dataframe if "chosen_action" in d.value.columns]
    assert {"step", "chosen_action", "reason_code", "facts", "policy_id"} <= set(log.value.columns)
    assert "policy.check_itinerary" in set(log.value["chosen_action"])
    [metrics] = [d for d in at.dataframe if "metric" in d.value.columns]
    assert list(metrics.value["value"])[0] == "1"  # the chat turn is in the event log


def test_the_operator_page_is_in_the_apps_navigation():
    source = (PROJECT_ROOT / "app.py").read_text(encoding="utf-8")
    assert 'st.Page("pages/operator.py", title=t("common.nav.operator"), url_path="operator")' in source
