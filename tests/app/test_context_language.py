"""The context's language and time zone reach the agent (issue 19, "Done when").

The face says the language (the dashboard's switch, the API's locale): an English message asked with
``locale=zh-CN`` is answered in Chinese. Without a time zone, a Helsinki request reasons in Helsinki time, not
Shanghai's: at 20:00 UTC on 27 November it is still the 27th in Helsinki (22:00) but already the 28th in Shanghai
(04:00), so "tomorrow" is the 28th there."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from core.app import AppServices
from core.app.agent import ask, confirm_dry_run
from core.config import Settings
from tests.conftest import auth
from tests.support.agent_packs import make_settings

CJK = re.compile(r"[\u4e00-\u9fff]")
EVENING_UTC = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)


def _cjk_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    return sum(bool(CJK.match(c)) for c in letters) / max(1, len(letters))


def test_an_english_message_with_locale_zh_is_answered_in_chinese(tmp_path):
    services = AppServices(make_settings(tmp_path))
    zh = ask(services.context(user="alice", lang="zh", clock=lambda: EVENING_UTC), {"message": "Weather tomorrow?"})
    assert zh.result.status == "OK"
    assert "没有可用的实时天气数据源" in zh.result.answer_text, zh.result.answer_text
    assert _cjk_share(zh.result.answer_text) > 0.5
    en = ask(services.context(user="alice", lang="en", clock=lambda: EVENING_UTC), {"message": "明天天气"})
    assert "No live weather source" in en.result.answer_text, en.result.answer_text
    # no language from the face: the message's own
    guessed = ask(services.context(user="alice", clock=lambda: EVENING_UTC), {"message": "明天天气"})
    assert "没有可用的实时天气数据源" in guessed.result.answer_text


def test_a_helsinki_request_without_a_zone_reasons_in_helsinki_time(tmp_path):
    settings = Settings(region="helsinki", provider="offline", db_url=f"sqlite:///{tmp_path / 'h.db'}", cache_dir=None)
    services = AppServices(settings)
    ctx = services.context(user="alice", lang="en", clock=lambda: EVENING_UTC)
    assert ctx.timezone == "Europe/Helsinki"
    assert ctx.now().isoformat().startswith("2026-11-27T22:00")
    r = ask(ctx, {"message": "What's the weather tomorrow?"})
    assert "2026-11-28" in r.result.answer_text and "2026-11-29" not in r.result.answer_text, r.result.answer_text
    # the zone the face gives wins over the pack's
    shanghai_time = services.context(user="alice", lang="en", timezone="Asia/Shanghai", clock=lambda: EVENING_UTC)
    r = ask(shanghai_time, {"message": "What's the weather tomorrow?"})
    assert "2026-11-29" in r.result.answer_text, r.result.answer_text


@pytest.mark.parametrize(
    ("context", "headers", "expected"),
    [
        ({"locale": "zh-CN"}, {}, "没有可用的实时天气数据源"),
        ({"locale": "en-GB"}, {}, "No live weather source"),
        ({}, {"Accept-Language": "zh-CN,zh;q=0.9"}, "没有可用的实时天气数据源"),
        ({}, {}, "No live weather source"),  # no locale anywhere: the message's language
    ],
)
def test_the_api_answers_in_the_locale_it_was_given(client, context, headers, expected):
    body = {"message": "What's the weather tomorrow?", "conversation_context": context}
    r = client.post("/agent/route_and_run", json=body, headers={**auth("alice"), **headers})
    assert r.status_code == 200, r.text
    assert expected in r.json()["result"]["answer_text"]


def test_a_dry_run_is_confirmed_by_its_id_without_words(tmp_path):
    services = AppServices(make_settings(tmp_path))
    alice = services.context(user="alice", lang="zh", clock=lambda: EVENING_UTC)
    held = ask(alice, {"message": "和平饭店的房费帮我退款"})
    dry = held.result.payload.dry_run
    assert held.result.status == "NEED_CONFIRMATION" and dry is not None, held.result
    mallory = services.context(user="mallory", lang="en", clock=lambda: EVENING_UTC)
    stolen = confirm_dry_run(mallory, dry["dry_run_id"])
    assert (stolen.result.status, stolen.result.error_code) == ("FAILED", "CONFIRMATION_INVALID")
    done = confirm_dry_run(alice, dry["dry_run_id"])
    assert done.result.status == "OK", done.result
    assert _cjk_share(done.result.answer_text) > 0.5, done.result.answer_text  # the context's language: no words given
    again = confirm_dry_run(alice, dry["dry_run_id"])  # single use
    assert again.result.status == "FAILED"
