"""Per-request state on shared services (issue 21 §2): one request's failure memory, warnings and call tally never
reach another request running at the same time on the same ResilientProvider and MapServices. The two requests
run in two threads and are interleaved with events, so the order is fixed and nothing is timed."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import tenacity

from core.geo.amap import AMapProvider
from core.geo.base import WarningLog
from core.geo.composite import MapServices
from core.geo.resilience import ResilientProvider
from core.packs.loader import load_region
from tests.geo.test_resilience import FakeOffline

KEY = "0123456789abcdef0123456789abcdef"
GEOCODED = {
    "status": "1",
    "info": "OK",
    "infocode": "10000",
    "count": "1",
    "geocodes": [{"formatted_address": "上海市黄浦区外滩", "location": "121.490317,31.241701", "level": "兴趣点"}],
}


def shared_services() -> tuple[MapServices, list[str]]:
    """One AMap behind one resilient wrapper, as the process shares it: addresses starting "slow" time out."""
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        address = request.url.params.get("address", "")
        sent.append(address)
        if address.startswith("slow"):
            raise httpx.ReadTimeout("no answer", request=request)
        return httpx.Response(200, json=GEOCODED)

    inner = AMapProvider(key=KEY, client=httpx.Client(transport=httpx.MockTransport(handler)), min_interval_s=0)
    rp = ResilientProvider(
        inner, fallback=FakeOffline(), retries=3, fail_max=100, wait=tenacity.wait_none(), sleep=lambda s: None
    )
    return MapServices(geocoder=rp, router=rp, region=load_region("shanghai"), warnings=WarningLog()), sent


def test_a_timeout_in_one_request_is_not_remembered_by_another_running_at_the_same_time() -> None:
    shared, sent = shared_services()
    a_failed, b_asked_first = threading.Event(), threading.Event()
    out: dict[str, Any] = {}

    def request_a() -> None:
        view = shared.for_request()
        with view.budget(60):
            out["a1"] = view.geocode("slow 外滩", city="上海")  # times out: A remembers AMap did not answer
            a_failed.set()
            b_asked_first.wait(10)
            out["a2"] = view.geocode("豫园", city="上海")  # A does not wait on AMap again in this request
        out["a"] = view

    def request_b() -> None:
        view = shared.for_request()
        with view.budget(60):
            a_failed.wait(10)
            out["b1"] = view.geocode("外滩", city="上海")  # B is asked afresh, though A's timeout came first
            b_asked_first.set()
        out["b"] = view

    threads = [threading.Thread(target=request_a), threading.Thread(target=request_b)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(20)

    assert sent == ["slow 外滩", "外滩"]  # 豫园 was not sent: A's own memory; 外滩 was: B has none of A's
    assert out["b1"][0].source == "amap"  # its own answer (GCJ-02 121.490317 → WGS-84), not the fallback's
    assert out["a2"][0].source == "offline"
    a_view, b_view = out["a"], out["b"]
    assert a_view.remote_requests() == 1 and b_view.remote_requests() == 1
    assert [e.params["cause"] for e in a_view.warnings.entries()] == ["timeout", "timeout"]
    assert b_view.warnings.entries() == []  # A's warnings stay in A's log
    assert shared.warnings.entries() == []  # and none lands on the shared services' own log
