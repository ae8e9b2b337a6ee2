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
