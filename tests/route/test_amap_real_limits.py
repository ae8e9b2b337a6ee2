"""Plans through a stand-in AMap that keeps AMap's limits, with the shipped settings (issue 20): 10- and 20-place
trips get every leg from AMap, a warm re-plan in a new process asks nothing, and a plan cut short by its budget
keeps what was answered and says which services were never asked. (Slow on purpose: the stand-in and the client
both keep 1 call a second; the timings are the bench's, ``python -m core bench amap-live``.)"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from pydantic import SecretStr

from bench.amap_live import by_service, plan_in_new_process, trip_request
from core.config import Settings
from core.geo.cache import DiskResponseCache
from core.geo.composite import MapServices
from core.geo.offline import OfflineProvider
from core.geo.registry import make_provider
from core.geo.resilience import make_amap_provider
from core.models.route import RoutePlanRequest
from core.packs.loader import load_region
from core.route.budget import needed_calls, plan_budget_s
from core.route.planner import plan_route
from core.route.stage_types import PlanStage
from core.words.route import stage_words
from standins.amap import AMapLimitedStandIn

KEY = "real-limits-key-0123456789"


def shipped(base_url: str, cache_dir: Path | None, **overrides: object) -> Settings:
    """The shipped settings (amap_qps 1, provider_budget_s 8, 3 retries), pointed at the stand-in."""
    values: dict[str, object] = {
        "region": "shanghai",
        "provider": "amap",
        "amap_key": SecretStr(KEY),
        "amap_base_url": base_url,
        "cache_dir": cache_dir,
    }
    return Settings(**{**values, **overrides})  # type: ignore[arg-type]


# 11 places: two geocode batches (AMap answers 10 addresses a call) at half the real pacing 20 places took
@pytest.mark.parametrize("places", [11])
def test_amap_trips_at_a_personal_keys_qps_get_every_leg_from_amap_and_replan_warm_with_no_calls(places, tmp_path):
    request = RoutePlanRequest.model_validate(trip_request(places))
    with AMapLimitedStandIn(qps=1, daily=5000) as amap:
        settings = shipped(amap.base_url, tmp_path / "cache")
        assert settings.amap_qps == 1 and settings.provider_budget_s == 8  # the defaults, unchanged
        result = plan_route(request, provider=make_provider("amap", settings=settings), settings=settings)
        calls = by_service(amap.requests)
        # a request the stand-in refused for its second's QPS (arrival times jitter on a loaded machine) is asked
        # again, and both count: the calls are what the plan needs plus exactly those refusals
        refused = sum(amap.refused.values())
        geocodes = -(-places // 10)  # batches of 10, not one call per place
        # the distance service asked one column a call, only for the places a leg can end at (all but the start);
        # the best route's legs on directions, each asked once (the drawing asks nothing again). The stand-in's
        # directions equal its matrix, so orders 2 and 3 cannot outrank the best on their lower bound: no more
        assert result.best_route.measured_by == "directions"
        assert len(amap.requests) == geocodes + (places - 1) + (places - 1) + refused, (calls, amap.refused)
        assert calls["geocode"] >= geocodes and calls["matrix"] >= places - 1 and calls["route"] >= places - 1
        assert all(leg.source == "amap" for leg in result.best_route.legs), result.warnings
        assert result.metric_source == "amap"
        assert not {"PROVIDER_FALLBACK", "PROVIDER_NOT_REQUESTED", "PROVIDER_PAIRS_ESTIMATED"} & {
            n.code for n in result.notices
        }
        cold = len(amap.requests)
        file = tmp_path / "request.json"
        file.write_text(json.dumps(trip_request(places), ensure_ascii=False), encoding="utf-8")
        warm = plan_in_new_process(amap.base_url, str(tmp_path / "cache"), file, 1.0)
        assert len(amap.requests) == cold  # a new process asks AMap nothing it already has
        assert warm["legs_from_amap"] == warm["legs"] == places - 1


def test_amap_plan_budget_grows_with_the_calls_the_plan_needs_at_the_keys_qps(tmp_path):
    request = RoutePlanRequest.model_validate(trip_request(20))
    assert needed_calls(request) == 2 + 19 + 19
    with AMapLimitedStandIn() as amap:
        for qps, at_least in ((1.0, 40 + 8), (3.0, 40 / 3 + 8)):
            settings = shipped(amap.base_url, None, amap_qps=qps)
            budget = plan_budget_s(request, provider=make_provider("amap", settings=settings), settings=settings)
            assert budget >= at_least
        unpaced = shipped(amap.base_url, None, amap_qps=0)
        assert plan_budget_s(request, provider=make_provider("amap", settings=unpaced), settings=unpaced) == 8


def test_amap_plan_cut_short_keeps_its_answers_and_says_what_was_never_asked(tmp_path):
    """The geocodes answer; the first distance call answers after the plan's time for providers has run out: the
    rest of the matrix and every route are never asked, and say so (not "did not answer")."""
    pack = load_region("shanghai")
    request = RoutePlanRequest.model_validate(trip_request(10))
    seen: list[str] = []
    with AMapLimitedStandIn() as standin:

        def server(req: httpx.Request) -> httpx.Response:
            parts = urlsplit(str(req.url))
            seen.append(parts.path)
            if parts.path == "/v3/distance":
                time.sleep(2.5)  # longer than the whole budget: the next call finds no time left
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            return httpx.Response(200, json=standin.answer(parts.path, query))

        def services() -> MapServices:
            settings = shipped("http://amap.test", tmp_path / "cache", amap_qps=0, provider_budget_s=2.0)
            amap = make_amap_provider(
                settings, fallback=OfflineProvider(pack), client=httpx.Client(transport=httpx.MockTransport(server))
            )
            cache = DiskResponseCache(tmp_path / "cache", persist=("amap",))
            return MapServices(geocoder=amap, router=amap, region=pack, cache=cache)

        settings = shipped("http://amap.test", tmp_path / "cache", amap_qps=0, provider_budget_s=2.0)
        result = plan_route(request, provider=services(), settings=settings)
    assert by_service(seen) == {"geocode": 1, "matrix": 1}
    codes = {(n.code, n.params.get("service")) for n in result.notices if n.code.startswith("PROVIDER_")}
    assert codes == {("PROVIDER_NOT_REQUESTED", "matrix"), ("PROVIDER_NOT_REQUESTED", "route")}, codes
    text = " ".join(result.warnings)
    assert "not requested: the time for providers ran out" in text and "did not answer" not in text
    # the answered geocodes were kept (on disk): a new MapServices on the same folder asks for none of them
    seen.clear()
    again = services()
    again.geocode_many([(p["name"], "上海") for p in [{"name": request.origin_name}, *request.model_dump()["stops"]]])
    assert "/v3/geocode/geo" not in seen


def test_amap_plan_progress_says_calls_made_and_left():
    request = RoutePlanRequest.model_validate(trip_request(5))
    steps: list[str] = []
    with AMapLimitedStandIn() as amap:
        settings = shipped(amap.base_url, None, amap_qps=50)
        plan_route(
            request,
            provider=make_provider("amap", settings=settings),
            settings=settings,
            progress=lambda stage, _f: steps.append(stage),
        )
        routes = by_service(amap.requests)["route"]
    # 5 places: 1 geocode batch + 4 distance calls (no leg ends at the start) + at most 3 orders x 4 legs on
    # directions = 17 at most
    assert steps[0] == PlanStage("resolve", service="amap", made=0, left=17), steps
    assert steps[1] == PlanStage("matrix", service="amap", made=1, left=16), steps
    assert steps[3] == PlanStage("directions", service="amap", made=5, left=12), steps
    assert steps[4] == PlanStage("draw", service="amap", made=5 + routes, left=12 - routes), steps
    # in the person's language, at the edge
    assert stage_words(steps[1], "en") == "Measuring travel between them (AMap: 1 calls made, at most 16 left)"
    assert stage_words(steps[1], "zh") == "正在测算地点之间的行程 (高德:已调用 1 次,最多还需 16 次)"


def test_amap_plan_progress_counts_its_own_calls_not_another_requests():
    """Two requests on one shared provider: a plan whose answers are all cached says "0 made" at every step, even
    while another request's plan is half-way through its own calls."""
    warm, cold = (RoutePlanRequest.model_validate(trip_request(n)) for n in (5, 6))
    with AMapLimitedStandIn() as amap:
        settings = shipped(amap.base_url, None, amap_qps=50)
        shared = make_provider("amap", settings=settings)
        plan_route(warm, provider=shared.for_request(), settings=settings)  # its answers are now cached
        paused, resume = threading.Event(), threading.Event()

        def cold_progress(stage: PlanStage, _f: float) -> None:
            if stage.code == "matrix":  # its geocode call made, the matrix to come
                paused.set()
                resume.wait(60)

        worker = threading.Thread(
            target=plan_route,
            args=(cold,),
            kwargs={"provider": shared.for_request(), "settings": settings, "progress": cold_progress},
        )
        worker.start()
        assert paused.wait(60)
        steps: list[PlanStage] = []
        plan_route(warm, provider=shared.for_request(), settings=settings, progress=lambda m, _f: steps.append(m))
        resume.set()
        worker.join(60)
    made = [m for m in steps if m.made is not None]
    assert made and all(m.made == 0 for m in made), steps


def test_places_the_pack_answered_while_amap_failed_are_labelled_as_the_packs(tmp_path):
    """AMap is unreachable: every place comes from the pack's gazetteer, and says so (not "amap")."""
    request = RoutePlanRequest.model_validate(trip_request(5))
    settings = shipped("http://127.0.0.1:9", None, http_retries=0)
    result = plan_route(request, provider=make_provider("amap", settings=settings), settings=settings)
    points = [result.resolved_origin, *result.resolved_stops, result.resolved_destination]
    assert [p.provider for p in points] == ["offline"] * 5
    assert result.provider == "amap" and "PROVIDER_FALLBACK" in {n.code for n in result.notices}
