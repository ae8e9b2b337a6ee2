"""A stand-in AMap Web Service on 127.0.0.1 that fails on purpose: hangs, HTTP errors, redirects, bodies that
are not JSON, a broken route polyline, and every error infocode of the recorded fixtures with the caller's key
echoed in the body (as AMap does for an invalid key)."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from standins.http import send_json
from tests.support.paths import AMAP_FIXTURES, amap_fixture

ERROR_FIXTURES = sorted(p.name for p in AMAP_FIXTURES.glob("error_*.json"))
FAULTS = ["hang", "http400", "http403", "http503", "http302", "not_json", "broken_polyline", *ERROR_FIXTURES]


def _echo_key(body: dict, key: str) -> dict:
    """An error body that repeats the caller's key in every place AMap has been seen to put it."""
    out = dict(body)
    out["info"] = f"{out.get('info', '')} (key={key})"
    if "key" in out or "sec_code_debug" in out:
        out["key"] = key
        out["sec_code_debug"] = key
    if "errmsg" in out:
        out["errmsg"] = f"{out['errmsg']} key:{key}"
    return out


class AMapStandIn:
    def __init__(self, fault: str, *, hang_s: float = 3.0) -> None:
        self.fault = fault
        self.requests: list[str] = []
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # noqa: N802
                standin.requests.append(self.path)
                standin.answer(self)

        self.hang_s = hang_s
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, h: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(h.path)
        key = (parse_qs(parts.query).get("key") or [""])[0]
        fault = self.fault
        if fault == "hang":
            time.sleep(self.hang_s)
            return self._json(h, 200, amap_fixture("geocode_geo_v3.json"))
        if fault.startswith("http"):
            status = int(fault[4:])
            h.send_response(status)
            if status == 302:
                h.send_header("Location", f"http://127.0.0.1:9/login?key={key}")
            body = f"error page for key={key}".encode()
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body)
            return
        if fault == "not_json":
            body = f"<html>maintenance {key}</html>".encode()
            h.send_response(200)
            h.send_header("Content-Type", "text/html")
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body)
            return
        if fault == "broken_polyline":
            if parts.path.startswith("/v3/direction/"):
                route = amap_fixture("direction_driving_v3.json")
                for step in route["route"]["paths"][0]["steps"]:
                    step["polyline"] = "121.47,abc;not-a-point"
                return self._json(h, 200, route)
            return self._json(h, 200, _echo_key(amap_fixture("error_invalid_params.json"), key))
        return self._json(h, 200, _echo_key(amap_fixture(fault), key))

    @staticmethod
    def _json(h: BaseHTTPRequestHandler, status: int, body: dict) -> None:
        send_json(h, status, body)

    def __enter__(self) -> AMapStandIn:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
