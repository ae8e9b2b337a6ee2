"""One pool of map services per process root (core/geo/pool.py): each provider built once, even when requests
arrive together; each request plans on a view of its own."""

from __future__ import annotations

import threading
import time

from core.config import get_settings
from core.geo.pool import ProviderPool
from core.geo.registry import make_provider


def test_a_provider_is_built_once_for_requests_that_arrive_together_and_each_gets_its_own_view():
    built: list[str] = []
    start = threading.Barrier(6)

    def build(name, region, settings):
        built.append(region)
        time.sleep(0.05)  # a slow build: the other requests arrive while it runs
        return make_provider(name, region=region, settings=settings)

    pool = ProviderPool(build)
    settings = get_settings()
    views = []

    def request() -> None:
        start.wait()
        views.append(pool.view("offline", "shanghai", settings, key=("offline", "shanghai")))

    threads = [threading.Thread(target=request) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert built == ["shanghai"]
    assert len({id(v) for v in views}) == 6 and len({id(v.shared) for v in views}) == 1
    views[0].warnings.add("only the first request's")
    assert [len(v.warnings.entries()) for v in views] == [1, 0, 0, 0, 0, 0]


def test_another_key_is_another_provider_and_a_put_one_is_served_as_it_is():
    pool = ProviderPool()
    settings = get_settings()
    shanghai = pool.shared("offline", "shanghai", settings, key=("offline", "shanghai"))
    helsinki = pool.shared("offline", "helsinki", settings, key=("offline", "helsinki"))
    assert (shanghai.region.name, helsinki.region.name) == ("shanghai", "helsinki")
    own = make_provider("offline", region="shanghai", settings=settings)
    pool.put(("mine",), own)
    assert pool.shared("offline", "shanghai", settings, key=("mine",)) is own
