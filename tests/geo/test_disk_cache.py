"""The on-disk response cache: re-planning the same points with a new provider (as a new process would) asks
AMap nothing, a failure or a fallback's estimate is never kept, and local services stay off the disk."""

from __future__ import annotations

import time

from bench.amap_cache import AMapShapedServer
from core.config import Settings
from core.geo.base import LonLat
from core.geo.cache import DiskResponseCache
from core.geo.registry import make_provider
from core.route.planner import plan_route
from core.route.scenarios import load_scenario
from tests.support.amap_settings import amap_settings
from tests.support.amap_standin import AMapStandIn


def cached_settings(base_url: str, cache_dir) -> Settings:
    return amap_settings(base_url, key="disk-cache-test-key", http_timeout_s=2, cache_dir=cache_dir)


def test_a_second_provider_on_the_same_folder_asks_amap_nothing(tmp_path):
    request = load_scenario("family-day").request
    with AMapShapedServer() as amap:
        settings = cached_settings(amap.base_url, tmp_path / "cache")
        first = plan_route(request, provider=make_provider("amap", settings=settings), settings=settings)
        cold = len(amap.requests)
        again = plan_route(request, provider=make_provider("amap", settings=settings), settings=settings)
    assert cold >= 1 + len(request.stops)  # every place geocoded, a matrix, the legs
    assert len(amap.requests) == cold  # nothing new reached AMap
    assert again.provider_calls.total == 0 and again.provider_calls.cache_hits > 0
    assert again.best_route.stop_order_labels == first.best_route.stop_order_labels
    assert again.metric_source == first.metric_source == "amap"


def test_a_failed_answer_is_not_kept(tmp_path):
    request = load_scenario("family-day").request
    cache_dir = tmp_path / "cache"
    with AMapStandIn("error_invalid_key.json") as broken:
        settings = cached_settings(broken.base_url, cache_dir)
        degraded = plan_route(request, provider=make_provider("amap", settings=settings), settings=settings)
    assert any("AMap" in w for w in degraded.warnings)
    with AMapShapedServer() as amap:
        settings = cached_settings(amap.base_url, cache_dir)
        result = plan_route(request, provider=make_provider("amap", settings=settings), settings=settings)
    assert len(amap.requests) > 0 and result.metric_source == "amap"  # asked again, not served the estimate


def test_only_remote_services_go_to_disk_and_entries_expire(tmp_path):
    leg_key = ("route", "amap", (121.4, 31.2), (121.5, 31.3), "driving")
    local_key = ("route", "valhalla", (24.9, 60.1), (24.95, 60.17), "walking")
    writer = DiskResponseCache(tmp_path, persist=("amap",), ttl_s={"route": 0.2})
    writer.put(leg_key, "an AMap answer")
    writer.put(local_key, "a local answer")
    reader = DiskResponseCache(tmp_path, persist=("amap",), ttl_s={"route": 0.2})
    assert reader.get(leg_key) == (True, "an AMap answer")
    assert reader.get(local_key) == (False, None)
    time.sleep(0.3)
    assert DiskResponseCache(tmp_path, persist=("amap",)).get(leg_key) == (False, None)


def test_without_a_folder_the_cache_is_memory_only(tmp_path):
    settings = Settings(region="shanghai", cache_dir=None)
    services = make_provider("offline", settings=settings)
    assert not isinstance(services.cache, DiskResponseCache)
    services.route(LonLat(121.47, 31.23), LonLat(121.49, 31.24), mode="driving")
    assert not any(tmp_path.iterdir())
