"""A stand-in AMap on 127.0.0.1 whose fault is switched while it runs (the provider half of the fault suite: issue
21 §6). Healthy, it answers as ``AMapLimitedStandIn`` does (the region pack's places and estimates in AMap's
shapes); with a fault set, every request gets that fault until it is cleared, so a test sees the same process
recover without a restart.

Faults: ``slow`` (the right answer after ``slow_s``), ``http500``, ``garbage`` (HTTP 200, not JSON), ``malformed``
(AMap's envelope with ``status`` "1" but every list field a string and every figure not a number), ``quota10003``
and ``quota10044`` (the day's quota spent), ``minute10004`` (the minute's volume spent), in AMap's own bodies."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from standins.amap import DAILY_BODY, MINUTE_BODY, AMapLimitedStandIn

#: every fault the suite injects, in the order the report lists them
FAULTS = ("slow", "http500", "garbage", "malformed", "quota10003", "quota10044", "minute10004")
USER_DAILY_BODY = {"status": "0", "info": "USER_DAILY_QUERY_OVER_LIMIT", "infocode": "10044"}
REFUSALS: dict[str, dict[str, str]] = {
    "quota10003": DAILY_BODY,
    "quota10044": USER_DAILY_BODY,
    "minute10004": MINUTE_BODY,
}


def _malformed(body: dict[str, Any]) -> dict[str, Any]:
    """The healthy answer with its envelope kept and its payload's types broken (a list a string, a figure text)."""
    out: dict[str, Any] = dict(body)
    for name in ("geocodes", "pois", "results"):
        if name in out:
            out[name] = "unavailable"
    if "route" in out:
        out["route"] = {"paths": [{"distance": "far", "duration": "long", "steps": "none"}]}
    return out


class SwitchableAMap:
    """AMap's Web Service on 127.0.0.1 with a fault that can be set and cleared while it serves.

    ``requests`` lists the path of every request (healthy or faulted)."""

    def __init__(self, region: str = "shanghai", *, slow_s: float = 5.0) -> None:
        self.healthy = AMapLimitedStandIn(region)  # only its answers are used: its server is never started
        self.fault: str | None = None
        self.slow_s = slow_s
        self.requests: list[str] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                outer.answer(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def set(self, fault: str | None) -> None:
        if fault is not None and fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; one of {FAULTS}")
        self.fault = fault

    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def answer(self, h: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(h.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        with self._lock:
            self.requests.append(parts.path)
        fault = self.fault
        if fault == "http500":
            return self._send(h, 500, b"<html>Internal Server Error</html>", "text/html")
        if fault == "garbage":
            return self._send(h, 200, b"<html>\xe7\xbb\xb4\xe6\x8a\xa4\xe4\xb8\xad maintenance</html>", "text/html")
        if fault in REFUSALS:
            return self._json(h, dict(REFUSALS[fault]))  # AMap refuses with HTTP 200
        if fault == "slow":
            time.sleep(self.slow_s)
        body = self.healthy.answer(parts.path, query)
        self._json(h, _malformed(body) if fault == "malformed" else body)

    @classmethod
    def _json(cls, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        cls._send(h, 200, json.dumps(body, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8")

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, data: bytes, kind: str) -> None:
        try:
            h.send_response(status)
            h.send_header("Content-Type", kind)
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the caller's timeout closed the connection first (the slow fault)

    def __enter__(self) -> SwitchableAMap:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
