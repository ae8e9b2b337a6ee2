"""A whole place whose parts lie far apart has a point one can arrive at (issue 31 §5): Hongqiao airport's point was
the midpoint of its two terminals, on the airfield between them, where a route ended. Its point is now its T2
terminal's (data/README.md "Places made of parts"), the resolver says so, and the pack check refuses a whole
between far-apart parts."""

from __future__ import annotations

import pytest

from core.config import Settings
from core.geo.coords import haversine_m
from core.geo.registry import make_provider
from core.models.route import RawStop
from core.models.route_views import PlaceNames
from core.packs.loader import load_region
from core.packs.validate import ARRIVAL_POINT_M, PARTS_FAR_APART_M
from core.route import resolver
from core.route.notices import words
from core.route.resolver import resolve_point

SETTINGS = Settings(region="shanghai", provider="offline", cache_dir=None)


@pytest.fixture(scope="module")
def shanghai():
    return make_provider("offline", region="shanghai", settings=SETTINGS)


def test_the_pack_check_uses_the_resolver_s_figures():
    assert (PARTS_FAR_APART_M, ARRIVAL_POINT_M) == (resolver.FAR_APART_M, resolver.ARRIVAL_M)


def _far_apart_wholes():
    pack = load_region("shanghai")
    for whole_id, part_ids in pack.parts_of().items():
        parts = [pack.place_by_id(i) for i in part_ids]
        spread = max(haversine_m(a.lon, a.lat, b.lon, b.lat) for a in parts for b in parts)
        if spread > PARTS_FAR_APART_M:
            yield pack.place_by_id(whole_id), parts, spread


def test_every_whole_with_far_apart_parts_lies_at_a_part_and_off_the_ground_between_them():
    wholes = list(_far_apart_wholes())
    assert [w.id for w, _, _ in wholes] == ["sh-sha"]  # Pudong's terminals are 834 m apart, across a forecourt
    for whole, parts, spread in wholes:
        nearest = min(haversine_m(whole.lon, whole.lat, p.lon, p.lat) for p in parts)
        mid_lon, mid_lat = sum(p.lon for p in parts) / len(parts), sum(p.lat for p in parts) / len(parts)
        assert nearest <= 50
        # the runways lie between the terminals: the point is at least 40 % of their spread from the middle
        assert haversine_m(whole.lon, whole.lat, mid_lon, mid_lat) >= 0.4 * spread


def test_hongqiao_airport_is_its_t2_terminal_the_hub_s_arrival_point():
    pack = load_region("shanghai")
    sha, t1, t2 = (pack.place_by_id(i) for i in ("sh-sha", "sh-sha-t1", "sh-sha-t2"))
    assert haversine_m(sha.lon, sha.lat, t2.lon, t2.lat) <= 50
    assert haversine_m(sha.lon, sha.lat, t1.lon, t1.lat) > 1500  # T1, across the runways


@pytest.mark.parametrize("typed", ["虹桥机场", "Hongqiao International Airport", "上海虹桥国际机场"])
def test_a_route_to_hongqiao_airport_ends_at_t2_and_says_so_in_both_languages(shanghai, typed):
    raw = RawStop(address=typed)
    res = resolve_point(raw, role="stop", provider=shanghai, index=0, default_city="上海", settings=SETTINGS)
    t2 = shanghai.detail("sh-sha-t2")
    assert res.point.poi_id == "sh-sha"
    assert haversine_m(res.point.lon, res.point.lat, t2.lon, t2.lat) <= 50
    [said] = res.notices
    assert said.code == "PLACE_PARTS_ARRIVAL"
    assert (said.params["arrival_id"], said.params["km"], said.params["count"]) == ("sh-sha-t2", "1.6", 2)
    assert "arrival point" in res.point.confidence_note and "between" not in res.point.confidence_note
    en_names = PlaceNames(
        found={"stops.0": "Shanghai Hongqiao International Airport"},
        places={"sh-sha-t1": "Hongqiao Terminal 1", "sh-sha-t2": "Hongqiao Terminal 2"},
    )
    en = words(said, "en", names=en_names)
    assert "the route goes to Hongqiao Terminal 2, its arrival point" in en and "1.6 km apart" in en
    assert "no entrance" not in en
    zh = words(said, "zh", names=PlaceNames(found={"stops.0": "上海虹桥国际机场"}))
    assert "路线前往其中的到达点 虹桥国际机场T2航站楼" in zh and "彼此相距 1.6 公里" in zh
