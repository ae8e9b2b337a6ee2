"""Fault injection against a stand-in AMap (a real local HTTP server): whatever AMap does, a route plan, an
itinerary and the agent degrade to the offline estimate with a warning that names AMap, and the key appears in
no answer, export, log line, telemetry event, stdout or stderr."""

from __future__ import annotations

import json
import logging

import pytest
from pydantic import SecretStr

from core.agent import route_and_run
from core.app.agent import agent_deps
from core.app.route import export_html
from core.config import Settings
from core.geo.registry import make_provider
from core.itinerary.pipeline import plan_itinerary
from core.models.itinerary import TripRequest
from core.route.planner import plan_route
from core.route.scenarios import load_scenario
from core.words.route_export import legs_to_csv
from tests.support.amap_standin import FAULTS, AMapStandIn
from tests.support.clock import SUITE_NOW
from tests.support.paths import ROOT

pytestmark = pytest.mark.slow

KEY = "fault-key-9f8e7d6c5b4a3928"


def settings_for(standin: AMapStandIn, tmp_path) -> Settings:
    return Settings(
        data_dir=ROOT / "data",
        region="shanghai",
        provider="amap",
        amap_key=SecretStr(KEY),
        amap_base_url=standin.base_url,
        http_timeout_s=0.5,
        http_retries=1,
        amap_qps=0,
        provider_budget_s=2.0,
        db_url=f"sqlite:///{tmp_path / 'trips.db'}",
        agent_event_log=tmp_path / "events.jsonl",
        kb_dir=tmp_path / "kb",
    )


@pytest.mark.parametrize("fault", FAULTS)
def test_every_fault_degrades_with_a_warning_and_never_shows_the_key(fault, tmp_path, caplog, capsys):
    caplog.set_level(logging.DEBUG)
    with AMapStandIn(fault, hang_s=1.5) as standin:
        settings = settings_for(standin, tmp_path)
        provider = make_provider("amap", region="shanghai", settings=settings)
        request = load_scenario("family-day", data_dir=ROOT / "data").request
        result = plan_route(request, provider=provider, settings=settings)
        assert result.success and len(result.resolved_stops) == len(request.stops)
        assert any("AMap" in w for w in result.warnings), result.warnings
        exported = result.model_dump_json() + export_html(result) + legs_to_csv(result)

        trip = TripRequest.model_validate(
            json.loads((ROOT / "data" / "trips" / "shanghai_family_day.json").read_text())
        )
        itinerary = plan_itinerary(
            trip, provider=make_provider("amap", region="shanghai", settings=settings), settings=settings
        )
        assert itinerary.status in ("ready", "needs_review", "infeasible")
        assert any("AMap" in w for w in itinerary.warnings), itinerary.warnings  # never a silent "ready"

        answers = []
        for message in ("从外滩到豫园开车要多久", "明天天气"):
            resp = route_and_run(
                {"message": message, "user_id": "u"},
                agent_deps(settings, make_provider("amap", region="shanghai", settings=settings)),
                now=SUITE_NOW,
            )
            assert resp.result.status in ("OK", "NEED_MORE_INFO"), resp.result.answer_text
            if message.startswith("从") and "没有找到可行的路线" not in resp.result.answer_text:
                # a figure from the fallback says the online service failed
                assert "在线路线服务暂不可用" in resp.result.answer_text, resp.result.answer_text
                assert resp.observability.fallback_used
            answers.append(resp.model_dump_json())
        assert standin.requests  # the stand-in was really asked
    captured = capsys.readouterr()
    telemetry = (tmp_path / "events.jsonl").read_text(encoding="utf-8")
    for where, text in {
        "export": exported,
        "itinerary": itinerary.model_dump_json(),
        "answers": "".join(answers),
        "logs": caplog.text,
        "stdout": captured.out,
        "stderr": captured.err,
        "telemetry": telemetry,
    }.items():
        assert KEY not in text, f"the key leaked into {where}"
