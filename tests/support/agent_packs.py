"""Small, controlled region pack and fixtures for the agent tests (written into tmp dirs).

The places are real Shanghai sights with plausible facts, but this is *test data*: the tests
depend on these exact values, not on the curated bundled pack (which has its own tests).
"""

from __future__ import annotations

import threading
from datetime import datetime
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from zoneinfo import ZoneInfo

from tests.support.region_packs import write_region

REGION = {
    "name": "agentcity",
    "display_name": {"zh": "上海", "en": "Shanghai"},
    "city": "上海",
    "city_aliases": ["上海市", "Shanghai"],
    "country": "CN",
    "timezone": "Asia/Shanghai",
    "bbox": [120.8, 30.6, 122.2, 31.9],
    "center": [121.4737, 31.2304],
    "estimate": {
        "driving": {"circuity": 1.35, "speed_kmh": 27, "fixed_overhead_s": 120},
        "walking": {"circuity": 1.25, "speed_kmh": 4.8, "fixed_overhead_s": 0},
    },
}
PLACES = [
    (
        "a-bund",
        "外滩",
        "The Bund",
        "Bund|外滩观景平台",
        "黄浦区中山东一路",
        "黄浦区",
        121.4880,
        31.2402,
        "landmark",
        "outdoor|free|night_view|photo_spot",
        "24/7",
        0,
        4.8,
        60,
        "false",
    ),
    (
        "a-pearl",
        "东方明珠广播电视塔",
        "Oriental Pearl TV Tower",
        "东方明珠|Pearl Tower",
        "浦东新区世纪大道1号",
        "浦东新区",
        121.4951,
        31.2420,
        "landmark",
        "indoor|night_view|kid_friendly|rainy_day_ok",
        "Mo-Su 09:00-21:30",
        199,
        4.5,
        90,
        "false",
    ),
    (
        "a-yuyuan",
        "豫园",
        "Yu Garden",
        "Yuyuan Garden",
        "黄浦区安仁街218号",
        "黄浦区",
        121.4921,
        31.2272,
        "landmark",
        "historic|photo_spot",
        "Tu-Su 09:00-16:30; Mo off",
        40,
        4.6,
        90,
        "true",
    ),
    (
        "a-museum",
        "上海博物馆",
        "Shanghai Museum",
        "上博",
        "黄浦区人民大道201号",
        "黄浦区",
        121.4755,
        31.2283,
        "museum",
        "indoor|free|historic|rainy_day_ok",
        "Tu-Su 09:00-17:00; Mo off",
        0,
        4.8,
        120,
        "true",
    ),
    (
        "a-jingan",
        "静安寺",
        "Jing'an Temple",
        "Jingan Temple",
        "静安区南京西路1686号",
        "静安区",
        121.4454,
        31.2234,
        "temple",
        "historic|quiet",
        "Mo-Su 07:30-17:00",
        50,
        4.5,
        45,
        "false",
    ),
    (
        "a-century-park",
        "世纪公园",
        "Century Park",
        "",
        "浦东新区锦绣路1001号",
        "浦东新区",
        121.5515,
        31.2157,
        "park",
        "outdoor|nature|kid_friendly|quiet",
        "Mo-Su 07:00-18:00",
        10,
        4.4,
        90,
        "false",
    ),
    (
        "a-tianzifang",
        "田子坊",
        "Tianzifang",
        "",
        "黄浦区泰康路210弄",
        "黄浦区",
        121.4664,
        31.2089,
        "shopping",
        "art|shopping|photo_spot",
        "Mo-Su 10:00-22:00",
        0,
        4.2,
        60,
        "false",
    ),
    (
        "a-xintiandi",
        "新天地",
        "Xintiandi",
        "",
        "黄浦区太仓路181弄",
        "黄浦区",
        121.4747,
        31.2196,
        "shopping",
        "food|night_view|shopping",
        "Mo-Su 10:00-23:00",
        0,
        4.4,
        60,
        "false",
    ),
    (
        "a-longhua",
        "龙华寺",
        "Longhua Temple",
        "",
        "徐汇区龙华路2853号",
        "徐汇区",
        121.4486,
        31.1770,
        "temple",
        "historic|quiet|local_favourite",
        "Mo-Su 07:00-16:30",
        10,
        4.5,
        45,
        "false",
    ),
    (
        "a-nanxiang",
        "南翔馒头店",
        "Nanxiang Steamed Bun",
        "南翔小笼",
        "黄浦区豫园路85号",
        "黄浦区",
        121.4918,
        31.2277,
        "restaurant",
        "food|local_favourite",
        "Mo-Su 08:00-21:00",
        80,
        4.2,
        45,
        "false",
    ),
    (
        "a-peace-hotel",
        "和平饭店",
        "Peace Hotel",
        "Fairmont Peace Hotel",
        "黄浦区南京东路20号",
        "黄浦区",
        121.4860,
        31.2405,
        "hotel",
        "historic|premium",
        "24/7",
        1500,
        4.7,
        30,
        "true",
    ),
    (
        "a-shortwindow",
        "短时展厅",
        "Short Window Hall",
        "",
        "黄浦区测试路1号",
        "黄浦区",
        121.4800,
        31.2300,
        "museum",
        "indoor",
        "Mo-Su 10:00-10:20",
        0,
        4.0,
        120,
        "false",
    ),
]


def write_agent_pack(root: Path, name: str = "agentcity") -> Path:
    return write_region(root, {**REGION, "name": name}, PLACES)


def make_settings(tmp: Path, **overrides):
    from core.config import Settings

    data = write_agent_pack(tmp / "data")
    kb = tmp / "kb"
    kb.mkdir(exist_ok=True)
    base = dict(
        data_dir=data,
        region="agentcity",
        provider="offline",
        db_url=f"sqlite:///{tmp / 'trips.db'}",
        agent_event_log=tmp / "events.jsonl",
        kb_dir=kb,
        browse_allowlist=["127.0.0.1:*"],
        browse_evidence_dir=tmp / "browse",
    )
    base.update(overrides)
    return Settings(**base)


def make_provider(settings):
    from core.geo.composite import MapServices
    from core.geo.offline import OfflineProvider
    from core.packs.loader import load_region

    offline = OfflineProvider(load_region(settings.region, settings.data_dir))
    return MapServices(geocoder=offline, router=offline, region=offline.region)


FIXED_NOW = datetime(2025, 6, 20, 15, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Friday afternoon


def agent_runner(tmp: Path):
    """``run(message, **fields)``: route_and_run on the test pack at FIXED_NOW as user alice. Request fields go
    into the request; ``clock`` and ``telemetry`` go to route_and_run. ``run.settings``/``run.provider``."""
    from core.agent import route_and_run
    from core.app.agent import agent_deps

    settings = make_settings(tmp)
    provider = make_provider(settings)

    def run(message, **kw):
        clock = {"clock": kw.pop("clock")} if "clock" in kw else {}
        telemetry = {"telemetry": kw.pop("telemetry")} if "telemetry" in kw else {}
        kw.setdefault("user_id", "alice")
        deps = agent_deps(settings, provider, **telemetry)
        return route_and_run({"message": message, **kw}, deps, now=FIXED_NOW, **clock)

    run.settings = settings
    run.provider = provider
    return run


from tests.support.paths import SITE_DIR  # noqa: E402


def PUBLIC_DNS(host: str, port: int) -> list[str]:  # noqa: N802  # a constant-like stand-in
    """The DNS of a mocked network (httpx.MockTransport): every name at one public address, so the browse guard's
    address check passes and the mock answers."""
    return ["93.184.215.14"]


class _Handler(SimpleHTTPRequestHandler):
    hits: list[str] = []

    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):  # noqa: N802
        type(self).hits.append(f"{self.headers.get('Host')}{self.path}")
        if self.path.startswith("/redirect?to="):  # an open redirect, as real sites have
            from urllib.parse import unquote

            self.send_response(302)
            self.send_header("Location", unquote(self.path.split("=", 1)[1]))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path.startswith("/drip"):  # a page dripped a few bytes at a time, slower than any budget
            import time as _time

            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            try:
                for _ in range(60):
                    self.wfile.write(b"<p>x</p>")
                    self.wfile.flush()
                    _time.sleep(0.1)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        if self.path.startswith("/huge"):  # far larger than any page the executor reads
            chunk = b"<p>" + b"x" * 65_536 + b"</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            try:
                for _ in range(200):  # 13 MB
                    self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        path = SITE_DIR / self.path.lstrip("/").split("?")[0]
        if not path.is_file():
            self.send_error(404)
            return
        body = path.read_text(encoding="utf-8").replace("PORT", str(self.server.server_address[1])).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class FixtureSite:
    """The local fixture website on 127.0.0.1 (a thread); ``hits`` lists every request it served."""

    def __init__(self):
        handler = type("Handler", (_Handler,), {"hits": []})
        self.handler = handler
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler))
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def hits(self) -> list[str]:
        return self.handler.hits

    def url(self, page: str) -> str:
        return f"http://127.0.0.1:{self.port}/{page}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
