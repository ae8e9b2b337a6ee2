"""One reply language per conversation at the faces (issue 31): the API without Accept-Language (a message with a
link, a confirmation after a Chinese dry run, a later turn of a conversation), the command line (its reply language
and the demo venue sites: reached when they answer on their port, else how to start or allow them), and the pieces
they stand on (the guess, the refusal's subject, the words of a provider's failure)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from core.agent.browse_rules import refused_target
from core.cli.agent import with_running_demo_sites
from core.config import Settings
from core.i18n import guess_lang
from core.venues.serve import VenueServer
from core.words.agent import tool_error_sentence
from tests.support.api_client import api_test_client, auth
from tests.support.language import foreign_words
from tests.support.paths import ROOT


def _han(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


# --- the API, without Accept-Language -------------------------------------------------------------------------------
@pytest.fixture
def api(tmp_path, monkeypatch):
    yield from api_test_client(tmp_path, monkeypatch, data_dir=ROOT / "data", region="shanghai")


@pytest.mark.parametrize(("message", "chinese"), [("官网查房 http://hotel.example.com/rooms?date=2026-11-28", True),
                                                  ("查一下 Grand Hyatt 官网 https://www.hyatt.com 今晚有没有房", True),
                                                  ("Check rooms at http://hotel.example.com/rooms tonight", False)])  # fmt: skip
def test_the_api_answers_a_message_with_a_link_in_the_messages_language(api, message, chinese):
    body = api.post("/agent/route_and_run", json={"message": message}).json()
    assert body["result"]["status"] == "NEED_CONSENT"
    assert _han(body["result"]["answer_text"]) is chinese, body["result"]["answer_text"]


@pytest.mark.parametrize(("message", "chinese"), [("帮我订绿波廊明天晚上7点两个人", True),
                                                  ("Book 绿波廊 tomorrow at 7pm for two", False)])  # fmt: skip
def test_the_api_confirms_without_accept_language_in_the_dry_runs_language(api, message, chinese):
    offered = api.post("/agent/route_and_run", json={"message": message}).json()
    assert offered["result"]["status"] == "NEED_CONFIRMATION"
    done = api.post("/agent/confirm", json={"dry_run_id": offered["result"]["payload"]["dry_run"]["dry_run_id"]})
    assert done.status_code == 200 and done.json()["result"]["status"] == "OK"
    assert _han(done.json()["result"]["answer_text"]) is chinese, done.json()["result"]["answer_text"]
    # the hint beside a booking made says the confirmation is carried out, never a question for missing details
    hint = done.json()["route"]["ui_hint"]
    assert "MISSING_INFO" not in done.json()["route"]["reasons"] and hint["status"] != "done"
    assert hint["message"] == ("正在执行你确认的操作…" if chinese else "Carrying out what you confirmed…")


def test_the_api_keeps_the_conversations_language_for_a_turn_without_a_locale(api):
    cid = "abcdefabcdef0123"
    first = api.post(
        "/agent/route_and_run",
        json={"message": "Book Lubolang tomorrow at 7pm for 2", "conversation_context": {"conversation_id": cid}},
        headers={**auth("alice"), "Accept-Language": "zh-CN"},
    ).json()
    assert _han(first["result"]["answer_text"])
    later = api.post(
        "/agent/route_and_run",
        json={"message": "Book Laojishi on Saturday at 6pm for 3", "conversation_context": {"conversation_id": cid}},
    ).json()
    assert later["result"]["status"] == "NEED_CONFIRMATION" and "老吉士" in later["result"]["answer_text"]
    assert _han(later["result"]["answer_text"])
    mallorys = api.post(  # the same id is not mallory's conversation: her message's language
        "/agent/route_and_run",
        json={"message": "Book Laojishi on Saturday at 6pm for 3", "conversation_context": {"conversation_id": cid}},
        headers=auth("mallory"),
    ).json()
    assert not _han(mallorys["result"]["answer_text"])


# --- the command line -----------------------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cli(*args: str, tmp_path, port: int) -> dict:
    env = {
        "PATH": "/usr/bin:/bin",
        "OMNI_DB_URL": f"sqlite:///{tmp_path / 'omni.db'}",
        "OMNI_AGENT_EVENT_LOG": str(tmp_path / "events.jsonl"),
        "OMNI_BROWSE_EVIDENCE_DIR": str(tmp_path / "browse"),
        "OMNI_VENUES_PORT": str(port),
        "OMNI_NOW": "2026-11-27T09:00:00+08:00",
    }
    proc = subprocess.run([sys.executable, "-m", "core", "run", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=180)  # fmt: skip
    return json.loads(proc.stdout)["result"]


@pytest.mark.parametrize(("message", "chinese", "said"), [
    ("查一下和平饭店官网今晚还有房吗", True, "启动它们"),
    ("Check the Fairmont Peace Hotel website for rooms tonight", False, "start them with"),
])  # fmt: skip
def test_the_cli_says_how_to_start_or_allow_the_demo_sites_when_they_do_not_run(tmp_path, message, chinese, said):
    port = _free_port()  # nothing listens there
    result = _cli("--message", message, "--allow-webbrowse", tmp_path=tmp_path, port=port)
    assert result["error_code"] == "BROWSER_DOMAIN_NOT_ALLOWED"
    answer = result["answer_text"]
    assert said in answer and "python -m core venues serve" in answer and f"{port}" in answer
    assert _han(answer) is chinese


@pytest.mark.parametrize(("lang", "chinese"), [("zh", True), ("en", False)])
def test_the_clis_lang_is_the_answers_whatever_the_messages(tmp_path, lang, chinese):
    result = _cli("--message", "官网查房 http://hotel.example.com/rooms", "--lang", lang, tmp_path=tmp_path, port=1)
    assert result["status"] == "NEED_CONSENT" and _han(result["answer_text"]) is chinese


@pytest.mark.browser
@pytest.mark.parametrize(("message", "chinese", "room"), [("查一下和平饭店官网今晚还有房吗", True, "费尔蒙大床房"),
                                                       ("Check the Fairmont Peace Hotel website for rooms tonight",
                                                        False, "Fairmont King Room")])  # fmt: skip
def test_the_cli_reads_a_venues_demo_site_while_the_demo_sites_run(tmp_path, message, chinese, room):
    server = VenueServer(ROOT / "data" / "venues").start()  # as `python -m core venues serve` in another terminal
    try:
        result = _cli("--message", message, "--allow-webbrowse", tmp_path=tmp_path, port=server.port)
    finally:
        server.stop()
    answer = result["answer_text"]
    assert result["status"] == "OK", answer
    assert room in answer and foreign_words(answer, "zh" if chinese else "en", []) == []
    if not chinese:  # the page states its cancellation terms in Chinese only: quoted, and said to be
        assert "(the site's own words, not translated)" in answer


def test_the_cli_allows_the_demo_sites_when_they_answer_on_their_port(tmp_path):
    base = Settings(db_url=f"sqlite:///{tmp_path / 'x.db'}")
    server = VenueServer(ROOT / "data" / "venues").start()
    try:
        found = with_running_demo_sites(base.model_copy(update={"venues_port": server.port}))
        assert found.venues_serve and found.browse_allowlist == [f"127.0.0.1:{server.port}"]
    finally:
        server.stop()
    silent = with_running_demo_sites(base.model_copy(update={"venues_port": server.port}))  # stopped: not allowed
    assert not silent.venues_serve and silent.browse_allowlist == []
    own = base.model_copy(update={"browse_allowlist": ["example.com"]})
    assert with_running_demo_sites(own).browse_allowlist == ["example.com"]  # the person's own list, as it is


def test_the_cli_never_takes_another_server_on_the_port_for_the_demo_sites(tmp_path):
    class Other(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"<html><title>something else</title></html>")

        def log_message(self, *args: object) -> None:
            pass

    other = HTTPServer(("127.0.0.1", 0), Other)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        base = Settings(db_url=f"sqlite:///{tmp_path / 'x.db'}", venues_port=other.server_address[1])
        assert with_running_demo_sites(base).browse_allowlist == []
    finally:
        other.shutdown()


# --- the pieces -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("官网查房 https://hotel.example.com/rooms?date=2026-12-01&n=2", "zh"),
        ("订 Park Hyatt Shanghai 明晚 19:30 的房间 https://www.hyatt.com", "zh"),
        ("有问题发邮件 booking@hotel.example.com", "zh"),
        ("Is 浦东国际机场T1航站楼 open at 6:45am?", "en"),
        ("Send the plan for 外滩 and 豫园 to me@example.com", "en"),
        ("Rooms at https://hotel.example.com/zh-CN/房间 please", "en"),
    ],
)
def test_the_guess_ignores_links_addresses_times_and_names_in_the_other_script(text, lang):
    assert guess_lang(text) == lang


@pytest.mark.parametrize(
    ("url", "allowlist", "named"),
    [
        ("http://127.0.0.1:9999/rooms", ["127.0.0.1:8765"], "127.0.0.1:9999"),  # the host is allowed, not the port
        ("https://shop.example.com:8443/x", ["example.com"], "shop.example.com:8443"),
        ("http://evil.example.net/", ["127.0.0.1:8765"], "evil.example.net"),
        ("http://[::1]:8080/", ["[::1]:9090"], "[::1]:8080"),
        ("http://127.0.0.1:9999/rooms", [], "127.0.0.1"),  # nothing is allowed: the host is why
        ("ftp://files.example.com/a", ["example.com"], "ftp://files.example.com/a"),  # no web URL: said as it is
        ("http://user:pw@example.com/", ["example.com"], "http://user:pw@example.com/"),
    ],
)
def test_the_refusal_names_exactly_what_was_not_allowed(url, allowlist, named):
    assert refused_target(url, allowlist) == named


@pytest.mark.parametrize(("waited", "zh", "en"), [(7.99936, "8 秒", "within 8 s"), (0.25, "0.2 秒", "within 0.2 s"),
                                                  (12.5, "12 秒", "within 12 s")])  # fmt: skip
def test_a_provider_timeout_is_said_with_its_rounded_wait_and_the_services_name(waited, zh, en):
    facts = {"cause": "PROVIDER_TIMEOUT", "service": "AMap", "timeout_s": waited}
    chinese = tool_error_sentence(facts, "AMap did not answer /v3/x within …", "zh")
    english = tool_error_sentence(facts, "AMap did not answer /v3/x within …", "en")
    assert zh in chinese and "高德" in chinese and not any(c.isascii() and c.isalpha() for c in chinese)
    assert en in english and english.startswith("This could not be completed: AMap") and not _han(english)


def test_a_place_without_an_english_name_is_named_once_and_marked_in_english():
    from core.models.region import RegionPlace
    from core.packs.loader import load_region
    from core.words.agent import name_of

    pack = load_region("shanghai", ROOT / "data")
    nameless = RegionPlace(
        id="x-lane", name_zh="无名弄堂", address="黄浦区", lon=121.48, lat=31.23, category="landmark"
    )
    local = pack.model_copy(update={"places": [*pack.places, nameless]})
    assert name_of(local, "x-lane", "", "en") == "无名弄堂 (local name)"
    assert name_of(local, "x-lane", "", "zh") == "无名弄堂"
    assert name_of(local, "sh-pvg-t1", "", "en") == "Shanghai Pudong International Airport Terminal 1"
