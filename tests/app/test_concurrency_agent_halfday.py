"""Eight people ask the agent, and eight plan a half day, at the same moment on one shared provider (issue 19).

As for routes (test_concurrency.py): the shared router is down for some places, so half the requests meet a
fallback and must say so, and half must not. Each answer given together must equal the same request answered
alone on a fresh provider."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from core.app import AppServices, RequestContext
from core.app.agent import ask
from core.app.halfday import plan_half_day
from core.config import Settings
from core.models.halfday.events import DonePlans
from core.models.halfday.plans import HalfDayRequest
from core.packs.loader import load_region
from tests.support.agent_packs import PLACES, make_settings
from tests.support.patchy import patchy_services, point

THREADS = 8
T = TypeVar("T")


def _together(jobs: list[Callable[[], T]]) -> list[T]:
    start = threading.Barrier(len(jobs))

    def run(job: Callable[[], T]) -> T:
        start.wait()
        return job()

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        return list(pool.map(run, jobs))


# ---- the agent ---------------------------------------------------------------------------------------------------
PAIRS = [("外滩", "豫园"), ("东方明珠广播电视塔", "上海博物馆"), ("静安寺", "世纪公园"), ("田子坊", "新天地"),
         ("龙华寺", "南翔馒头店"), ("和平饭店", "静安寺"), ("上海博物馆", "田子坊"), ("新天地", "龙华寺")]  # fmt: skip
DOWN_AGENT = {"东方明珠广播电视塔", "新天地", "和平饭店"}  # in every odd question, in no even one
AT = {p[1]: point(p[6], p[7]) for p in PLACES}
NOW = datetime(2026, 11, 27, 15, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


def _agent_answer(services: AppServices, message: str) -> tuple[str, bool, list[dict[str, Any]]]:
    ctx = services.context(user="alice", lang="zh", provider="patchy", clock=lambda: NOW)
    r = ask(ctx, {"message": message})
    return r.result.answer_text, r.observability.fallback_used, r.result.payload.evidence


def _agent_services(settings: Settings) -> AppServices:
    services = AppServices(settings)
    pack = load_region(settings.region, settings.data_dir)
    services.use_provider("patchy", settings.region, patchy_services(pack, {AT[n] for n in DOWN_AGENT}, geocoding=True))
    return services


def test_eight_concurrent_agent_questions_keep_their_own_fallback_notes(tmp_path):
    settings = make_settings(tmp_path)
    messages = [f"从{a}到{b}步行要多久" for a, b in PAIRS]
    alone = [_agent_answer(_agent_services(settings), m) for m in messages]
    assert [fallback for _, fallback, _ in alone] == [bool(i % 2) for i in range(THREADS)]
    assert all("在线" in text or "不可用" in text for text, _, _ in alone[1::2]), alone[1][0]
    shared = _agent_services(settings)
    together = _together([lambda m=m: _agent_answer(shared, m) for m in messages])
    for i, (a, b) in enumerate(zip(alone, together)):
        assert b == a, f"question {i} took another question's fallback note"


# ---- the half-day planner ----------------------------------------------------------------------------------------
GOALS = ["周六下午带5岁的孩子去博物馆，人均200以内", "Saturday afternoon, art and coffee, under 300 yuan each",
         "周六下午和朋友逛公园喝咖啡", "Saturday afternoon with my parents, a temple and tea",
         "周六下午一个人看展", "Saturday afternoon, a museum and a walk by the river",
         "周六下午带老人去公园散步", "Saturday afternoon, local food and a garden"]  # fmt: skip
SATURDAY_MORNING = datetime(2026, 11, 28, 9, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


def _halfday_services(settings: Settings, down: set[tuple[float, float]]) -> AppServices:
    services = AppServices(settings)
    pack = load_region("shanghai", settings.data_dir)
    services.use_provider("patchy", "shanghai", patchy_services(pack, down, delay_s=0.02))
    return services


def _halfday(services: AppServices, goal: str, origin: str | None) -> tuple[Any, ...]:
    ctx: RequestContext = services.context(
        user="u", lang="zh", region="shanghai", provider="patchy", clock=lambda: SATURDAY_MORNING
    )
    request = HalfDayRequest(goal=goal, origin=origin, now=SATURDAY_MORNING)
    events = list(plan_half_day(ctx, request))
    done = events[-1].data
    assert isinstance(done, DonePlans), done
    result = done.result
    plans = [(p.plan_id, [s.place_id for s in p.steps]) for p in result.plans]
    warnings = [e.data.code for e in events if e.type == "observation" and e.data.type == "warning"]
    return tuple(result.warnings), tuple(warnings), tuple(plans)


def test_eight_concurrent_half_days_keep_their_own_travel_warnings(tmp_path):
    settings = Settings(
        region="shanghai",
        provider="offline",
        db_url=f"sqlite:///{tmp_path / 'h.db'}",
        cache_dir=None,
        halfday_breaker_map_fail_max=100,  # no request opens the travel breaker for the others
    )
    pack = load_region("shanghai", settings.data_dir)
    # odd requests start from Shanghai railway station, a point the router cannot answer (a station is never a
    # half-day stop); even ones start from the People's Square metro station, which it can
    down_start, up_start = pack.place_by_id("sh-railway-station"), pack.place_by_id("sh-peoples-square-metro")
    assert down_start is not None and up_start is not None
    down = {point(down_start.lon, down_start.lat)}
    origins = [down_start.name_zh if i % 2 else up_start.name_zh for i in range(THREADS)]
    alone = [_halfday(_halfday_services(settings, down), g, o) for g, o in zip(GOALS, origins)]
    degraded = ["TRAVEL_FROM_LOCAL_ESTIMATE" in w for w, _, _ in alone]
    assert degraded == [bool(i % 2) for i in range(THREADS)], alone
    shared = _halfday_services(settings, down)
    together = _together([lambda g=g, o=o: _halfday(shared, g, o) for g, o in zip(GOALS, origins)])
    for i, (a, b) in enumerate(zip(alone, together)):
        assert b == a, f"half day {i} took another request's travel warnings"
