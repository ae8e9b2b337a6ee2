"""The route planner's "keep my order" (issue 32, X8): the person's order beside the best in the user's language,
and, on the page, planned again at once when the Order column changes, without a provider call or a new order
search."""

from __future__ import annotations

import pandas as pd
import pytest

from components.route.own_order import difference_words, legs_frame
from core.config import Settings
from core.route.planner import plan_route
from core.share import route_token
from tests.support.hand_route import hand_request, hand_services
from tests.support.region_packs import write_pack

ROUTE_PAGE = "pages/route_planner.py"


@pytest.fixture(scope="module")
def hand_result(tmp_path_factory: pytest.TempPathFactory):
    """O → C A B → D on the hand matrix (tests/route/test_own_order.py sums it): own 10000 m / 1040 s, best
    A B C 4500 m / 460 s."""
    settings = Settings(data_dir=write_pack(tmp_path_factory.mktemp("data")), region="testcity")
    services, _ = hand_services(settings.data_dir)
    return plan_route(hand_request(own_order=[2, 0, 1]), provider=services, settings=settings)


def test_the_difference_in_english_words(hand_result):
    lines = difference_words(hand_result, "en")
    # 10000 m = 10.0 km, 1040 s = 17 min; 4500 m = 4.5 km, 460 s = 7.7 min; +5500 m, +580 s = 9.7 min
    assert lines[1] == "Your order: 10.0 km, about 17 min. Best order (Shortest distance): 4.5 km, about 7.7 min."
    assert lines[2] == "Against the best order: 5.5 km longer, 9.7 min slower."
    assert len(lines) == 3  # road figures (no estimate), measured alike


def test_the_difference_in_chinese_words(hand_result):
    lines = difference_words(hand_result, "zh")
    assert lines[0] == "您的顺序：人民广场 → 新天地 → 外滩 → 豫园 → 上海博物馆"
    assert lines[1] == "您的顺序：10.0 公里，约 17 分钟。最佳顺序（最短距离）：4.5 公里，约 7.7 分钟。"
    assert lines[2] == "与最佳顺序相比：多 5.5 公里，多用 9.7 分钟。"


def test_the_legs_side_by_side(hand_result):
    frame = legs_frame(hand_result, "zh")
    assert frame["own_leg"].tolist() == ["人民广场 → 新天地", "新天地 → 外滩", "外滩 → 豫园", "豫园 → 上海博物馆"]
    assert frame["best_leg"].tolist() == ["人民广场 → 外滩", "外滩 → 豫园", "豫园 → 新天地", "新天地 → 上海博物馆"]
    assert frame["delta_km"].tolist() == [2.0, 1.0, 0.5, 2.0]  # 3000−1000, 2500−1500, 1500−1000, 3000−1000 m
    assert frame["delta_min"].tolist() == [2.3, 2.5, 1.0, 3.8]  # 140, 150, 60, 230 s


def _open(project_root, **params):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(project_root / "app.py"), default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(ROUTE_PAGE)
    at.run()
    assert not at.exception, at.exception
    return at


def _texts(at) -> str:
    return "\n".join(str(m.value) for m in at.markdown)


@pytest.mark.ui
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_order_column_replans_the_own_order_without_a_provider_call(
    leaflet_static, project_root, monkeypatch, lang
):
    from core.app import route as route_app
    from core.geo.composite import MapServices
    from core.models.route import RoutePlanRequest

    stops = ["新天地", "外滩", "豫园", "上海博物馆"]
    request = RoutePlanRequest.model_validate(
        {
            "origin_mode": "fixed",
            "origin_address": "人民广场",
            "destination_address": "静安寺",
            "stops": stops,
            "keep_order": True,
        }
    )
    at = _open(project_root, lang=lang, route=route_token(request, region="shanghai"))
    assert at.checkbox(key="route_keep_order").value is True  # the link's keep-my-order
    first = at.session_state["route_result"]
    assert first.own_route is not None and first.own_route.stop_order == [0, 1, 2, 3]
    title = {"en": "Your order beside the best", "zh": "您的顺序与最佳顺序"}[lang]
    assert title in _texts(at)
    km = f"{first.own_route.total_distance_m / 1000:.1f}"
    assert km in _texts(at)

    # from now on, count every provider call and every plan (order search)
    calls: list[str] = []
    for name in ("geocode", "search", "detail", "matrix", "route"):
        real = getattr(MapServices, name)
        monkeypatch.setattr(
            MapServices,
            name,
            lambda self, *a, _real=real, _name=name, **kw: (calls.append(_name), _real(self, *a, **kw))[1],
        )
    plans: list[int] = []
    real_plan = route_app._plan_route
    monkeypatch.setattr(route_app, "_plan_route", lambda *a, **kw: (plans.append(1), real_plan(*a, **kw))[1])

    # the person moves 豫园 to the front in the Order column: 豫园, 新天地, 外滩, 上海博物馆
    frame = at.session_state["stops_df"].copy()
    frame["order"] = pd.array([2, 3, 1, 4], dtype="Int64")
    at.session_state["stops_df"] = frame
    at.run()
    assert not at.exception, at.exception
    again = at.session_state["route_result"]
    assert calls == [] and plans == []  # the last plan's matrix: no provider call, no new order search
    assert again.own_route is not None and again.own_route.stop_order == [2, 0, 1, 3]  # in the plan's numbering
    assert again.best_route == first.best_route
    diff = again.own_difference
    assert (
        diff is not None
        and diff.delta_distance_m == again.own_route.total_distance_m - first.best_route.total_distance_m
    )
    assert not at.get("stale_result")  # only the order changed: the result is current
    assert f"{again.own_route.total_distance_m / 1000:.1f}" in _texts(at)

    # keep-my-order off: the person's order goes, still without a plan
    at.checkbox(key="route_keep_order").uncheck().run()
    assert not at.exception, at.exception
    assert at.session_state["route_result"].own_route is None and calls == [] and plans == []
    assert title not in _texts(at)
