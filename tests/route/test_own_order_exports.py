"""The person's own order (issue 32, X8 "keep my order") on the map and in every export, with its figures and their
sources, in both languages. The figures are the hand-written matrix of tests/route/test_own_order.py: the person's
order C A B (stops 2, 0, 1) costs 3000 + 2500 + 1500 + 3000 = 10000 m and 260 + 300 + 150 + 330 = 1040 s, the best
order A B C 4500 m and 460 s: +5500 m, +580 s; the leg A → B (1500 m, 150 s) is in both orders."""

from __future__ import annotations

import csv
import io
import json

import pytest

from components.route.map import build_route_map
from core.config import Settings
from core.models.route import RoutePlanResult
from core.route.planner import plan_route
from core.words.route_export import legs_to_csv, result_to_html, result_to_json
from tests.support.hand_route import hand_request, hand_services
from tests.support.region_packs import write_pack


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> tuple[RoutePlanResult, RoutePlanResult]:
    data = write_pack(tmp_path_factory.mktemp("data"))
    settings = Settings(data_dir=data, region="testcity")
    services, _ = hand_services(data)
    own = plan_route(hand_request(own_order=[2, 0, 1]), provider=services, settings=settings)
    plain = plan_route(hand_request(), provider=services, settings=settings)
    return own, plain


@pytest.mark.parametrize(("lang", "figures"), [("en", "OSRM"), ("zh", "OSRM")])
def test_the_csv_lists_the_persons_legs_after_the_candidates(planned, lang, figures):
    own, plain = planned
    rows = list(csv.DictReader(io.StringIO(legs_to_csv(own, lang=lang))))
    mine = [r for r in rows if r["chosen_by"] == "person"]
    assert [(r["from"], r["to"]) for r in mine] == [
        ("人民广场", "新天地"),
        ("新天地", "外滩"),
        ("外滩", "豫园"),
        ("豫园", "上海博物馆"),
    ]
    assert [int(r["distance_m"]) for r in mine] == [3000, 2500, 1500, 3000]
    assert [int(r["duration_s"]) for r in mine] == [260, 300, 150, 330]
    assert {(r["candidate_rank"], r["is_best"], r["source"], r["figures"]) for r in mine} == {
        ("", "false", "osrm", figures)
    }
    assert {r["chosen_by"] for r in rows if r not in mine} == {"planner"}
    assert rows[-4:] == mine  # after every candidate's legs
    assert not [r for r in csv.DictReader(io.StringIO(legs_to_csv(plain, lang=lang))) if r["chosen_by"] == "person"]


def test_the_csv_marks_an_estimated_leg_of_the_persons_order(planned):
    own, _ = planned
    legs = [leg.model_copy(update={"source": "offline_estimate"}) for leg in own.own_route.legs]
    estimated = own.model_copy(update={"own_route": own.own_route.model_copy(update={"legs": legs})})
    for lang, words in (("en", "straight-line estimate"), ("zh", "直线估算")):
        mine = [r for r in csv.DictReader(io.StringIO(legs_to_csv(estimated, lang=lang))) if r["chosen_by"] == "person"]
        assert {r["straight_line_estimate"] for r in mine} == {"true"}
        assert all(words in r["figures"] for r in mine), {r["figures"] for r in mine}


@pytest.mark.parametrize(
    ("lang", "heading", "total", "against", "first_leg", "shared"),
    [
        (
            "en",
            "<h2>Your order</h2>",
            "10.00 km, 17.3 min",
            "+5.50 km, +9.7 min against the best order",
            "+2.00 km, +2.3 min against the best order",
            "the best order travels this leg too",
        ),
        (
            "zh",
            "<h2>您的顺序</h2>",
            "10.00 公里,17.3 分钟",
            "比最佳顺序 +5.50 公里、+9.7 分钟",
            "比最佳顺序 +2.00 公里、+2.3 分钟",
            "最佳顺序也走这一段",
        ),
    ],
)
def test_the_html_report_has_the_persons_order_with_its_figures_and_their_source(
    planned, lang, heading, total, against, first_leg, shared
):
    own, plain = planned
    page = result_to_html(own, lang=lang, pack=None)
    section = page[page.index('<section id="own-order">') :]
    section = section[: section.index("</section>")]
    assert heading in section and "人民广场 → 新天地 → 外滩 → 豫园 → 上海博物馆" in section
    assert total in section and against in section
    legs = section.split("<li>")[1:]
    assert len(legs) == 4 and first_leg in legs[0] and "(OSRM)" in legs[0]  # 3000 − 1000 m, 260 − 120 s
    assert shared in legs[2] and shared not in legs[0]  # 外滩 → 豫园 is the best order's second leg
    assert 'id="own-order"' not in result_to_html(plain, lang=lang, pack=None)


def test_the_json_carries_the_persons_order_and_its_difference(planned):
    own, _ = planned
    for lang in ("en", "zh"):
        data = json.loads(result_to_json(own, lang=lang))
        assert data["own_route"]["chosen_by"] == "person"
        assert [leg["distance_m"] for leg in data["own_route"]["legs"]] == [3000, 2500, 1500, 3000]
        assert {leg["source"] for leg in data["own_route"]["legs"]} == {"osrm"}
        assert (data["own_difference"]["delta_distance_m"], data["own_difference"]["delta_duration_s"]) == (5500, 580)
        assert RoutePlanResult.model_validate(data).own_route == own.own_route


@pytest.mark.parametrize(
    ("lang", "row"),
    [
        ("en", "<b>Your order</b> (10.0 km, 17 min) · +5.5 km, +10 min against the best"),
        ("zh", "<b>您的顺序</b>"),
    ],
)
def test_the_map_draws_the_persons_order_as_its_own_layer_with_its_legend(planned, lang, row):
    own, plain = planned
    page = build_route_map(own, background=False, lang=lang).get_root().render()
    assert row in page
    assert "#7b2ff7" in page and '"dashArray": "2 7"' in page  # dotted purple: not the best's red nor a candidate's
    legend = page[page.index('class="own"') :]
    legend = legend[: legend.index("</span></div>")]
    assert ("OSRM" in legend) and (("straight lines" in legend) if lang == "en" else ("直线" in legend))
    bare = build_route_map(plain, background=False, lang=lang).get_root().render()
    assert 'class="own"' not in bare and "#7b2ff7" not in bare


def test_the_persons_order_has_its_own_amap_links_in_its_order(tmp_path):
    from urllib.parse import parse_qs, urlsplit

    from core.route.own_order import own_order_again

    data = write_pack(tmp_path)
    services, _ = hand_services(data)
    settings = Settings(data_dir=data, region="testcity")
    result = plan_route(hand_request(own_order=[2, 0, 1], need_deep_link=True), provider=services, settings=settings)

    def vias(links):
        return parse_qs(urlsplit(links.android_route_plan).query)["vianames"][0].split("|")

    assert vias(result.deep_links) == ["外滩", "豫园", "新天地"]  # the best order A B C
    assert vias(result.own_deep_links) == ["新天地", "外滩", "豫园"]  # the person's C A B
    assert result.own_deep_links.mode_used == "route_plan"
    again = own_order_again(result, hand_request(own_order=[1, 2, 0], need_deep_link=True))
    assert again is not None and vias(again.own_deep_links) == ["豫园", "新天地", "外滩"]  # planned again: new links
    for lang, words in (("en", "Your order in AMap"), ("zh", "在高德地图中打开您的顺序")):
        page = result_to_html(result, lang=lang, pack=None)
        section = page[page.index('<section id="own-order">') :]
        section = section[: section.index("</section>")]
        assert words in section and section.count('class="button"') == 2 + len(result.own_deep_links.web_navigation)
        assert (
            "vianames=%E6%96%B0%E5%A4%A9%E5%9C%B0|%E5%A4%96%E6%BB%A9|%E8%B1%AB%E5%9B%AD" in section
        )  # 新天地|外滩|豫园
    assert (
        json.loads(result_to_json(result))["own_deep_links"]["android_route_plan"]
        == result.own_deep_links.android_route_plan
    )
    without = plan_route(hand_request(own_order=[2, 0, 1]), provider=services, settings=settings)
    assert without.deep_links is None and without.own_deep_links is None  # no links asked: none for either order


def test_a_share_link_keeps_the_persons_order(planned, tmp_path):
    from core.share import route_from_token, route_token

    own, _ = planned
    for asked in (hand_request(own_order=[2, 0, 1]), hand_request("CAB", keep_order=True)):
        back, region = route_from_token(route_token(asked, region="testcity"))
        assert (back, region) == (asked, "testcity")
        assert back.wanted_own_order() == asked.wanted_own_order()
    data = write_pack(tmp_path)
    services, _ = hand_services(data)
    again = plan_route(
        route_from_token(route_token(hand_request(own_order=[2, 0, 1]), region="testcity"))[0],
        provider=services,
        settings=Settings(data_dir=data, region="testcity"),
    )
    assert again.own_route == own.own_route and again.own_difference == own.own_difference


def test_the_page_lists_the_persons_order_in_amap_by_parts_in_its_language(tmp_path):
    from components.route.links_panel import link_parts

    data = write_pack(tmp_path)
    services, _ = hand_services(data)
    settings = Settings(data_dir=data, region="testcity")
    result = plan_route(hand_request(own_order=[2, 0, 1], need_deep_link=True), provider=services, settings=settings)
    own = link_parts(result, lang="en", own=True)
    best = link_parts(result, lang="en")
    # a browser link takes one via when driving: O → C → A, then A → B → D (the person's order C A B)
    assert [text.split(": ", 1)[1] for text, _ in own] == ["人民广场 → 外滩", "外滩 → 上海博物馆"]
    assert [href for _, href in own] == result.own_deep_links.web_navigation
    assert own != best and [href for _, href in best] == result.deep_links.web_navigation
    zh = link_parts(result, lang="zh", own=True)
    assert [href for _, href in zh] == [href for _, href in own] and all("人民广场" in t or "外滩" in t for t, _ in zh)
    assert link_parts(plan_route(hand_request(), provider=services, settings=settings), lang="en", own=True) == []
