"""The agent's event log stays bounded (rotation) and its metrics are read incrementally."""

from __future__ import annotations

import json

from core.agent.telemetry import EventTail, Telemetry, compute_metrics, read_events


def _complete(t: Telemetry, i: int) -> None:
    t.request_id = f"r{i}"
    t.agent_complete(
        status="OK",
        latency_ms=10.0 + i,
        cost_est_usd=0.0,
        tool_calls=1,
        browser_steps=0,
        system_mode="SYSTEM1",
        route="SYSTEM1_API",
        scenario="weather",
        error_code=None,
        fallback_used=False,
    )


def test_the_log_and_its_folder_are_made_by_the_first_event(tmp_path):
    log = tmp_path / "not" / "yet" / "events.jsonl"
    t = Telemetry(log)
    for i in range(3):
        _complete(t, i)
    assert [e["request_id"] for e in read_events(log)] == ["r0", "r1", "r2"]
    assert log.read_text(encoding="utf-8").count("\n") == 3  # one line per event


def test_the_log_rotates_past_its_size_and_keeps_a_fixed_number_of_older_files(tmp_path):
    log = tmp_path / "events.jsonl"
    t = Telemetry(log, max_bytes=2_000, backups=2)
    for i in range(200):
        _complete(t, i)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["events.jsonl", "events.jsonl.1", "events.jsonl.2"]
    assert all(p.stat().st_size <= 2_000 for p in tmp_path.iterdir())
    # the newest events are in the current file, in order, none lost at the seams of the last rotation
    current = read_events(log)
    previous = read_events(tmp_path / "events.jsonl.1")
    ids = [int(e["request_id"][1:]) for e in previous + current]
    assert ids == list(range(ids[0], 200))


def test_metrics_read_only_what_was_appended_and_survive_a_rotation(tmp_path):
    log = tmp_path / "events.jsonl"
    t = Telemetry(log, max_bytes=3_000, backups=1)
    tail = EventTail(log)
    for i in range(5):
        _complete(t, i)
    assert compute_metrics(tail.refresh())["requests"] == 5
    offset = tail._offset
    with log.open("a", encoding="utf-8") as fh:  # a line still being written is not read yet
        fh.write(json.dumps({"event": "agent_complete", "status": "OK"})[:20])
    assert compute_metrics(tail.refresh())["requests"] == 5 and tail._offset == offset
    log.write_text("", encoding="utf-8")
    for i in range(5, 60):  # rotates on the way
        _complete(t, i)
    assert (tmp_path / "events.jsonl.1").exists()
    events = tail.refresh()
    assert compute_metrics(events)["requests"] >= 5
    assert events[-1]["request_id"] == "r59"
