"""One reply language per conversation (issue 31), through the agent's use case on the Shanghai pack: the request's
locale, else the conversation's (kept in the database), else a confirmation's dry run's, else the message's; and
every sentence of an answer in it (tests/support/language.py), over the agent's own conversations
(tests/agent/data/language_conversations.json) and its evaluation set's messages (slots_eval.jsonl)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from core.app import agent as agent_app
from core.app.context import AppServices
from core.config import Settings
from core.errors import ProviderTimeout
from core.i18n import Lang
from core.models.agent import AgentResponse
from core.packs.loader import load_region
from tests.support.clock import SUITE_NOW
from tests.support.language import foreign_words, names_in
from tests.support.paths import ROOT

CONVERSATIONS = json.loads((ROOT / "tests/agent/data/language_conversations.json").read_text(encoding="utf-8"))
EVAL_LINES = [
    json.loads(line)
    for line in (ROOT / "tests/agent/data/slots_eval.jsonl").read_text(encoding="utf-8").splitlines()
    if line.strip()
]
PACK = load_region("shanghai", ROOT / "data")
NAMES = {lang: names_in(PACK, lang) for lang in ("zh", "en")}


@pytest.fixture
def services(tmp_path):
    return AppServices(
        Settings(
            data_dir=ROOT / "data",
            region="shanghai",
            db_url=f"sqlite:///{tmp_path / 'agent.db'}",
            agent_event_log=tmp_path / "events.jsonl",
            kb_dir=tmp_path / "kb",
            browse_allowlist=["127.0.0.1:8765"],
        )
    )


def _ask(services: AppServices, message: str, *, locale: Lang | None = None, conversation: str | None = None,
         user: str = "alice", **options: Any) -> AgentResponse:  # fmt: skip
    ctx = services.context(user=user, lang=locale, clock=lambda: SUITE_NOW)
    given = {"conversation_id": conversation} if conversation else {}
    return agent_app.ask(ctx, {"message": message, "conversation_context": given, "options": options})


def _confirm(services: AppServices, dry_run_id: str, *, locale: Lang | None = None) -> AgentResponse:
    ctx = services.context(user="alice", lang=locale, clock=lambda: SUITE_NOW)
    return agent_app.confirm_dry_run(ctx, dry_run_id)


def _in(lang: str, response: AgentResponse) -> list[str]:
    """The other language's words in the answer ([] when it is all in ``lang``); the answer must say something."""
    text = response.result.answer_text
    assert text.strip(), response
    return foreign_words(text, lang, NAMES[lang])


def _han(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


# --- the language of a message --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("message", "lang"),
    [
        ("官网查房 http://hotel.example.com/rooms?date=2026-11-28", "zh"),
        ("帮我看看 Grand Hyatt 官网 https://www.hyatt.com/zh-CN/hotel 今晚还有房吗", "zh"),
        ("Check rooms at http://hotel.example.com/rooms tonight please", "en"),
        ("Is 浦东国际机场T1航站楼 open at 7:30?", "en"),
    ],
)
def test_a_message_is_answered_in_its_language_whatever_links_and_names_it_holds(services, message, lang):
    r = _ask(services, message)
    assert r.result.status == "NEED_CONSENT" or r.result.status == "OK"
    assert _in(lang, r) == [] and _han(r.result.answer_text) == (lang == "zh")


# --- the conversation keeps its language ----------------------------------------------------------------------------
def test_a_later_turn_without_a_locale_keeps_the_conversations_language(services):
    first = _ask(services, "帮我订老吉士周六晚上6点3个人", locale="zh", conversation="0123456789abcdef")
    assert first.result.status == "NEED_CONFIRMATION" and _in("zh", first) == []
    later = _ask(services, "Book Lubolang tomorrow at 7pm for 2", conversation="0123456789abcdef")
    assert later.result.status == "NEED_CONFIRMATION"
    assert _han(later.result.answer_text) and _in("zh", later) == []  # 绿波廊, in Chinese words
    assert "绿波廊" in later.result.answer_text and "Lu Bo Lang" not in later.result.answer_text
    elsewhere = _ask(services, "Book Lubolang tomorrow at 7pm for 2", conversation="fedcba9876543210")
    assert not _han(elsewhere.result.answer_text)  # another conversation: the message's own language


def test_the_switch_changes_the_conversations_language_for_its_later_turns(services):
    _ask(services, "帮我订老吉士周六晚上6点3个人", locale="zh", conversation="00000000000000aa")
    switched = _ask(services, "帮我订绿波廊明天晚上7点两个人", locale="en", conversation="00000000000000aa")
    assert not _han(switched.result.answer_text) and "Lu Bo Lang" in switched.result.answer_text
    after = _ask(services, "帮我订老正兴菜馆明天晚上6点两个人", conversation="00000000000000aa")
    assert not _han(after.result.answer_text), after.result.answer_text


@pytest.mark.parametrize(("message", "lang"), [("帮我订绿波廊明天晚上7点两个人", "zh"),
                                               ("Book 绿波廊 tomorrow at 7pm for 2 people", "en")])  # fmt: skip
def test_a_confirmation_without_a_locale_is_answered_in_the_dry_runs_language(services, message, lang):
    offered = _ask(services, message)
    assert offered.result.status == "NEED_CONFIRMATION"
    done = _confirm(services, offered.result.payload.dry_run["dry_run_id"])
    assert done.result.status == "OK", done.result.answer_text
    assert _han(done.result.answer_text) == (lang == "zh") and _in(lang, done) == []


def test_another_users_dry_run_tells_nothing_not_even_its_language(services):
    offered = _ask(services, "帮我订绿波廊明天晚上7点两个人")
    ctx = services.context(user="mallory", clock=lambda: SUITE_NOW)
    refused = agent_app.confirm_dry_run(ctx, offered.result.payload.dry_run["dry_run_id"])
    assert refused.result.error_code == "CONFIRMATION_INVALID" and not _han(refused.result.answer_text)


# --- the words of a failure -----------------------------------------------------------------------------------------
class _TimingOutWeather:
    """The request's providers, but a weather service that does not answer (as AMap's does past its timeout)."""

    has_weather = True

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def weather(self, *args: Any, **kwargs: Any) -> Any:
        raise ProviderTimeout(
            "AMap did not answer /v3/weather/weatherInfo within 7.99936 s.",
            details={"endpoint": "/v3/weather/weatherInfo", "service": "AMap", "timeout_s": 7.99936},
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@pytest.mark.parametrize(("message", "lang", "said"), [("周六上海天气怎么样", "zh", "高德 在 8 秒内没有响应"),
                                                       ("weather in Shanghai on Saturday", "en",
                                                        "AMap did not answer within 8 s")])  # fmt: skip
def test_a_provider_timeout_is_worded_in_the_answers_language_with_a_rounded_figure(
    services, monkeypatch, message, lang, said
):
    real = agent_app.agent_deps

    def timing_out(*args: Any, **kwargs: Any) -> Any:
        deps = real(*args, **kwargs)
        return dataclasses.replace(deps, provider=_TimingOutWeather(deps.provider))

    monkeypatch.setattr(agent_app, "agent_deps", timing_out)
    r = _ask(services, message)
    answer = r.result.answer_text
    assert said in answer and "7.99936" not in answer and "/v3/" not in answer
    assert _in(lang, r) == [] and _han(answer) == (lang == "zh")


# --- the browse refusal ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("message", "lang", "said"), [
    ("官网查房 http://127.0.0.1:9999/rooms", "zh", "127.0.0.1:9999 不在允许访问的网站名单中"),
    ("Check the rooms at http://127.0.0.1:9999/rooms", "en", "127.0.0.1:9999 is not on the list of allowed sites"),
    ("官网查房 http://hotel.example.com/rooms", "zh", "hotel.example.com 不在允许访问的网站名单中"),
])  # fmt: skip
def test_the_refusal_names_what_was_not_allowed_host_or_port(services, message, lang, said):
    r = _ask(services, message, allow_webbrowse=True, conversation="0000000000000b0b")
    assert r.result.error_code == "BROWSER_DOMAIN_NOT_ALLOWED"
    assert said in r.result.answer_text and _in(lang, r) == []


# --- the agent's own conversations and evaluation set ---------------------------------------------------------------
@pytest.mark.parametrize("conversation", CONVERSATIONS["conversations"], ids=lambda c: c["turns"][0]["message"][:30])
def test_every_answer_of_a_conversation_is_in_its_one_language(services, conversation):
    lang, cid, offered = conversation["lang"], "c0ffee0000000000", None
    for turn in conversation["turns"]:
        if turn.get("confirm"):
            assert offered is not None and offered.result.payload.dry_run, offered
            r = _confirm(services, offered.result.payload.dry_run["dry_run_id"])
        else:
            r = _ask(services, turn["message"], locale=turn.get("locale") and turn["locale"][:2], conversation=cid)
        assert _in(lang, r) == [], (turn, r.result.answer_text)
        assert _han(r.result.answer_text) == (lang == "zh"), r.result.answer_text
        offered = r


BOOKINGS = [line for line in EVAL_LINES if line["kind"] == "booking"]
TRIPS = [line for line in EVAL_LINES if line["kind"] == "trip"][::12]  # one trip in 12: each plans a whole trip


@pytest.mark.parametrize("line", BOOKINGS + TRIPS, ids=lambda line: line["text"][:30])
def test_the_evaluation_sets_messages_are_answered_in_their_language(services, line):
    r = _ask(services, line["text"])
    assert _in(line["lang"], r) == [], r.result.answer_text
