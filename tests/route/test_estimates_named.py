"""Every minute and kilometre from a straight-line estimate says so, on every face and in every export, and every
face says that on such figures the strategies cannot choose different orders (issue 31, "estimates named
everywhere"); a region where AMap does not navigate says why it has no links."""

from __future__ import annotations

import csv
import io
import json

import pytest

from core.app.route import export_html
from core.config import get_settings
from core.geo.registry import make_provider
from core.models.route import RawStop, RoutePlanRequest
from core.route.planner import plan_route
from core.route.scenarios import load_scenario
from core.words.route import strategies_sentence, summary_line, summary_paragraph
from core.words.route_export import legs_to_csv, result_to_json


def _errands(strategy: str):
    """A request of our own in Shanghai, planned offline (straight-line estimates)."""
    request = RoutePlanRequest(
        origin_mode="fixed",
        origin_name="人民广场",
        destination_name="静安寺",
        stops=[RawStop(name="豫园"), RawStop(name="上海博物馆"), RawStop(name="外滩")],
        route_strategy=strategy,
        transport_mode="driving",
        need_deep_link=False,
    )
    provider = make_provider("offline", region="shanghai", settings=get_settings())
    return plan_route(request, provider=provider, settings=get_settings())


def test_the_json_says_the_figures_are_straight_line_estimates_and_the_strategies_cannot_differ():
    result = _errands("fastest_time")
    data = json.loads(result_to_json(result))
    assert data["straight_line_estimate"] is True
    assert data["strategies_can_differ"] is False
    assert all(leg["straight_line_estimate"] for c in data["candidates"] for leg in c["legs"])
    assert "STRATEGIES_AGREE_ON_ESTIMATES" in [n["code"] for n in data["notices"]]
    # the CLI's and the API's English sentences: the summary and the warnings
    assert "straight-line estimate" in summary_paragraph(result, lang="en")
    assert any("strategies cannot differ" in w for w in result.warnings)


@pytest.mark.parametrize(
    ("lang", "estimate", "agree"),
    [("zh", "直线估算", "各策略无法区分"), ("en", "straight-line estimate", "cannot differ")],
)
def test_the_html_report_and_the_summary_name_the_estimate_in_the_readers_language(lang, estimate, agree):
    result = _errands("shortest_distance")
    report = export_html(result, lang=lang)
    assert estimate in report
    assert agree in report
    assert estimate in summary_line(result, lang=lang)
    assert estimate in (strategies_sentence(result, lang) or "")


def test_the_csv_marks_each_straight_line_leg_in_words():
    result = _errands("balanced")
    rows = list(csv.DictReader(io.StringIO(legs_to_csv(result, lang="zh"))))
    assert rows
    assert {r["straight_line_estimate"] for r in rows} == {"true"}
    assert {r["figures"] for r in rows} == {"直线估算"}


def test_figures_along_roads_are_not_called_estimates_and_a_region_outside_china_says_why_it_has_no_links():
    scenario = load_scenario("helsinki-museums")
    request = scenario.request.model_copy(update={"need_deep_link": True})
    provider = make_provider("offline", region=scenario.region, settings=get_settings())
    result = plan_route(request, provider=provider, settings=get_settings())
    assert result.straight_line_estimate is False
    assert "STRATEGIES_AGREE_ON_ESTIMATES" not in [n.code for n in result.notices]
    assert result.deep_links is None
    outside = [n for n in result.notices if n.code == "LINKS_OUTSIDE_AMAP"]
    assert [n.params["region"] for n in outside] == ["helsinki"]
    assert (
        "No AMap links for this plan: AMap navigates in mainland China, and Helsinki is elsewhere." in result.warnings
    )
    assert "高德只在中国大陆导航,而赫尔辛基不在其中" in export_html(result, lang="zh")
