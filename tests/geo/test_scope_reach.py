"""The request's scope reaches every call made on its behalf: the deep links' MCP calls too, budgets that nest only
as they should, and every service the registry builds is one a view can bind (core/geo/scope.py)."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from core.errors import ProviderNotRequested
from core.geo.amap_mcp import AMapMcpProvider
from core.geo.composite import MapServices
from core.geo.offline import OfflineProvider
from core.geo.scope import ScopedService
from core.packs.loader import load_region
from core.route.planner import _mcp_link_makers

KEY = "0123456789abcdef0123456789abcdef"
BUND = SimpleNamespace(lon=121.490317, lat=31.241701)  # the navigation link reads a point's position only


@pytest.fixture
def mcp_view(monkeypatch):
    """A view over AMap's MCP tools whose tool calls answer at once with a link, recording the time each may wait."""
    waits: list[float] = []

    async def answer(self, tool, arguments, timeout_s):
        waits.append(timeout_s)
        return "https://surl.amap.com/abc"

    monkeypatch.setattr(AMapMcpProvider, "_call", answer)
    pack = load_region("shanghai")
    mcp = AMapMcpProvider(key=KEY, timeout_s=20)
    shared = MapServices(geocoder=mcp, router=OfflineProvider(pack), region=pack)
    return shared.for_request(), mcp, waits


def test_a_deep_link_call_is_not_made_once_the_plans_time_for_providers_is_spent(mcp_view):
    view, mcp, waits = mcp_view
    with view.budget(0.0):
        makers = _mcp_link_makers(view, "trip")
        with pytest.raises(ProviderNotRequested):
            makers["navi_maker"](BUND)
    assert waits == [] and mcp.scope.tally.count == 0


def test_a_deep_link_call_waits_at_most_the_budgets_call_wait_and_is_counted_for_its_request(mcp_view):
    view, mcp, waits = mcp_view
    with view.budget(30.0, call_wait_s=2.0):
        link = _mcp_link_makers(view, "trip")["navi_maker"](BUND)
    assert link == "https://surl.amap.com/abc"
    assert len(waits) == 1 and waits[0] <= 2.0  # the call's cap, not the service's 20 s
    assert view.remote_requests() == 1 and mcp.scope.tally.count == 0  # the request's tally, not the process's


def test_budgets_on_one_view_that_end_out_of_order_are_refused(mcp_view):
    view, _, _ = mcp_view
    inner_open, outer_done = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def other_thread() -> None:
        with view.budget(60.0):
            inner_open.set()
            outer_done.wait(5)

    thread = threading.Thread(target=other_thread)
    with pytest.raises(RuntimeError, match="must nest"):
        with view.budget(30.0):
            thread.start()
            inner_open.wait(5)
    outer_done.set()
    thread.join(5)
    assert not errors


def test_every_remote_service_the_registry_builds_binds_to_a_request(monkeypatch):
    from core.geo import registry

    scoped = [name for name in registry.SERVICES if name not in ("pack", "estimate")]
    assert scoped  # amap, amap-mcp, nominatim, osrm, valhalla
    pack = load_region("shanghai")
    for name in ("amap", "nominatim+osrm", "pack+valhalla"):
        from core.config import Settings

        settings = Settings(
            amap_key=KEY, nominatim_url="http://127.0.0.1:9/", osrm_url="http://127.0.0.1:9/",
            valhalla_url="http://127.0.0.1:9/",
        )  # fmt: skip
        built = registry.make_provider(name, region=pack.name, settings=settings)
        for service in (built.geocoder, built.router):
            if isinstance(service, OfflineProvider):
                continue
            assert isinstance(service, ScopedService), (name, service)
            inner = getattr(service, "inner", None)
            assert inner is None or isinstance(inner, ScopedService), (name, inner)
