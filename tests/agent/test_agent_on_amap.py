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


def _visits(r) -> list[str]:
    return [e["key"] for e in r.result.payload.timeline if e["kind"] == "visit"]


def test_a_place_named_in_a_trip_is_planned_although_amaps_geocode_carries_no_poi_id(tmp_path):
    # AMap answers a geocode with an address and no POI id (docs/amap.md): the place named is still the pack's own
    with AMapLimitedStandIn() as amap:
        r = ask(amap, tmp_path, "规划明天上海一日游：豫园、外滩，中午吃小笼包", "agent-named-key-0123456789")
        asked = list(amap.requests)
    assert "/v3/geocode/geo" in asked
    assert r.result.status == "OK", r.result.answer_text
    assert {"sh-yuyuan-garden", "sh-bund"} <= set(_visits(r)), r.result.answer_text
    wishes = {w.wish.code: w.status for w in r.result.payload.wishes}
    assert wishes["sh-yuyuan-garden"] == "met" and wishes["sh-bund"] == "met"


class KnowsNothing(AMapLimitedStandIn):
    """AMap that finds no place at all (a geocode and a search with no result, as AMap answers an unknown name)."""

    def answer(self, path: str, q: dict[str, str]) -> dict[str, Any]:
        if path == "/v3/geocode/geo":
            return {"status": "1", "info": "OK", "infocode": "10000", "count": "0", "geocodes": []}
        if path == "/v3/place/text":
            return {"status": "1", "info": "OK", "infocode": "10000", "count": "0", "pois": []}
        return super().answer(path, q)


def test_a_place_named_in_a_trip_is_planned_from_the_region_data_when_amap_finds_nothing(tmp_path):
    with KnowsNothing() as amap:
        r = ask(amap, tmp_path, "Plan a day in Shanghai tomorrow: Yu Garden and the Bund", "agent-blind-key-0123456789")
    assert {"sh-yuyuan-garden", "sh-bund"} <= set(_visits(r)), r.result.answer_text
