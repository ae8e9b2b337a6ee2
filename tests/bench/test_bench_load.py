"""The load bench (issue 33): its questions (each new, both languages, the pack's own places, routed to the fast
path), its clients (keep-alive HTTP/1.1 against a real server: statuses, errors and the fast path's share counted as
answered) and its figures."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from bench.load import machine_busy, rss_mb, server_processes, summary, table
from bench.load_client import Outcome, _read_answer, drive, percentile
from bench.load_mix import MIX, LoadRequest, draw, kinds_of, requests
from core.packs.loader import load_region


@pytest.fixture(scope="module")
def shanghai() -> Any:
    return load_region("shanghai")


def test_questions_are_new_in_both_languages_and_name_the_packs_places(shanghai):
    drawn = [r for r, _ in zip(requests(shanghai, seed=3), range(600), strict=False)]
    about_places = [r.message for r in drawn if r.kind != "weather"]  # the weather has few ways to be asked
    assert len(set(about_places)) >= 0.98 * len(about_places)  # a run rarely asks the same thing twice
    counts = kinds_of(drawn)
    assert {k.split(":")[0] for k in counts} == {kind for kind, _ in MIX}
    assert {k.split(":")[1] for k in counts} == {"zh", "en"}
    travel = sum(n for k, n in counts.items() if k.startswith("travel_time"))
    assert 0.5 < travel / len(drawn) < 0.7  # 60 % of the mix
    zh_names = {p.name_zh for p in shanghai.places}
    en_names = {p.name_en for p in shanghai.places}
    for r in drawn:
        if r.kind == "travel_time":
            names = zh_names if r.lang == "zh" else en_names
            assert sum(name in r.message for name in names) >= 2, r.message


def test_the_same_seed_draws_the_same_questions_and_another_seed_others(shanghai):
    first = [r.message for r, _ in zip(requests(shanghai, seed=11), range(50), strict=False)]
    again = [r.message for r, _ in zip(requests(shanghai, seed=11), range(50), strict=False)]
    other = [r.message for r, _ in zip(requests(shanghai, seed=12), range(50), strict=False)]
    assert first == again
    assert len(set(first) & set(other)) < 5


@pytest.fixture
def shanghai_api(tmp_path, monkeypatch):
    from core.packs.loader import BUNDLED_DATA
    from tests.support.api_client import api_test_client

    yield from api_test_client(tmp_path, monkeypatch, data_dir=BUNDLED_DATA, region="shanghai")


def test_the_mix_is_answered_by_the_fast_path(shanghai_api, shanghai):
    """Through the API on the bundled packs: the questions the bench sends are the fast path's."""
    import random

    client = shanghai_api
    rng = random.Random(5)
    fast = 0
    sent = [draw(shanghai, rng) for _ in range(40)]
    for r in sent:
        answer = client.post("/agent/route_and_run", json={"message": r.message}, headers={"Accept-Language": r.lang})
        assert answer.status_code == 200, r.message
        fast += answer.json()["route"]["route"].startswith("SYSTEM1_")
    assert fast >= 36  # a few phrasings route elsewhere; the report gives the share


async def _fed(data: bytes) -> tuple[int, bytes]:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    return await _read_answer(reader)


def test_answers_are_read_by_length_and_chunked():
    plain = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\ncontent-type: application/json\r\n\r\n[1,2]"
    assert asyncio.run(_fed(plain)) == (200, b"[1,2]")
    chunked = b"HTTP/1.1 429 Too Many Requests\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
    assert asyncio.run(_fed(chunked)) == (429, b"abcde")


class _Server:
    """A real HTTP server on a free port (uvicorn, in a thread) whose answer depends on the question: 200 from the
    fast path, 200 from System 2, or 503."""

    def __init__(self) -> None:
        import uvicorn

        from tests.support.redis_server import free_port

        self.port = free_port()
        self.seen: list[dict[str, Any]] = []
        self.server = uvicorn.Server(
            uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning", interface="asgi3")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        asked = json.loads(body)
        headers = dict(scope["headers"])
        self.seen.append({"message": asked["message"], "lang": headers[b"accept-language"].decode(),
                          "key": headers[b"authorization"].decode()})  # fmt: skip
        status, route = (503, "") if "fail" in asked["message"] else (200, asked["message"])
        answer = json.dumps({"route": {"route": route}}).replace(": ", ":").encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode())]})  # fmt: skip
        await send({"type": "http.response.body", "body": answer})

    def __enter__(self) -> _Server:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "the test server did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def _cycle(messages: list[str]) -> Iterator[LoadRequest]:
    n = 0
    while True:
        yield LoadRequest(message=messages[n % len(messages)], lang="zh" if n % 2 else "en", kind="travel_time")
        n += 1


def test_clients_count_each_answer_its_status_and_the_fast_paths_share():
    with _Server() as server:
        outcome = drive(server.port, clients=3, seconds=0.0, keys=["k0", "k1"],
                        draws_for=lambda n: _cycle([["SYSTEM1_API"], ["SYSTEM2_REASONING"], ["fail"]][n][:1]))  # fmt: skip
    assert outcome.statuses == {200: 2, 503: 1}
    assert outcome.errors == 1 and outcome.fast == 1 and len(outcome.seconds) == 3
    assert sorted(s["key"] for s in server.seen) == ["Bearer k0", "Bearer k0", "Bearer k1"]  # client n: keys[n % 2]
    figures = summary(outcome)
    assert figures["requests"] == 3 and figures["errors"] == 1 and figures["statuses"] == {"200": 2, "503": 1}
    assert figures["fast_path_share"] == pytest.approx(1 / 3, abs=0.001)


def test_a_client_keeps_asking_on_its_connection_until_the_run_ends():
    with _Server() as server:
        outcome = drive(server.port, clients=2, seconds=0.5, keys=["k"], draws_for=lambda n: _cycle(["SYSTEM1_API"]))
    assert len(outcome.seconds) == len(server.seen) > 2 and outcome.errors == 0
    assert {s["lang"] for s in server.seen} == {"zh", "en"}  # the question's language goes as Accept-Language


def test_a_server_that_is_not_there_is_counted_as_errors():
    from tests.support.redis_server import free_port

    outcome = drive(free_port(), clients=2, seconds=0.0, keys=["k"], draws_for=lambda n: _cycle(["x"]))
    assert outcome.statuses == {0: 2} and outcome.errors == 2


def test_percentiles_are_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert (percentile(values, 0.5), percentile(values, 0.95), percentile(values, 0.99)) == (50.0, 95.0, 99.0)
    assert percentile([], 0.5) == 0.0 and percentile([2.0], 0.99) == 2.0


def test_process_figures_come_from_the_running_processes():
    own = os.getpid()
    assert server_processes(own) == [own] or own not in server_processes(own)
    assert rss_mb(own) > 10  # this interpreter with pytest loaded
    busy, total = machine_busy()
    assert 0 < busy < total


def test_the_table_gives_every_figure_of_a_row():
    row = {"workers": 2, "run": "measured", "clients": 100, **summary(Outcome(seconds=[0.1, 0.3], statuses={200: 2},
           fast=2, wall_s=1.0)), "server_cpu_ms_per_request": 4.5, "rss_mb": [300.4, 301.0], "load": [3.1, 4.2],
           "machine_busy": 0.97}  # fmt: skip
    line = table([row]).splitlines()[-1]
    assert (
        line == "| 2 | 100 | measured | 2.0 | 0.1 s | 0.3 s | 0.3 s | 0 | 100 % | 4.5 | 300, 301 | 3.1 → 4.2 | 97 % |"
    )
