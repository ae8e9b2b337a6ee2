"""Observability: events to a JSON-lines log, and the metrics computed from it.

Events: router_decision, system2_step, critic_result, webbrowse_blocked, fallback_triggered,
agent_complete (+ action_call, one per registry call with its trace id and duration). Messages
are never logged, only codes and numbers (and the request id).

Metrics: Router P95, System 1 P95, System 2 success rate by scenario, fallback rate, browse block
rate, infeasible hard-nodes rate.
"""

from __future__ import annotations

import json
import os
import threading
from collections import defaultdict, deque
from enum import StrEnum
from pathlib import Path
from typing import Any

import numpy as np

from core.clock import real_epoch_s


class TelemetryEvent(StrEnum):
    """The kinds of event, as the log's ``event`` field writes them (a row reads back as the same string)."""

    ROUTER_DECISION = "router_decision"
    SYSTEM2_STEP = "system2_step"
    CRITIC_RESULT = "critic_result"
    WEBBROWSE_BLOCKED = "webbrowse_blocked"
    FALLBACK_TRIGGERED = "fallback_triggered"
    AGENT_COMPLETE = "agent_complete"
    ACTION_CALL = "action_call"


EVENTS: tuple[TelemetryEvent, ...] = tuple(TelemetryEvent)


#: The log is rotated past this size, keeping this many older files (log.1 newest): it never grows without bound.
LOG_MAX_BYTES = 10_000_000
LOG_BACKUPS = 3


def _rotate(path: Path, backups: int) -> None:
    for i in range(backups - 1, 0, -1):
        older = path.with_name(f"{path.name}.{i}")
        if older.exists():
            older.replace(path.with_name(f"{path.name}.{i + 1}"))
    path.replace(path.with_name(f"{path.name}.1"))


class Telemetry:
    def __init__(
        self,
        path: Path | str | None,
        *,
        request_id: str | None = None,
        max_bytes: int = LOG_MAX_BYTES,
        backups: int = LOG_BACKUPS,
    ):
        self.path = Path(path) if path else None
        self.request_id = request_id
        self.max_bytes = max_bytes
        self.backups = max(1, backups)
        self.events: list[dict[str, Any]] = []  # this request's events (also written to the log)

    _lock = threading.Lock()

    def emit(self, event: TelemetryEvent | str, **fields: Any) -> dict[str, Any]:
        if event not in EVENTS:
            raise ValueError(f"unknown event {event!r}")
        rec = {
            "event": TelemetryEvent(event).value,
            "ts": round(real_epoch_s(), 3),
            "request_id": self.request_id,
            **fields,
        }
        self.events.append(rec)
        if self.path is not None:
            line = json.dumps(rec, ensure_ascii=False, default=str)
            with Telemetry._lock:
                self._append(line + "\n")
        return rec

    def _append(self, line: str) -> None:
        """Append ``line``, rotating first when it would take the log past ``max_bytes`` (two system calls when
        nothing is due: the open and the write; the folder is made when the open finds none)."""
        assert self.path is not None
        data = line.encode("utf-8")
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            except FileNotFoundError:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                continue
            try:
                size = os.lseek(fd, 0, os.SEEK_END)
                if size > 0 and size + len(data) > self.max_bytes:  # an empty log takes any one line
                    os.close(fd)
                    _rotate(self.path, self.backups)
                    fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                os.write(fd, data)
            finally:
                os.close(fd)
            return

    # typed helpers, one per event kind
    def router_decision(
        self, *, route: str, confidence: float, reasons: list[str], router_ms: float, **kw: Any
    ) -> dict[str, Any]:
        return self.emit(
            TelemetryEvent.ROUTER_DECISION,
            route=route,
            confidence=confidence,
            reasons=reasons,
            router_ms=round(router_ms, 3),
            **kw,
        )

    def system2_step(
        self, *, step: int, action: str, ms: float, status: str, error_code: str | None = None
    ) -> dict[str, Any]:
        return self.emit(
            TelemetryEvent.SYSTEM2_STEP, step=step, action=action, ms=round(ms, 3), status=status, error_code=error_code
        )

    def critic_result(
        self, *, passed: bool, violations: list[str], min_slack: float | None, total_wait: float | None
    ) -> dict[str, Any]:
        return self.emit(
            TelemetryEvent.CRITIC_RESULT,
            **{"pass": passed},
            violations=violations,
            min_slack=min_slack,
            total_wait=total_wait,
        )

    def webbrowse_blocked(self, *, domain: str, blocked_type: str) -> dict[str, Any]:
        return self.emit(TelemetryEvent.WEBBROWSE_BLOCKED, domain=domain, blocked_type=blocked_type)

    def fallback_triggered(self, *, from_route: str, to_route: str, reason: str) -> dict[str, Any]:
        return self.emit(TelemetryEvent.FALLBACK_TRIGGERED, from_route=from_route, to_route=to_route, reason=reason)

    def agent_complete(
        self,
        *,
        status: str,
        latency_ms: float,
        tool_calls: int,
        browser_steps: int,
        cost_units: float = 0.0,
        cost_est_usd: float | None = None,
        **kw: Any,
    ) -> dict[str, Any]:
        """``cost_units``: the budget units; ``cost_est_usd``: money from the price table, None when unpriced (rows
        written before the units had their own field hold the units in ``cost_est_usd``: see ``row_cost``)."""
        return self.emit(
            TelemetryEvent.AGENT_COMPLETE,
            status=status,
            latency_ms=round(latency_ms, 3),
            cost_units=cost_units,
            cost_est_usd=cost_est_usd,
            tool_calls=tool_calls,
            browser_steps=browser_steps,
            **kw,
        )

    def action_call(self, rec: Any) -> None:
        self.emit(
            TelemetryEvent.ACTION_CALL,
            trace_id=rec.trace_id,
            action=rec.action,
            ms=rec.ms,
            ok=rec.ok,
            cached=rec.cached,
            error_code=rec.error_code,
        )


def read_events(path: Path | str, *, limit: int | None = 20_000) -> list[dict[str, Any]]:
    p = Path(path)
    if not p.is_file():
        return []
    lines = p.read_text(encoding="utf-8").splitlines()
    if limit:
        lines = lines[-limit:]
    out = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out


class EventTail:
    """The latest events of a log, read incrementally: each refresh reads only what was appended since the last
    one (from a rotation it starts the new file afresh), and keeps at most ``keep`` events."""

    def __init__(self, path: Path | str, *, keep: int = 20_000) -> None:
        self.path = Path(path)
        self.events: deque[dict[str, Any]] = deque(maxlen=keep)
        self._offset = 0
        self._inode: int | None = None
        self._lock = threading.Lock()

    def refresh(self) -> list[dict[str, Any]]:
        with self._lock:
            try:
                stat = self.path.stat()
            except FileNotFoundError:
                return list(self.events)
            if stat.st_ino != self._inode or stat.st_size < self._offset:  # rotated or replaced
                self._inode, self._offset = stat.st_ino, 0
            if stat.st_size > self._offset:
                with self.path.open("rb") as fh:
                    fh.seek(self._offset)
                    chunk = fh.read(stat.st_size - self._offset)
                end = chunk.rfind(b"\n") + 1  # a line still being written is read next time
                for line in chunk[:end].splitlines():
                    try:
                        self.events.append(json.loads(line))
                    except (json.JSONDecodeError, UnicodeDecodeError):
                        continue
                self._offset += end
            return list(self.events)


_TAILS: dict[str, EventTail] = {}
_TAILS_LOCK = threading.Lock()


def live_metrics(path: Path | str | None) -> dict[str, Any]:
    """The metrics of the event log at ``path``, kept up to date incrementally (one tail per log, per process);
    no log (``OMNI_AGENT_EVENT_LOG=""``): the metrics of no events."""
    if path is None:
        return compute_metrics([])
    with _TAILS_LOCK:
        tail = _TAILS.setdefault(str(Path(path)), EventTail(path))
    return compute_metrics(tail.refresh())


def row_cost(event: dict[str, Any]) -> tuple[float, float | None, str | None]:
    """An agent_complete row's (budget units, money, currency). Rows from before the units had their own field
    (no ``cost_units``) hold the units in ``cost_est_usd``: read as units, never as money."""
    if "cost_units" not in event:
        return float(event.get("cost_est_usd") or 0.0), None, None
    money = event.get("cost_est_usd")
    return (
        float(event.get("cost_units") or 0.0),
        (float(money) if money is not None else None),
        event.get("cost_currency"),
    )


def _one_currency(priced: list[tuple[float, str | None]]) -> str | None:
    """The currency of the priced rows when they share one (a total across currencies names none)."""
    currencies = {c for _, c in priced if c}
    return currencies.pop() if len(currencies) == 1 else None


def _p95(values: list[float]) -> float | None:
    return round(float(np.percentile(values, 95)), 3) if values else None


def compute_metrics(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The agent's metrics from a list of events."""
    router_ms = [e["router_ms"] for e in events if e.get("event") == TelemetryEvent.ROUTER_DECISION]
    completes = [e for e in events if e.get("event") == TelemetryEvent.AGENT_COMPLETE]
    s1 = [e["latency_ms"] for e in completes if e.get("system_mode") == "SYSTEM1"]
    s2 = [e for e in completes if e.get("system_mode") == "SYSTEM2"]
    by_scenario: dict[str, list[bool]] = defaultdict(list)
    for e in s2:
        by_scenario[e.get("scenario") or e.get("route") or "unknown"].append(
            e.get("status") in ("OK", "NEED_CONFIRMATION", "NEED_CONSENT")
        )
    fallbacks = {e.get("request_id") for e in events if e.get("event") == TelemetryEvent.FALLBACK_TRIGGERED}
    browsed = [e for e in completes if e.get("route") == "SYSTEM2_WEBBROWSE" and (e.get("browser_steps") or 0) > 0]
    blocked = {e.get("request_id") for e in events if e.get("event") == TelemetryEvent.WEBBROWSE_BLOCKED}
    infeasible = [e for e in s2 if e.get("error_code") == "PLANNER_INFEASIBLE_HARD_NODES"]
    plans = [e for e in s2 if e.get("scenario") in ("plan", "conditional")]
    costs = [row_cost(e) for e in completes]
    priced = [(money, currency) for _, money, currency in costs if money is not None]
    return {
        "requests": len(completes),
        "router_p95_ms": _p95(router_ms),
        "system1_p95_ms": _p95(s1),
        "system2_p95_ms": _p95([e["latency_ms"] for e in s2]),
        "system2_success_rate": {k: round(sum(v) / len(v), 3) for k, v in sorted(by_scenario.items())},
        "fallback_rate": round(len(fallbacks) / len(completes), 3) if completes else None,
        "browse_block_rate": round(len(blocked & {e.get("request_id") for e in browsed}) / len(browsed), 3)
        if browsed
        else None,
        "infeasible_hard_nodes_rate": round(len(infeasible) / len(plans), 3) if plans else None,
        "cost_units_total": round(sum(units for units, _, _ in costs), 6),
        "tokens_total": sum(int(e.get("tokens") or 0) for e in completes),
        "cost_priced_total": round(sum(m for m, _ in priced), 6) if priced else None,
        "cost_currency": _one_currency(priced),
    }
