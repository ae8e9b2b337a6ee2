"""A worker killed mid-plan (issue 33, "Faults"): two API processes on one Redis and one database (PostgreSQL with
``OMNI_TEST_PG_URL``, else a SQLite file); the process holding alice's half-day stream and her booking is killed
(SIGKILL) while the booking is inside its confirming transaction (pending made, the venue not yet answered) and her
stream is at stage 7. Afterwards:

- no reservation is half-made: hers is absent, as if never confirmed (no row, no 'pending' anywhere, the quote's
  token unspent, the slot untouched, the idempotency key free), and nobody saw it pending meanwhile; her retry with
  the same key, through the other process, confirms it exactly once;
- her stream, read again through the other process from her Last-Event-ID, ends with done error STREAM_LOST;
- bob's plan on the other process finishes with plans, and his booking is confirmed.

The process to kill stops at those points by tests/support/pausing_api.py; the test waits for its marks, never for
a duration."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import sqlalchemy as sa

from tests.support.api_client import api_env, auth
from tests.support.clock import SUITE_NOW, days_after
from tests.support.paths import ROOT
from tests.support.redis_server import RedisServer, free_port

GOAL = {"goal": "周六下午带朋友去公园散步，再找个地方吃晚饭", "now": SUITE_NOW.isoformat()}
BOB_GOAL = {"goal": "Saturday afternoon: a museum, then coffee", "now": SUITE_NOW.isoformat(), "lang": "en"}
STEP = {"place_id": "sh-lubolang", "date": days_after(1).isoformat(), "party_size": 2}


def _database_url(tmp_path: Path) -> str:
    if os.environ.get("OMNI_TEST_PG_URL"):
        from tests.support.databases import fresh_postgres

        return fresh_postgres("omni_killed")
    return f"sqlite:///{tmp_path / 'team.db'}"


def _serve(env: dict[str, str], port: int, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "tests.support.pausing_api:app", "--host", "127.0.0.1",
             "--port", str(port), "--log-level", "warning"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip


def _until(ready, what: str, *, within_s: float = 120) -> None:
    """Wait for a state (a server answering, a mark written): not a duration under test."""
    deadline = time.monotonic() + within_s
    while not ready():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.05)


def _answers(base: str) -> bool:
    try:
        return httpx.get(f"{base}/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _marks(path: Path) -> dict[str, int]:
    if not path.exists():
        return {}
    return {point: int(pid) for point, _, pid in (line.partition(" ") for line in path.read_text().split("\n") if line)}


def _sse(lines) -> list[tuple[int, dict]]:
    """Each message's id and data as they come."""
    seq = None
    for line in lines:
        if line.startswith("id:"):
            seq = int(line.partition(":")[2].strip())
        elif line.startswith("data:"):
            yield seq, json.loads(line.partition(":")[2].strip())


def _read_stream(base: str, user: str, body: dict, seen: list[tuple[int, dict]]) -> None:
    """Read a plan's stream into ``seen`` until it ends or its server dies."""
    try:
        with httpx.Client(base_url=base, timeout=120) as client:
            with client.stream("POST", "/halfday/plan", json=body, headers=auth(user)) as response:
                for item in _sse(response.iter_lines()):
                    seen.append(item)
    except httpx.HTTPError:
        pass  # the server was killed under the stream


def _post(url: str, body: dict, user: str, answered: list[object]) -> None:
    """A request whose server may be killed under it: its status, or "no answer"."""
    try:
        answered.append(httpx.post(url, json=body, headers=auth(user), timeout=120).status_code)
    except httpx.HTTPError:
        answered.append("no answer")


def _state(url: str, reservation_id: str) -> dict[str, object]:
    """What the database holds of one booking."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT status FROM reservations WHERE id = :id"), {"id": reservation_id})
            quote = conn.execute(
                sa.text("SELECT used_at FROM reservation_quotes WHERE id = :id"), {"id": reservation_id}
            )
            keys = conn.execute(
                sa.text("SELECT idempotency_key FROM reservation_confirmations WHERE reservation_id = :id"),
                {"id": reservation_id},
            )
            return {
                "statuses": [r[0] for r in rows],
                "quote_spent": quote.scalar_one() is not None,
                "keys": [k[0] for k in keys],
                "pending_anywhere": conn.execute(
                    sa.text("SELECT count(*) FROM reservations WHERE status = 'pending'")
                ).scalar_one(),
                "booked": conn.execute(
                    sa.text("SELECT coalesce(sum(booked), 0) FROM reservation_slots WHERE item_id = 'sh-lubolang'")
                ).scalar_one(),
            }
    finally:
        engine.dispose()


def test_a_worker_killed_mid_booking_leaves_no_half_made_reservation_and_ends_only_its_users_stream(tmp_path):
    db_url = _database_url(tmp_path)
    marks = tmp_path / "marks"
    with RedisServer(tmp_path / "redis") as redis:
        base_env = {
            **os.environ,
            **api_env(tmp_path, data_dir=ROOT / "data", region="shanghai", OMNI_REDIS_URL=redis.url,
                      OMNI_DB_URL=db_url, OMNI_HALFDAY_STREAM_LOST_AFTER_S="1"),
        }  # fmt: skip
        base_env.pop("OMNI_HALFDAY_MOCK_TOOLS", None)
        doomed_port, other_port = free_port(), free_port()
        doomed = _serve({**base_env, "KILLED_TEST_PAUSE_USER": "alice", "KILLED_TEST_PAUSE_FILE": str(marks)},
                        doomed_port, tmp_path / "doomed.log")  # fmt: skip
        other = _serve(base_env, other_port, tmp_path / "other.log")
        a, b = f"http://127.0.0.1:{doomed_port}", f"http://127.0.0.1:{other_port}"
        try:
            _until(lambda: _answers(a) and _answers(b), "both API processes answer")
            # alice's quote (the dry run holds nothing), made before the fault
            dry = httpx.post(f"{a}/halfday/reserve", json={**STEP, "time": "19:00"}, headers=auth("alice"), timeout=60)
            assert dry.status_code == 200, dry.text
            rid, token = dry.json()["reservation"]["id"], dry.json()["token"]
            confirm = {"token": token, "idempotency_key": "alice-dinner-1", "consent": True}

            # on the doomed process: alice's stream reaches stage 7, then her confirmation its transaction; both
            # stop there (the stream first: on SQLite the open transaction holds the file's write lock)
            alice_seen: list[tuple[int, dict]] = []
            stream = threading.Thread(target=_read_stream, args=(a, "alice", GOAL, alice_seen), daemon=True)
            stream.start()
            _until(lambda: "stage7" in _marks(marks), "alice's stream reaches stage 7")
            answered: list[object] = []
            booking = threading.Thread(
                target=_post, args=(f"{a}/reservations/{rid}/confirm", confirm, "alice", answered), daemon=True
            )
            booking.start()
            _until(lambda: "reserve" in _marks(marks), "alice's booking is inside its transaction")
            assert set(_marks(marks).values()) == {doomed.pid}
            # meanwhile a reader of the database sees no reservation: the pending one is not committed
            assert _state(db_url, rid)["statuses"] == [] and _state(db_url, rid)["pending_anywhere"] == 0

            bob_seen: list[tuple[int, dict]] = []
            bob = threading.Thread(target=_read_stream, args=(b, "bob", BOB_GOAL, bob_seen), daemon=True)
            bob.start()
            os.kill(doomed.pid, signal.SIGKILL)
            doomed.wait(timeout=30)
            stream.join(timeout=60)
            booking.join(timeout=60)
            assert answered == ["no answer"]  # her client saw the connection drop: it retries with the same key
            bob.join(timeout=120)

            # no reservation half-made: absent, as if never confirmed, and seen so by every reader
            after = _state(db_url, rid)
            assert after == {"statuses": [], "quote_spent": False, "keys": [], "pending_anywhere": 0, "booked": 0}
            assert httpx.get(f"{b}/reservations", headers=auth("alice"), timeout=60).json() == []
            # her client's retry (the same key) through the other process books it exactly once
            retried = httpx.post(f"{b}/reservations/{rid}/confirm", json=confirm, headers=auth("alice"), timeout=60)
            assert retried.status_code == 200, retried.text
            assert retried.json()["reservation"]["status"] == "confirmed" and not retried.json()["replayed"]
            again = httpx.post(f"{b}/reservations/{rid}/confirm", json=confirm, headers=auth("alice"), timeout=60)
            assert again.json()["replayed"] and again.json()["reservation"]["id"] == rid
            booked = _state(db_url, rid)
            assert booked["statuses"] == ["confirmed"] and booked["booked"] == 1 and booked["pending_anywhere"] == 0
            moves = [(t["from_status"], t["to_status"]) for t in again.json()["reservation"]["transitions"]]
            assert moves == [(None, "pending"), ("pending", "confirmed")]

            # her stream, read again through the other process, ends with STREAM_LOST after what she saw
            assert alice_seen and all(e["type"] != "done" for _, e in alice_seen)
            last, trace_id = alice_seen[-1][0], alice_seen[-1][1]["trace_id"]
            with httpx.Client(base_url=b, timeout=60) as client:
                with client.stream("GET", f"/halfday/plan/{trace_id}/events",
                                   headers={**auth("alice"), "Last-Event-ID": str(last)}) as response:  # fmt: skip
                    assert response.status_code == 200
                    rest = list(_sse(response.iter_lines()))
            assert [e["type"] for _, e in rest] == ["done"] and rest[0][0] == last + 1
            assert rest[0][1]["data"]["type"] == "error" and rest[0][1]["data"]["error"]["code"] == "STREAM_LOST"
            theirs = httpx.get(f"{b}/halfday/plan/{trace_id}/events", headers=auth("bob"), timeout=60)
            assert theirs.status_code == 404  # never another user's

            # bob's plan on the other process finished, and he books on it
            assert bob_seen and bob_seen[-1][1]["type"] == "done" and bob_seen[-1][1]["data"]["type"] == "plans"
            bob_dry = httpx.post(
                f"{b}/halfday/reserve", json={**STEP, "time": "18:30"}, headers=auth("bob"), timeout=60
            )
            bob_rid = bob_dry.json()["reservation"]["id"]
            bob_done = httpx.post(f"{b}/reservations/{bob_rid}/confirm", headers=auth("bob"), timeout=60,
                                  json={"token": bob_dry.json()["token"], "idempotency_key": "bob-1", "consent": True})  # fmt: skip
            assert bob_done.status_code == 200 and bob_done.json()["reservation"]["status"] == "confirmed"
        finally:
            doomed.kill()  # its stopped requests would hold a graceful shutdown forever
            other.terminate()
            for server in (doomed, other):
                server.wait(timeout=30)
