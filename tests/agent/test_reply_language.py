"""The caller's language wins over the guess (issue 19): where a face says the language, core uses it; only an API
call without one is guessed from the text (core.i18n.guess_lang)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from core.agent import fastpath
from core.agent.router import route_message
from core.agent.state import new_state
from core.config import get_settings
from core.halfday.goal import decompose_goal
from core.models.agent import AgentRequest

NOW = datetime(2025, 6, 20, 15, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


@pytest.mark.parametrize(("text", "lang", "want"), [("周六天气", None, "zh"), ("周六天气", "en", "en"),
                                                    ("weather on Saturday", None, "en"),
                                                    ("weather on Saturday", "zh", "zh"), ("", None, "en")])  # fmt: skip
def test_reply_lang_takes_the_callers_language_before_the_guess(text, lang, want):
    assert fastpath.reply_lang(text, lang=lang) == want


def test_the_state_carries_the_faces_language():
    request = AgentRequest(message="周六天气")
    assert fastpath.state_lang(new_state(request)) == "zh"  # no face said it: guessed
    assert fastpath.state_lang(new_state(request, lang="en")) == "en"


def test_the_routers_question_is_in_the_callers_language():
    zh, en = "请补充：想去哪里或想做什么。", "Please tell me where you would like to go or what you would like to do."
    assert route_message("帮我规划", settings=get_settings()).question == zh
    assert route_message("帮我规划", lang="en", settings=get_settings()).question == en
    assert route_message("plan", lang="zh", settings=get_settings()).question == zh


def test_the_half_day_goal_takes_the_callers_language():
    assert decompose_goal("明天下午去博物馆", now=NOW).language == "zh"
    assert decompose_goal("明天下午去博物馆", now=NOW, lang="en").language == "en"
    assert decompose_goal("museum tomorrow afternoon with 外滩", now=NOW).language == "en"
