"""The offline basemap's district labels (components/basemap.py) in the reader's language, on the maps of the route
planner, the agent and the place picker: English names from the pack's ``district_names`` in English, the names as
the places write them in Chinese, and the name as it is when the pack has none in the reader's language."""

from __future__ import annotations

import json
import re
from functools import cache

import pytest

from components.basemap import _DistrictLabels, district_centres, district_label
from core.config import get_settings
from core.packs.loader import load_region

pytestmark = pytest.mark.ui

CJK = re.compile(r"[\u4e00-\u9fff]")


def labels(m) -> list[str]:
    """The texts of the district labels a folium map carries."""
    found, stack = [], [m]
    while stack:
        el = stack.pop()
        stack.extend(el._children.values())
        if isinstance(el, _DistrictLabels):
            found.extend(name for _, _, name in el.labels)
    return found


def rendered_labels(page: str) -> list[str]:
    """The label texts as the rendered page hands them to Leaflet (the JSON array before ``.forEach``)."""
    [array] = re.findall(r"(\[\[[^\n]*?\]\])\.forEach", page)
    return [name for _, _, name in json.loads(array)]


@cache
def route_plan():
    from core.geo.registry import make_provider
    from core.route.planner import plan_route
    from core.route.scenarios import load_scenario

    return plan_route(
        load_scenario("sightseeing-day").request,
        provider=make_provider("offline", region="shanghai", settings=get_settings()),
        settings=get_settings(),
    )


def test_the_route_planners_district_labels_are_english_in_english_and_chinese_in_chinese():
    from components.route.map import build_route_map

    en = rendered_labels(build_route_map(route_plan(), lang="en").get_root().render())
    zh = rendered_labels(build_route_map(route_plan(), lang="zh").get_root().render())
    assert {"Huangpu", "Jing&#x27;an", "Hongkou"} <= set(en)  # the defect: these stayed 黄浦区, 静安区, 虹口区
    assert not any(CJK.search(name) for name in en), en
    assert {"黄浦区", "静安区", "虹口区"} <= set(zh)
    assert len(en) == len(zh) >= 10  # the same districts, one label each


def test_the_agent_and_picker_maps_name_districts_in_the_readers_language():
    from components.maps import build_agent_map, build_pick_map

    stops = [
        {"name": "The Bund", "lon": 121.4880, "lat": 31.2402, "day": 1, "start": "09:00", "end": "10:30"},
        {"name": "Yu Garden", "lon": 121.4921, "lat": 31.2272, "day": 1, "start": "11:00", "end": "12:30"},
    ]
    for lang, expected in (("en", "Xuhui"), ("zh", "徐汇区")):
        agent = labels(build_agent_map(stops, region="shanghai", lang=lang))
        pick = labels(build_pick_map((121.4737, 31.2304), region="shanghai", lang=lang))
        assert expected in agent and expected in pick, (lang, agent, pick)
        assert agent == pick
    assert "Pudong" in labels(build_agent_map(stops, region="shanghai", lang="en"))


def test_a_district_the_pack_does_not_name_in_english_keeps_its_own_name():
    pack = load_region("shanghai")
    assert district_label(pack, "静安区", "en") == "Jing'an"
    assert district_label(pack, "静安区", "zh") == "静安区"
    assert district_label(pack, "临港新片区", "en") == "临港新片区"  # not in district_names: shown as it is
    bare = pack.model_copy(update={"district_names": {}})
    names = [name for name, *_ in district_centres(bare)]
    assert [district_label(bare, name, "en") for name in names] == names
    # every district the places use has an English name in the hand-curated pack
    assert all(not CJK.search(district_label(pack, name, "en")) for name in {p.district for p in pack.places})
