"""Scope before answer (issue 31) through the use cases: the agent compares the place a message names with the
active region, on the installed packs (shanghai, helsinki). A place another pack covers is planned there and said;
a place no pack covers is refused with REGION_NOT_COVERED, and nothing of the active region is planned."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.app import AppServices
from core.app.agent import ask
from core.config import Settings

MOMENT = datetime(2026, 12, 3, 1, 0, tzinfo=UTC)  # a Thursday morning in Shanghai


@pytest.fixture
def services(tmp_path):
    settings = Settings(
        region="shanghai",
        provider="offline",
        db_url=f"sqlite:///{tmp_path / 'scope.db'}",
        agent_event_log=tmp_path / "events.jsonl",
        cache_dir=None,
    )
    return AppServices(settings)


def _ask(services, message, *, lang=None, region="shanghai"):
    return ask(services.context(user="alice", lang=lang, region=region, clock=lambda: MOMENT), {"message": message})


@pytest.mark.parametrize(
    ("message", "named", "words"),
    [
        ("大阪两天怎么安排", "大阪", "已安装的地区：赫尔辛基、上海"),
        ("伦敦三日游，想看博物馆", "伦敦", "已安装的地区"),
        ("Plan a weekend in Barcelona for two", "Barcelona", "The regions installed: Helsinki, Shanghai"),
        ("Seoul, 2 days, street food please", "Seoul", "install a region pack that covers Seoul"),
    ],
)
def test_a_city_no_region_covers_is_refused_with_its_facts(services, message, named, words):
    response = _ask(services, message)
    result = response.result
    assert (result.status, result.error_code) == ("FAILED", "REGION_NOT_COVERED")
    assert named in result.answer_text and words in result.answer_text
    assert "REGION_NOT_COVERED" not in result.answer_text  # a sentence, never the code
    assert result.payload.timeline == []  # never a plan of Shanghai
    refusal = [e for e in response.explain.decision_log if e.reason_code == "REGION_NOT_COVERED"]
    assert refusal and refusal[0].facts["named"] == named and refusal[0].facts["regions"] == "helsinki, shanghai"


def test_helsinki_named_while_in_shanghai_is_planned_in_helsinki_and_said(services):
    response = _ask(services, "去赫尔辛基玩两天")
    result = response.result
    assert result.status == "OK" and result.error_code is None
    assert (
        result.answer_text.splitlines()[0]
        == "您提到了赫尔辛基，它在赫尔辛基地区之内，因此改为在赫尔辛基规划，而不是上海。"
    )
    switched = [e for e in response.explain.decision_log if e.reason_code == "REGION_SWITCHED"]
    assert switched[0].facts["region"] == "helsinki" and switched[0].facts["active"] == "shanghai"
    helsinki = services.context(region="helsinki").region
    visits = [s for s in result.payload.timeline if s["kind"] == "visit"]
    assert visits and {s["key"] for s in visits} <= {p.id for p in helsinki.places}
    west, south, east, north = helsinki.bbox
    assert all(west <= s["lon"] <= east and south <= s["lat"] <= north for s in visits)


@pytest.mark.parametrize("message", ["南京路步行街附近推荐一家咖啡馆", "从北京东路出发逛半天"])
def test_a_shanghai_street_named_after_a_city_stays_in_shanghai(services, message):
    response = _ask(services, message)
    assert response.result.error_code != "REGION_NOT_COVERED"
    assert not [e for e in response.explain.decision_log if e.reason_code in ("REGION_SWITCHED", "REGION_NOT_COVERED")]


# ---- the itinerary, the route and the half day -------------------------------------------------------------
def _ctx(services, lang="en"):
    return services.context(user="alice", lang=lang, clock=lambda: MOMENT)


def _trip(**update):
    import json

    from core.models.itinerary import TripRequest
    from tests.support.paths import ROOT

    data = json.loads((ROOT / "data" / "trips" / "shanghai_2day_monday_museum.json").read_text(encoding="utf-8"))
    return TripRequest.model_validate({**data, **update})


def test_an_itinerary_whose_name_is_another_city_no_region_covers_is_refused(services):
    from core.app.itinerary import plan_itinerary
    from core.app.scope import RegionNotCovered

    with pytest.raises(RegionNotCovered) as refused:
        plan_itinerary(_ctx(services, "zh"), _trip(trip_name="伦敦两日，博物馆优先"))
    assert refused.value.code == "REGION_NOT_COVERED" and refused.value.field == "request"
    assert refused.value.details["named"] == "伦敦" and refused.value.details["regions"] == "helsinki, shanghai"
    assert refused.value.message.startswith("您提到了伦敦，目前安装的地区都不包含它")


def test_an_itinerary_on_its_own_region_plans_without_a_scope_notice(services):
    from core.app.itinerary import plan_itinerary

    result = plan_itinerary(_ctx(services), _trip(trip_name="Nanjing Road and the Bund, two days"))
    assert result.days and not [w for w in result.warnings if "You named" in w]


def test_a_helsinki_route_asked_in_shanghai_is_planned_in_helsinki_and_said(services):
    import json

    from core.app.route import notice_words, plan_route
    from core.models.route import RoutePlanRequest
    from tests.support.paths import ROOT

    scenario = json.loads((ROOT / "data" / "scenarios" / "helsinki-museums.json").read_text(encoding="utf-8"))
    request = RoutePlanRequest.model_validate({**scenario["request"], "route_strategy": "shortest_distance"})
    result = plan_route(_ctx(services), request)
    assert result.region == "helsinki"
    first = result.notices[0]
    assert (first.code, first.params) == (
        "REGION_SWITCHED",
        {"named": "Helsinki", "region": "helsinki", "active": "shanghai"},
    )
    assert notice_words(first, "zh").startswith("你提到了Helsinki")


def test_a_route_stop_in_a_city_no_region_covers_is_refused_naming_the_field(services):
    from core.app.route import plan_route
    from core.app.scope import RegionNotCovered
    from core.models.route import RoutePlanRequest

    request = RoutePlanRequest.model_validate(
        {
            "origin_mode": "fixed",
            "origin_address": "人民广场",
            "destination_address": "豫园",
            "stops": ["外滩", "Sagrada Familia, Barcelona"],
        }
    )
    with pytest.raises(RegionNotCovered) as refused:
        plan_route(_ctx(services), request)
    assert refused.value.field == "stops.1.address" and refused.value.details["place"] == "Barcelona"


def test_shanghai_streets_named_after_cities_route_in_shanghai(services):
    from core.app.route import plan_route
    from core.models.route import RoutePlanRequest

    request = RoutePlanRequest.model_validate(
        {
            "origin_mode": "fixed",
            "origin_address": "人民广场",
            "destination_address": "豫园",
            "stops": ["南京路步行街", "中山公园", "孙中山故居纪念馆"],
        }
    )
    result = plan_route(_ctx(services), request)
    assert result.region == "shanghai"
    assert not [n for n in result.notices if n.code in ("REGION_SWITCHED", "STOP_OUTSIDE_REGION")]


def test_a_half_day_goal_in_a_city_no_region_covers_ends_with_one_error(services):
    from core.app.halfday import plan_half_day
    from core.i18n import t
    from core.models.halfday.plans import HalfDayRequest
    from core.words.halfday import ERRORS

    events = list(plan_half_day(_ctx(services), HalfDayRequest(goal="Sunday morning coffee and a gallery in Lisbon")))
    assert len(events) == 1 and events[0].type == "done"
    error = events[0].data.error
    assert (error.code, error.named, error.regions, error.field) == (
        "REGION_NOT_COVERED",
        "Lisbon",
        ["helsinki", "shanghai"],
        "goal",
    )
    assert t(ERRORS["REGION_NOT_COVERED"], "en").startswith("Your goal names a place that no installed region covers")


def test_a_half_day_in_helsinki_asked_in_shanghai_is_planned_there_and_warned(services):
    from core.app.halfday import plan_half_day
    from core.models.halfday.plans import HalfDayRequest

    events = list(plan_half_day(_ctx(services), HalfDayRequest(goal="明天下午去赫尔辛基逛博物馆，喝杯咖啡")))
    warning = events[1]
    assert warning.type == "observation" and warning.data.code == "REGION_SWITCHED"
    assert (warning.data.facts.name, warning.data.facts.region) == ("赫尔辛基", "helsinki")
    assert [e.seq for e in events] == list(range(len(events)))
    done = events[-1]
    assert done.type == "done"
    assert done.data.type == "plans"
    assert done.data.result.region == "helsinki" and done.data.result.warnings[0] == "REGION_SWITCHED"


def test_a_knowledge_question_about_another_city_says_the_scope_first_and_plans_nothing(services):
    response = _ask(services, "推荐大阪的拉面店")
    result = response.result
    assert response.route.route == "SYSTEM1_RAG" and result.status == "OK"  # the QA set's kind of question answers
    assert result.answer_text.startswith("您提到了大阪，目前安装的地区都不包含它")
    assert result.payload.timeline == []
    assert "REGION_NOT_COVERED" in [e.reason_code for e in response.explain.decision_log]


@pytest.mark.parametrize(
    ("goal", "region"),
    [
        ("赫尔辛基周日下午，想找个安静的咖啡馆坐坐", "shanghai"),  # switched to Helsinki
        ("Sunday afternoon around Helsinki: a gallery, then coffee", "shanghai"),
        ("下午在赫尔辛基看看教堂", "helsinki"),  # asked in Helsinki itself
        ("周日下午在上海找个博物馆", "shanghai"),
    ],
)
def test_a_half_day_goal_naming_its_own_city_does_not_warn_the_city_is_missing(services, goal, region):
    from core.app.halfday import plan_half_day
    from core.models.halfday.plans import HalfDayRequest

    ctx = services.context(user="dora", region=region, clock=lambda: MOMENT)
    events = list(plan_half_day(ctx, HalfDayRequest(goal=goal, on_degraded="continue")))
    warned = [e.data for e in events if e.type == "observation" and e.data.type == "warning"]
    missing = [w.facts.name for w in warned if w.code == "NAMED_PLACE_NOT_FOUND" and w.facts is not None]
    assert not {"赫尔辛基", "Helsinki", "上海"} & set(missing)
    assert events[-1].type == "done"
