import pytest

from core.config import Settings
from core.errors import ResolutionError
from core.geo.registry import make_provider
from core.models.route import RawStop, RoutePlanRequest
from core.route.resolver import resolve_point, resolve_points
from tests.support.region_packs import write_pack


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    return Settings(data_dir=write_pack(tmp_path_factory.mktemp("data")), region="testcity")


@pytest.fixture()
def provider(settings):
    return make_provider("offline", settings=settings)


def test_exact_chinese_name_is_geo(provider, settings):
    res = resolve_point(RawStop(address="外滩"), role="stop", provider=provider, settings=settings, index=0)
    p = res.point
    assert (p.poi_id, p.source, p.crs) == ("t-bund", "geo", "WGS84")
    assert (p.lon, p.lat) == (121.4903, 31.24)
    assert p.location == "121.490300,31.240000"
    assert "exact match on name" in p.confidence_note
    assert res.warnings == []


def test_exact_english_alias_is_geo(provider, settings):
    p = resolve_point(RawStop(address="Pearl Tower"), role="destination", provider=provider, settings=settings).point
    assert p.poi_id == "t-pearl" and p.source == "geo" and p.role == "destination"


def test_fuzzy_english_is_text_search_with_a_warning(provider, settings):
    res = resolve_point(RawStop(address="Shanghai Musem"), role="stop", provider=provider, settings=settings, index=2)
    assert res.point.poi_id == "t-museum"
    assert res.point.source in {"text_search", "search_detail"}
    assert res.point.match_score is not None and res.point.match_score < 100
    [fuzzy] = res.notices
    assert fuzzy.code == "FUZZY_MATCH" and fuzzy.params["point"] == "stops.2" and "name" not in fuzzy.params
    assert res.warnings == [
        f"Stop 3 'Shanghai Musem' is an approximate match: found {res.point.resolved_name} — check it."
    ]


def test_low_score_fuzzy_match_is_confirmed_by_detail(provider, settings):
    res = resolve_point(RawStop(address="静安古寺"), role="stop", provider=provider, settings=settings, index=0)
    assert res.point.poi_id == "t-jingan-temple"
    assert res.point.source == "search_detail"
    assert "confirmed by detail" in res.point.confidence_note


def test_missing_house_number_falls_back_with_a_note(provider, settings):
    res = resolve_point(
        RawStop(address="长宁区仙霞路101号"), role="stop", provider=provider, settings=settings, index=0
    )
    assert res.point.source == "manual_fallback"
    assert res.point.poi_id == "t-xianxia-99"
    assert "仙霞路" in res.point.confidence_note
    assert [n.code for n in res.notices] == ["HOUSE_NUMBER_FALLBACK"] and res.notices[0].params[
        "road"
    ] == "长宁区仙霞路"
    assert "the house number was not found" in res.warnings[0]


def test_other_house_number_on_the_same_road_is_not_taken_as_exact(provider, settings):
    res = resolve_point(RawStop(address="徐汇区测试路7号"), role="stop", provider=provider, settings=settings, index=0)
    assert res.point.poi_id == "t-addr-6" and res.point.source == "geo"
    res = resolve_point(
        RawStop(address="徐汇区测试路700号"), role="stop", provider=provider, settings=settings, index=0
    )
    assert res.point.source == "manual_fallback"


def test_unresolvable_input_is_a_structured_error_naming_it(provider, settings):
    with pytest.raises(ResolutionError) as info:
        resolve_point(
            RawStop(address="zzzz qqq 不存在的地方"), role="stop", provider=provider, settings=settings, index=4
        )
    assert info.value.field == "stops.4"
    assert "stop 5 'zzzz qqq 不存在的地方'" in info.value.message


def test_resolve_points_reports_every_failure(provider, settings):
    req = RoutePlanRequest(
        origin_mode="fixed",
        origin_address="人民广场",
        destination_address="外滩",
        stops=[{"address": "豫园"}, {"address": "qqqq xxxx"}, {"address": "wwww yyyy"}],
    )
    with pytest.raises(ResolutionError) as info:
        resolve_points(req, provider=provider, settings=settings)
    assert info.value.field == "stops.1"
    assert "2 places could not be resolved" in info.value.message
    assert info.value.details == ["stops.1", "stops.2"]


def test_current_location_origin_is_never_resolved(provider, settings):
    req = RoutePlanRequest(origin_mode="current_location", destination_address="外滩", stops=[{"address": "豫园"}])
    rp = resolve_points(req, provider=provider, settings=settings)
    assert rp.origin is None and rp.destination.poi_id == "t-bund"


def test_unresolved_places_say_once_that_the_offline_pack_is_limited(provider, settings):
    req = RoutePlanRequest(
        origin_mode="fixed",
        origin_address="人民广场",
        destination_address="北京天安门",
        stops=[{"address": "杭州西湖", "city": "杭州"}],
    )
    with pytest.raises(ResolutionError) as info:
        resolve_points(req, provider=provider, settings=settings)
    assert info.value.message.count("only knows the bundled places of region 'testcity'") == 1
    assert "杭州西湖" in info.value.message and "北京天安门" in info.value.message
