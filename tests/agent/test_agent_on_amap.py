"""The agent on the AMap provider (issue 21), against the AMap stand-in on 127.0.0.1: a place named in a question is
found although AMap's geocodes carry no POI id and its search results no score, and a plan whose AMap matrix came
from the fallback says ``fallback_used``."""

from __future__ import annotations

from typing import Any

from pydantic import SecretStr

from core.agent import route_and_run
from core.app.agent import agent_deps
from core.config import Settings
from core.geo.registry import make_provider
from standins.amap import AMapLimitedStandIn
from tests.support.agent_packs import FIXED_NOW


class DistanceDown(AMapLimitedStandIn):
    """AMap whose distance service refuses every request (its geocodes and directions answer)."""

    def answer(self, path: str, q: dict[str, str]) -> dict[str, Any]:
        if path == "/v3/distance":
            return {"status": "0", "info": "SERVICE_NOT_AVAILABLE", "infocode": "10009"}
        return super().answer(path, q)


def ask(amap: AMapLimitedStandIn, tmp_path, message: str, key: str):
    settings = Settings(  # type: ignore[call-arg]
        region="shanghai",
        provider="amap",
        amap_key=SecretStr(key),
        amap_base_url=amap.base_url,
        amap_qps=0,
        http_retries=0,
        cache_dir=None,
        db_url=f"sqlite:///{tmp_path / 'trips.db'}",
        agent_event_log=tmp_path / "events.jsonl",
    )
    provider = make_provider("amap", settings=settings)
    return route_and_run({"message": message, "user_id": "alice"}, agent_deps(settings, provider), now=FIXED_NOW)


def test_a_travel_time_question_is_answered_with_amaps_figure(tmp_path):
    with AMapLimitedStandIn() as amap:
        r = ask(amap, tmp_path, "从外滩到新天地要多久", "agent-amap-key-0123456789")
        asked = list(amap.requests)
    assert r.result.status == "OK", r.result.answer_text
    [ev] = [e for e in r.result.payload.evidence if e.get("type") == "travel_time"]
    assert (ev["from"], ev["to"], ev["source"]) == ("外滩", "新天地", "amap")
    assert ev["duration_s"] > 0 and f"{round(ev['duration_s'] / 60)}" in r.result.answer_text
    assert "/v3/geocode/geo" in asked and r.observability.fallback_used is False


def test_a_plan_whose_amap_matrix_came_from_the_fallback_says_fallback_used(tmp_path):
    with DistanceDown() as amap:
        r = ask(amap, tmp_path, "规划1天上海行程，外滩、豫园、新天地", "agent-down-key-0123456789")
        asked = list(amap.requests)
    assert "/v3/distance" in asked  # the matrix was asked, and refused
    assert r.observability.fallback_used is True
