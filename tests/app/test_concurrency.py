"""Eight people plan at the same moment on one shared provider (issue 19, "Done when").

The router of the shared provider is down for some places (its fallback answers them with a warning), so half
the requests warn and half do not. Run together from eight threads, each result must hold exactly the warnings
and provider calls the same request gets when it runs alone on a fresh provider."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from core.app import AppServices, RequestContext
from core.app.route import plan_route
from core.config import Settings
from core.geo.composite import MapServices
from core.models.region import RegionPack
from core.models.route import RoutePlanRequest, RoutePlanResult
from core.packs.loader import load_region
from tests.support.patchy import patchy_services

THREADS = 8


@pytest.fixture(scope="module")
def pack() -> RegionPack:
    return load_region("shanghai")


def _places(pack: RegionPack) -> list[Any]:
    """Eight disjoint groups of five landmarks-and-sights (no cache entry is shared between two requests)."""
    chosen = [p for p in pack.places if p.category in ("landmark", "museum", "park", "attraction", "shopping")]
    assert len(chosen) >= THREADS * 5, len(chosen)
    return chosen[: THREADS * 5]


def _requests(pack: RegionPack) -> tuple[list[RoutePlanRequest], set[tuple[float, float]]]:
    places = _places(pack)
    down: set[tuple[float, float]] = set()
    requests = []
    for i in range(THREADS):
        group = places[i * 5 : i * 5 + 5]
        if i % 2:  # odd requests include a place the router cannot answer: they warn
            down.add((round(group[2].lon, 5), round(group[2].lat, 5)))
        requests.append(
            RoutePlanRequest.model_validate(
                {
                    "task_name": f"request {i}",
                    "origin_mode": "fixed",
                    "origin_name": group[0].name_zh,
                    "destination_name": group[1].name_zh,
                    "stops": [{"name": p.name_zh} for p in group[2:]],
                    "route_strategy": "shortest_distance",
                    "transport_mode": "driving",
                }
            )
        )
    return requests, down


def _shared(pack: RegionPack, down: set[tuple[float, float]]) -> MapServices:
    return patchy_services(pack, down)


def _context(services: AppServices, settings: Settings) -> RequestContext:
    return services.context(user="u", lang="en", region="shanghai", provider="patchy", settings=settings)


def _facts(result: RoutePlanResult) -> tuple[list[str], list[tuple[str, str]], dict[str, int]]:
    notices = sorted((n.code, repr(sorted(n.params.items()))) for n in result.notices)
    return sorted(result.warnings), notices, result.provider_calls.model_dump()


def _alone(pack: RegionPack, settings: Settings, request: RoutePlanRequest, down: set) -> RoutePlanResult:
    services = AppServices(settings)
    services.use_provider("patchy", "shanghai", _shared(pack, down))
    return plan_route(_context(services, settings), request)


def _together(
    pack: RegionPack, settings: Settings, requests: list[RoutePlanRequest], down: set
) -> tuple[list[RoutePlanResult], MapServices]:
    services = AppServices(settings)
    shared = _shared(pack, down)
    services.use_provider("patchy", "shanghai", shared)
    start = threading.Barrier(len(requests))

    def run(request: RoutePlanRequest) -> Callable[[], RoutePlanResult]:
        start.wait()
        return plan_route(_context(services, settings), request)

    with ThreadPoolExecutor(max_workers=len(requests)) as pool:
        results = list(pool.map(run, requests))
    return results, shared


def test_eight_concurrent_plans_keep_their_own_warnings_and_calls(pack):
    settings = Settings(provider="offline", region="shanghai", cache_dir=None)
    requests, down = _requests(pack)
    alone = [_alone(pack, settings, r, down) for r in requests]
    warned = [any("patchy" in w for w in r.warnings) for r in alone]
    assert warned == [bool(i % 2) for i in range(THREADS)], "odd requests warn of the router, even ones do not"

    together, shared = _together(pack, settings, requests, down)
    for i, (a, b) in enumerate(zip(alone, together)):
        assert b.task_name == f"request {i}"
        assert _facts(b) == _facts(a), f"request {i} got another request's warnings or counts"
    # the shared provider's totals are the sum of the requests' own counts, and it kept no request's warnings
    total = {k: sum(r.provider_calls.model_dump()[k] for r in together) for k in ("geocode", "matrix", "route")}
    snap = shared.snapshot().model_dump()
    assert {k: snap[k] for k in total} == total
    assert shared.warnings.drain() == []


def test_a_provider_asked_for_by_eight_requests_at_once_is_built_once(monkeypatch):
    import core.geo.registry as registry

    built: list[str] = []
    real = registry.make_provider

    def counting(name, **kw):
        built.append(name)
        time.sleep(0.05)  # a slow build: the other requests arrive while it runs
        return real(name, **kw)

    monkeypatch.setattr(registry, "make_provider", counting)
    services = AppServices(Settings(provider="offline", region="shanghai", cache_dir=None))
    start = threading.Barrier(THREADS)

    def ask() -> MapServices:
        start.wait()
        return services.provider("offline", "shanghai")

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        got = list(pool.map(lambda _: ask(), range(THREADS)))
    assert built == ["offline"] and all(p is got[0] for p in got)
