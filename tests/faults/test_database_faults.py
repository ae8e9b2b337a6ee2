"""Database faults on loopback servers, on every face: PostgreSQL frozen (SIGSTOP of a throwaway cluster's postmaster
and backends) and stopped, SQLite read-only. For each: the API answers 503 ``DATABASE_UNREACHABLE`` with
``Retry-After``, the agent ``FAILED`` with that code, the CLI its error line and exit 1; what needs no database (a
weather question) still answers; what was written before is there after; and once the database is back the same
request succeeds without restarting anything. A frozen database is bounded by the configured deadline (the
transaction is cut, not waited out), never by the test's patience."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.throwaway_pg import ThrowawayCluster
from core.stores import db, guard
from tests.conftest import auth
from tests.support.db import db_at
from tests.support.paths import ROOT

BOOK = {"item_id": "a-peace-hotel", "date": "2030-01-05", "time": "19:00", "party_size": 2, "contact": "Li"}
OUTAGE = "DATABASE_UNREACHABLE"


@pytest.fixture(scope="module")
def cluster() -> Iterator[ThrowawayCluster]:
    made = ThrowawayCluster().start()
    yield made
    made.destroy()


@pytest.fixture
def on_database(client, monkeypatch) -> Callable[[str], Any]:
    """The API client on the database at a URL, with a short breaker pause so recovery is quick to see."""
    from core.config import get_settings

    def use(url: str) -> Any:
        monkeypatch.setenv("OMNI_DB_URL", url)
        monkeypatch.setenv("OMNI_DB_BREAKER_RESET_S", "0.3")
        get_settings.cache_clear()
        guard.BREAKERS.reset()
        return client

    yield use
    guard.BREAKERS.reset()


def ask(client: Any, message: str, **extra: Any) -> dict[str, Any]:
    answer = client.post("/agent/route_and_run", json={"message": message, **extra})
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()["result"]
    return result


def until(check: Callable[[], bool], *, tries: int = 60) -> bool:
    """Whether ``check`` holds within a few seconds (the breaker's pause, a restarted server's start)."""
    for _ in range(tries):
        if check():
            return True
        time.sleep(0.25)
    return False


def write_before(client: Any, day: int) -> tuple[str, str]:
    """A confirmed reservation (on its own day: the tests share one cluster) and a trip with one place: what must
    survive the fault."""
    dry = client.post("/reservations", json={**BOOK, "date": f"2030-01-{day:02d}"})
    assert dry.status_code == 200, dry.text
    rid, token = dry.json()["reservation"]["id"], dry.json()["token"]
    done = client.post(
        f"/reservations/{rid}/confirm", json={"token": token, "idempotency_key": f"k{day}", "consent": True}
    )
    assert done.json()["reservation"]["status"] == "confirmed", done.text
    made = ask(client, "加上外滩")
    assert made["status"] == "OK", made
    return rid, made["payload"]["trip"]["trip_id"]


def assert_outage_on_every_face(client: Any, trip_id: str) -> None:
    booking = client.post("/reservations", json=BOOK)
    assert booking.status_code == 503, booking.text
    assert booking.json()["error"]["code"] == OUTAGE and int(booking.headers["Retry-After"]) >= 1
    memory = client.get("/halfday/memory")
    assert memory.status_code == 503 and memory.json()["error"]["code"] == OUTAGE
    listed = client.get("/reservations")
    assert listed.status_code == 503 and listed.json()["error"]["code"] == OUTAGE
    edit = ask(client, "加上东方明珠", trip_id=trip_id)
    assert (edit["status"], edit["error_code"]) == ("FAILED", OUTAGE)
    assert "数据库" in edit["answer_text"]  # the catalog's sentence, in the message's language
    weather = ask(client, "明天天气")  # needs no database: answers as ever
    assert weather["status"] == "OK" and weather["error_code"] is None


def assert_recovered(client: Any, rid: str, trip_id: str) -> None:
    assert until(lambda: client.get("/reservations").status_code == 200)
    assert rid in [r["id"] for r in client.get("/reservations").json()]  # written before the fault: still there
    edit = ask(client, "加上东方明珠", trip_id=trip_id)
    assert edit["status"] == "OK", edit
    names = [n["name"] for n in edit["payload"]["trip"]["nodes"]]
    assert names == ["外滩", "东方明珠广播电视塔"]


def test_a_frozen_postgres_is_cut_at_the_deadline_on_every_face_and_thawed_it_serves_again(cluster, on_database):
    client = on_database(cluster.url)
    rid, trip_id = write_before(client, 7)
    cut_before = guard.DEADLINES.fired
    cluster.freeze()
    try:
        assert_outage_on_every_face(client, trip_id)
        # the pooled connections hung: the configured deadline cut them (the answer is the outage, not a hang)
        assert guard.DEADLINES.fired > cut_before
    finally:
        cluster.thaw()
    assert_recovered(client, rid, trip_id)


def test_a_stopped_postgres_fails_fast_on_every_face_and_restarted_it_serves_again(cluster, on_database):
    client = on_database(cluster.url)
    rid, trip_id = write_before(client, 8)
    cluster.stop()
    try:
        assert_outage_on_every_face(client, trip_id)
        assert guard.BREAKERS.get(cluster.url, fail_max=3, reset_s=0.3).current_state in ("open", "half-open")
    finally:
        cluster.start()
    assert_recovered(client, rid, trip_id)


def test_an_api_started_while_postgres_is_down_answers_what_needs_no_database(cluster, on_database):
    cluster.stop()
    try:
        db.engine_for.cache_clear()  # this process has never opened the database
        client = on_database(cluster.url)
        weather = ask(client, "明天天气")
        assert weather["status"] == "OK"
        booking = client.post("/reservations", json=BOOK)
        assert booking.status_code == 503 and booking.json()["error"]["code"] == OUTAGE
    finally:
        cluster.start()
    assert until(lambda: client.post("/reservations", json=BOOK).status_code == 200)


def _read_only(path: Path, on: bool) -> None:
    """Make the database file and its folder read-only (root ignores modes: the immutable attribute then)."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i" if on else "-i", str(path), str(path.parent)], check=True)
    else:
        path.chmod(0o444 if on else 0o644)
        path.parent.chmod(0o555 if on else 0o755)


def test_a_read_only_sqlite_file_is_the_outage_on_every_face_and_writable_again_it_serves(tmp_path, on_database):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "omni.db"
    url = f"sqlite:///{path}"
    client = on_database(url)
    rid, trip_id = write_before(client, 9)
    db.engine_for(db_at(url)).dispose()  # the app is restarted onto the read-only file: no connection open before it
    for side in ("-wal", "-shm"):
        assert not Path(f"{path}{side}").exists()
    _read_only(path, True)
    try:
        assert_outage_on_every_face(client, trip_id)
        cli = subprocess.run(
            [sys.executable, "-m", "core", "reservations", "list", "--user", "alice"],
            capture_output=True, text=True, cwd=ROOT, timeout=120,
            env={**os.environ, "OMNI_DB_URL": url},
        )  # fmt: skip
        assert cli.returncode == 1
        assert json.loads(cli.stderr.strip().splitlines()[-1])["error"]["code"] == OUTAGE
    finally:
        _read_only(path, False)
    assert_recovered(client, rid, trip_id)


def test_every_answer_names_the_outage_in_both_languages(client):
    from core.i18n import t

    assert "database" in t("agent.error.database_unreachable", "en")
    assert "数据库" in t("agent.error.database_unreachable", "zh")
    assert "database" in t("reservations.refusal.database_unreachable", "en")
    assert "数据库" in t("reservations.refusal.database_unreachable", "zh")
    assert auth("alice")  # the client fixture's caller
