"""AMapProvider: params builders, parsers (against the shared fixtures) and HTTP via MockTransport.

Fixtures are the recorded AMap bodies in ``tests/fixtures/amap``. No test touches the network.
"""

from __future__ import annotations

import copy
import json
import logging
import math
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from core.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderMalformed,
    ProviderQuotaExceeded,
    ProviderRateLimited,
    ProviderTimeout,
    ProviderUnavailable,
    RouteNotFound,
)
from core.geo.amap import AMapProvider, DistanceItem, format_lnglat
from core.geo.amap_envelope import error_for_infocode, redact_key
from core.geo.base import Geocoder, LonLat, Router, WeatherService
from core.geo.coords import gcj02_to_wgs84, parse_lonlat, wgs84_to_gcj02
from tests.support.paths import AMAP_FIXTURES

FIXTURES = AMAP_FIXTURES
KEY = "test-key-5f1e2d3c4b5a69788796a5b4"
ECHOED_KEY = "0123456789abcdef0123456789abcdef"  # the key error_invalid_key.json echoes
WIRE_RE = re.compile(r"^-?\d{1,3}\.\d{1,6},-?\d{1,2}\.\d{1,6}$")

# WGS-84 points in central Shanghai (People's Square, Nanjing Rd E., the Bund, Lujiazui)
PEOPLES_SQUARE = LonLat(121.4737, 31.2304)
NANJING_RD = LonLat(121.4852, 31.2380)
THE_BUND = LonLat(121.4903, 31.2400)
LUJIAZUI = LonLat(121.4990, 31.2397)
HONGQIAO = LonLat(121.3200, 31.1940)  # ~17 km west of People's Square


def fixture_path(name: str) -> Path:
    path = FIXTURES / name
    if not path.is_file():
        pytest.fail(f"AMap fixture {name} is missing from {FIXTURES}.", pytrace=False)
    return path


def load(name: str) -> dict:
    return json.loads(fixture_path(name).read_text(encoding="utf-8"))


def wgs(gcj_text: str) -> tuple[float, float]:
    return gcj02_to_wgs84(*parse_lonlat(gcj_text))


def assert_close(actual: tuple[float, float], expected: tuple[float, float], tol: float = 1e-6) -> None:
    assert abs(actual[0] - expected[0]) <= tol and abs(actual[1] - expected[1]) <= tol, (actual, expected)


def assert_wire_point(text: str, wgs_point: LonLat) -> None:
    """``text`` is ``lng,lat`` in GCJ-02 of ``wgs_point`` with at most 6 decimals."""
    assert WIRE_RE.match(text), text
    lon, lat = parse_lonlat(text)
    glon, glat = wgs84_to_gcj02(*wgs_point)
    assert abs(lon - glon) <= 5e-7 and abs(lat - glat) <= 5e-7
    # really shifted (GCJ-02 differs from WGS-84 by ~500 m in Shanghai), and lng first
    assert abs(lon - wgs_point.lon) > 1e-3
    assert 73 < lon < 136 and 3 < lat < 54


class Recorder:
    """A MockTransport handler that records requests and answers from a function or a queue."""

    def __init__(self, answer):
        self.answer = answer
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        result = self.answer(request) if callable(self.answer) else self.answer.pop(0)
        if isinstance(result, httpx.Response):
            return result
        return httpx.Response(200, json=result)

    def params(self, k: int = -1) -> dict[str, str]:
        return {name: values[0] for name, values in parse_qs(urlsplit(str(self.requests[k].url)).query).items()}


def provider_with(answer, **kwargs) -> tuple[AMapProvider, Recorder]:
    rec = Recorder(answer)
    client = httpx.Client(transport=httpx.MockTransport(rec))
    return AMapProvider(key=KEY, client=client, **kwargs), rec


@pytest.fixture
def amap() -> AMapProvider:
    return AMapProvider(key=KEY, client=httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(500))))


def test_fixture_folder_is_present():
    assert FIXTURES.is_dir(), f"AMap fixture folder not found at {FIXTURES}"
    assert (FIXTURES / "INDEX.md").is_file()


def test_provider_satisfies_protocol(amap):
    assert isinstance(amap, Geocoder) and isinstance(amap, Router) and isinstance(amap, WeatherService)
    assert amap.name == "amap"
    assert KEY not in repr(amap)


def test_empty_key_is_refused():
    with pytest.raises(ProviderAuthError, match="OMNI_AMAP_KEY"):
        AMapProvider(key="  ")


# --------------------------------------------------------------------------------------------
# params builders
# --------------------------------------------------------------------------------------------


def test_geocode_params(amap):
    params = amap.get_geocode_params("上海市黄浦区人民大道200号", city="310000")
    assert params == {"key": KEY, "address": "上海市黄浦区人民大道200号", "city": "310000"}
    assert "city" not in amap.get_geocode_params("人民广场")


def test_city_default_is_used_when_no_city_given():
    p = AMapProvider(
        key=KEY,
        client=httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(500))),
        city_default="310000",
    )
    assert p.get_geocode_params("人民广场")["city"] == "310000"
    assert p.get_geocode_params("人民广场", city="021")["city"] == "021"
    assert p.get_search_params("咖啡")["citylimit"] == "true"


def test_search_params(amap):
    params = amap.get_search_params("咖啡", city="310101", limit=100)
    assert params["key"] == KEY
    assert params["keywords"] == "咖啡"
    assert params["city"] == "310101"
    assert params["citylimit"] == "true"
    assert params["extensions"] == "all"
    assert params["offset"] == "25"  # capped: AMap recommends offset <= 25
    assert amap.get_search_params("咖啡", limit=5)["offset"] == "5"
    no_city = amap.get_search_params("咖啡")
    assert "city" not in no_city and "citylimit" not in no_city


def test_detail_params(amap):
    assert amap.get_detail_params("B00155K7QF") == {"key": KEY, "id": "B00155K7QF"}


def test_distance_params_convert_to_gcj02_with_pipe_separated_origins(amap):
    origins = [PEOPLES_SQUARE, NANJING_RD, HONGQIAO]
    params = amap.get_distance_params(origins, LUJIAZUI, mode="driving")
    assert params["key"] == KEY
    assert params["type"] == "1"
    parts = params["origins"].split("|")
    assert len(parts) == 3
    for text, point in zip(parts, origins, strict=True):
        assert_wire_point(text, point)
    assert_wire_point(params["destination"], LUJIAZUI)
    assert amap.get_distance_params(origins, LUJIAZUI, mode="walking")["type"] == "3"


def test_distance_params_limits(amap):
    with pytest.raises(ValueError, match="1 to 100 origins"):
        amap.get_distance_params([PEOPLES_SQUARE] * 101, LUJIAZUI, mode="driving")
    with pytest.raises(ValueError, match="travel mode"):
        amap.get_distance_params([PEOPLES_SQUARE], LUJIAZUI, mode="cycling")  # type: ignore[arg-type]


def test_driving_and_walking_params(amap):
    drive = amap.get_driving_params(PEOPLES_SQUARE, LUJIAZUI)
    assert drive["key"] == KEY
    assert_wire_point(drive["origin"], PEOPLES_SQUARE)
    assert_wire_point(drive["destination"], LUJIAZUI)
    assert drive["strategy"] == "0" and drive["extensions"] == "base"
    walk = amap.get_walking_params(PEOPLES_SQUARE, NANJING_RD)
    assert set(walk) == {"key", "origin", "destination"}
    assert_wire_point(walk["origin"], PEOPLES_SQUARE)


def test_format_lnglat_outside_china_is_unchanged():
    assert format_lnglat(LonLat(2.2945, 48.8584)) == "2.294500,48.858400"


# --------------------------------------------------------------------------------------------
# parsers against the fixtures
# --------------------------------------------------------------------------------------------


def test_parse_geocode():
    data = load("geocode_geo_v3.json")
    places = AMapProvider.parse_geocode_json(data)
    assert len(places) == 1
    p = places[0]
    assert_close((p.lon, p.lat), wgs("121.473701,31.230416"))
    assert p.name == p.address == "上海市黄浦区人民大道200号"
    assert p.city == "上海市" and p.district == "黄浦区"
    assert p.level == "house_number"
    assert p.poi_id is None
    assert p.source == "amap"
    assert p.raw == data["geocodes"][0]


def test_parse_geocode_empty():
    assert AMapProvider.parse_geocode_json(load("geocode_geo_v3_empty.json")) == []


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        ("兴趣点", "poi"),
        ("门牌号", "house_number"),
        ("门址", "house_number"),
        ("单元号", "house_number"),
        ("道路", "road"),
        ("道路交叉路口", "road"),
        ("区县", "area"),
        ("乡镇", "area"),
        ("开发区", "area"),
        ("村庄", "area"),
        ("热点商圈", "area"),
        ("市", "city"),
        ("省", "city"),
        ("国家", "city"),
        ("公交站台、地铁站", "unknown"),
        ("未知", "unknown"),
        ([], "unknown"),
    ],
)
def test_geocode_level_mapping(level, expected):
    data = copy.deepcopy(load("geocode_geo_v3.json"))
    data["geocodes"][0]["level"] = level
    assert AMapProvider.parse_geocode_json(data)[0].level == expected


def test_parse_geocode_normalises_empty_arrays():
    data = copy.deepcopy(load("geocode_geo_v3.json"))
    data["geocodes"][0]["district"] = []
    data["geocodes"][0]["city"] = []  # municipalities answer [] in some endpoints
    place = AMapProvider.parse_geocode_json(data)[0]
    assert place.district is None
    assert place.city == "上海市"  # falls back to the province


def test_parse_place_text():
    data = load("place_text_v3.json")
    places = AMapProvider.parse_search_json(data)
    assert [p.poi_id for p in places] == ["B0FFH2KX7A", "B0FFKQ2Z9M"]
    first, second = places
    assert first.name == "星巴克(来福士广场店)"
    assert first.address == "西藏中路268号来福士广场1层"
    assert first.city == "上海市" and first.district == "黄浦区"
    assert first.category == "餐饮服务;咖啡厅;星巴克咖啡"
    assert first.level == "poi" and first.source == "amap"
    assert first.raw is data["pois"][0]
    assert_close((first.lon, first.lat), wgs("121.477101,31.231902"))
    assert_close((second.lon, second.lat), wgs("121.481712,31.236601"))


def test_parse_place_text_suggestion_gives_no_places():
    assert AMapProvider.parse_search_json(load("place_text_v3_suggestion.json")) == []


def test_parse_place_text_skips_rows_without_location():
    data = copy.deepcopy(load("place_text_v3.json"))
    data["pois"][0]["location"] = []
    assert [p.poi_id for p in AMapProvider.parse_search_json(data)] == ["B0FFKQ2Z9M"]


def test_parse_place_detail():
    data = load("place_detail_v3.json")
    place = AMapProvider.parse_detail_json(data)
    assert place is not None
    assert place.poi_id == "B00155K7QF"
    assert place.name == "上海博物馆(人民广场馆)"
    assert place.address == "人民大道201号"
    assert place.category == "科教文化服务;博物馆;博物馆"
    assert place.level == "poi"
    assert place.raw["biz_ext"]["open_time"] == "09:00-17:00"
    assert_close((place.lon, place.lat), wgs("121.475518,31.228353"))


def test_parse_place_detail_without_pois_is_none():
    assert AMapProvider.parse_detail_json({"status": "1", "info": "OK", "infocode": "10000", "pois": []}) is None


def test_parse_distance():
    items = AMapProvider.parse_distance_json(load("distance_v3.json"), 3)
    assert items == [DistanceItem(4240.0, 853.0), DistanceItem(2611.0, 612.0), DistanceItem(23874.0, 2210.0)]
    assert all(isinstance(i.distance_m, float) for i in items)


def test_parse_distance_item_failure_is_marked():
    items = AMapProvider.parse_distance_json(load("distance_v3_item_failure.json"), 2)
    assert items[0] == DistanceItem(4240.0, 853.0)
    assert not items[1].ok
    assert items[1].distance_m is None and items[1].duration_s is None  # the "0" is not trusted
    assert "too far from any road" in items[1].error and "code 2" in items[1].error


def test_parse_distance_missing_result_is_marked():
    items = AMapProvider.parse_distance_json(load("distance_v3.json"), 4)
    assert [i.ok for i in items] == [True, True, True, False]


def test_parse_driving_route():
    data = load("direction_driving_v3.json")
    leg = AMapProvider.parse_route_json(data, mode="driving")
    assert leg.distance_m == 4240.0 and leg.duration_s == 853.0
    assert leg.source == "amap" and leg.mode == "driving"
    path = data["route"]["paths"][0]
    raw_points: list[str] = []
    for step in path["steps"]:
        for pt in step["polyline"].split(";"):
            if not raw_points or raw_points[-1] != pt:
                raw_points.append(pt)
    assert len(leg.geometry) == len(raw_points)  # shared step endpoints appear once
    for got, text in zip(leg.geometry, raw_points, strict=True):
        assert_close(got, wgs(text))
    assert_close(leg.geometry[0], wgs(data["route"]["origin"]))
    assert_close(leg.geometry[-1], wgs(data["route"]["destination"]))


def test_parse_walking_route():
    data = load("direction_walking_v3.json")
    leg = AMapProvider.parse_route_json(data, mode="walking")
    assert leg.distance_m == 1092.0 and leg.duration_s == 874.0
    assert leg.mode == "walking"
    assert len(leg.geometry) == 5  # 2 + 3 + 2 points, two shared step endpoints
    assert_close(leg.geometry[0], wgs("121.475164,31.228816"))
    assert_close(leg.geometry[-1], wgs("121.480540,31.236370"))


def test_parse_route_without_paths_is_route_not_found():
    data = copy.deepcopy(load("direction_walking_v3.json"))
    data["route"]["paths"] = []
    with pytest.raises(RouteNotFound):
        AMapProvider.parse_route_json(data, mode="walking")


@pytest.mark.parametrize(
    ("name", "exc_type", "builtin"),
    [
        ("error_invalid_key.json", ProviderAuthError, PermissionError),
        ("error_insufficient_privileges.json", ProviderAuthError, PermissionError),
        ("error_daily_quota.json", ProviderQuotaExceeded, RuntimeError),
        ("error_cuqps_limit.json", ProviderRateLimited, ConnectionError),
        ("error_invalid_params.json", ProviderError, RuntimeError),
        ("error_no_roads_nearby.json", RouteNotFound, RuntimeError),
        ("error_v4_bicycling_invalid_key.json", ProviderAuthError, PermissionError),
    ],
)
@pytest.mark.parametrize(
    "parse",
    [
        AMapProvider.parse_geocode_json,
        AMapProvider.parse_search_json,
        AMapProvider.parse_detail_json,
        lambda d: AMapProvider.parse_distance_json(d, 1),
        lambda d: AMapProvider.parse_route_json(d, mode="driving"),
    ],
    ids=["geocode", "search", "detail", "distance", "route"],
)
def test_error_fixtures_map_to_exceptions(name, exc_type, builtin, parse):
    data = load(name)
    with pytest.raises(exc_type) as info:
        parse(data)
    exc = info.value
    assert type(exc) is exc_type
    assert isinstance(exc, builtin)
    info_name = data.get("info") or data.get("errmsg")
    assert info_name in exc.message
    assert ECHOED_KEY not in str(exc) and ECHOED_KEY not in str(exc.details)


def test_client_bug_is_not_retryable_class():
    exc = error_for_infocode("20000", "INVALID_PARAMS")
    assert not isinstance(exc, ProviderUnavailable)


@pytest.mark.parametrize(
    ("codes", "exc_type"),
    [
        (
            [
                "10001",
                "10002",
                "10005",
                "10006",
                "10007",
                "10008",
                "10009",
                "10010",
                "10011",
                "10012",
                "10013",
                "10026",
                "10041",
            ],
            ProviderAuthError,
        ),
        (["10003", "10044", "40000", "40002"], ProviderQuotaExceeded),
        (["10004", "10014", "10015", "10016", "10019", "10020", "10021"], ProviderRateLimited),
        (["20000", "20001", "20002", "20003"], ProviderError),
        (["20800", "20801", "20802", "20803"], RouteNotFound),
    ],
)
def test_infocode_table(codes, exc_type):
    for code in codes:
        exc = error_for_infocode(code, "X", endpoint="/v3/x")
        assert type(exc) is exc_type, code
        assert code in exc.message


# --------------------------------------------------------------------------------------------
# the key never leaks
# --------------------------------------------------------------------------------------------


def test_redact_key_patterns():
    text = 'GET https://restapi.amap.com/v3/geocode/geo?key=abcd1234&address=x {"key": "abcd1234"}'
    out = redact_key(text, "abcd1234")
    assert "abcd1234" not in out
    assert "key=***" in out and '"key": "***"' in out


def test_invalid_key_body_never_leaks_the_key(caplog):
    caplog.set_level(logging.DEBUG)
    rec = Recorder(lambda r: load("error_invalid_key.json"))
    p = AMapProvider(key=ECHOED_KEY, client=httpx.Client(transport=httpx.MockTransport(rec)))
    with pytest.raises(ProviderAuthError) as info:
        p.geocode("人民广场", city="310000")
    exc = info.value
    assert rec.params()["key"] == ECHOED_KEY  # it was sent ...
    for text in (str(exc), repr(exc), exc.message, str(exc.details), str(exc.to_dict())):
        assert ECHOED_KEY not in text  # ... but never shows up
    assert "INVALID_USER_KEY" in exc.message
    assert exc.details["body"]["key"] == "***"
    assert caplog.records, "expected at least the httpx request log and our warning"
    assert ECHOED_KEY not in caplog.text
    assert "key=***" in caplog.text  # httpx's request line is redacted, not dropped


def test_transport_error_message_is_redacted(caplog):
    caplog.set_level(logging.DEBUG)

    def boom(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"cannot connect for {request.url}", request=request)

    p = AMapProvider(key=KEY, client=httpx.Client(transport=httpx.MockTransport(boom)))
    with pytest.raises(ProviderUnavailable) as info:
        p.search("咖啡", city="310000")
    assert isinstance(info.value, ConnectionError)
    assert KEY not in str(info.value) and "key=***" in str(info.value)
    assert KEY not in caplog.text


# --------------------------------------------------------------------------------------------
# end to end through MockTransport
# --------------------------------------------------------------------------------------------


def test_geocode_sends_request_and_parses():
    p, rec = provider_with(lambda r: load("geocode_geo_v3.json"))
    places = p.geocode("上海市黄浦区人民大道200号", city="310000")
    assert len(rec.requests) == 1
    req = rec.requests[0]
    assert req.method == "GET"
    assert req.url.host == "restapi.amap.com" and req.url.path == "/v3/geocode/geo"
    assert rec.params() == {"key": KEY, "address": "上海市黄浦区人民大道200号", "city": "310000"}
    assert places[0].level == "house_number"


def test_base_url_is_configurable():
    p, rec = provider_with(lambda r: load("place_detail_v3.json"), base_url="http://amap.test/")
    p.detail("B00155K7QF")
    assert str(rec.requests[0].url).startswith("http://amap.test/v3/place/detail?")


def test_search_sends_citylimit_and_respects_limit():
    p, rec = provider_with(lambda r: load("place_text_v3.json"))
    places = p.search("咖啡", city="310101", limit=1)
    assert rec.requests[0].url.path == "/v3/place/text"
    sent = rec.params()
    assert sent["citylimit"] == "true" and sent["city"] == "310101" and sent["offset"] == "1"
    assert len(places) == 1


def _matrix_answer(points: list[LonLat]):
    """Answer /v3/distance with distance = 1000*i + j (i origin index, j destination index)."""
    index = {format_lnglat(pt): k for k, pt in enumerate(points)}

    def answer(request: httpx.Request) -> dict:
        q = dict(request.url.params)
        j = index[q["destination"]]
        results = []
        for pos, text in enumerate(q["origins"].split("|")):
            i = index[text]
            results.append(
                {"origin_id": str(pos + 1), "dest_id": "1", "distance": str(1000 * i + j), "duration": str(10 * i + j)}
            )
        return {"status": "1", "info": "OK", "infocode": "10000", "count": str(len(results)), "results": results}

    return answer


def test_matrix_one_call_per_destination_column():
    pts = [PEOPLES_SQUARE, NANJING_RD, THE_BUND, LUJIAZUI]
    p, rec = provider_with(_matrix_answer(pts))
    m = p.matrix(pts, mode="driving")
    assert len(rec.requests) == 4
    for req in rec.requests:
        assert req.url.path == "/v3/distance"
        q = dict(req.url.params)
        assert q["type"] == "1" and q["key"] == KEY
        assert len(q["origins"].split("|")) == 3  # the destination itself is not sent
    assert m.source == "amap" and m.mode == "driving" and m.notes == []
    for i in range(4):
        for j in range(4):
            assert m.distances_m[i][j] == (0.0 if i == j else 1000 * i + j)
            assert m.durations_s[i][j] == (0.0 if i == j else 10 * i + j)


def test_matrix_to_asks_only_the_wanted_columns_and_a_point_once():
    pts = [PEOPLES_SQUARE, NANJING_RD, THE_BUND, LUJIAZUI, THE_BUND]  # 2 and 4: one place twice
    p, rec = provider_with(_matrix_answer(pts[:4]))
    m = p.matrix_to(pts, [1, 2, 4], mode="driving")
    asked = sorted(dict(r.url.params)["destination"] for r in rec.requests)
    assert asked == sorted([format_lnglat(NANJING_RD), format_lnglat(THE_BUND)])  # two destinations, two calls
    assert all(len(dict(r.url.params)["origins"].split("|")) == 3 for r in rec.requests)  # the other places
    assert m.destinations == [1, 2, 4]
    assert m.distances_m[0][1] == 1 and m.distances_m[3][2] == 3002 and m.distances_m[3][4] == 3002
    assert m.distances_m[4][1] == 2001  # the twin's row: THE_BUND's answer
    assert m.distances_m[2][4] == m.distances_m[4][2] == 0.0  # one point: no leg
    assert math.isinf(m.distances_m[1][0]) and math.isinf(m.durations_s[0][3])  # columns not asked


def test_resilient_matrix_to_estimates_nothing_for_the_columns_it_did_not_ask():
    from core.geo.offline import OfflineProvider
    from core.geo.resilience import ResilientProvider
    from core.packs.loader import load_region

    pts = [PEOPLES_SQUARE, NANJING_RD, THE_BUND, LUJIAZUI]
    inner, rec = provider_with(_matrix_answer(pts))
    guarded = ResilientProvider(inner, fallback=OfflineProvider(load_region("shanghai")), retries=0)
    m = guarded.matrix_to(pts, [1, 3], mode="driving")
    assert len(rec.requests) == 2
    assert m.source == "amap" and m.estimated_pairs == [] and m.destinations == [1, 3]
    assert math.isinf(m.distances_m[1][0]) and math.isinf(m.distances_m[3][2])


def test_matrix_chunks_more_than_100_origins():
    pts = [LonLat(121.40 + 0.001 * k, 31.20 + 0.0005 * (k % 7)) for k in range(102)]
    p, rec = provider_with(_matrix_answer(pts))
    m = p.matrix(pts, mode="driving")
    sizes = [len(dict(r.url.params)["origins"].split("|")) for r in rec.requests]
    assert max(sizes) == 100
    assert len(rec.requests) == 2 * 102 and sum(sizes) == 102 * 101
    assert m.distances_m[101][0] == 101000 and m.distances_m[0][101] == 101


def test_matrix_item_failure_is_inf_with_note():
    p, rec = provider_with(lambda r: load("distance_v3_item_failure.json"))
    m = p.matrix([PEOPLES_SQUARE, NANJING_RD, THE_BUND], mode="driving")
    # each column sends 2 origins; the fixture's second item failed
    assert m.distances_m[0][1] == 4240.0
    assert math.isinf(m.distances_m[2][1]) and math.isinf(m.durations_s[2][1])
    assert m.notes and "3 of 6" in m.notes[0] and "too far from any road" in m.notes[0]


def test_walking_matrix_sends_type_3_and_skips_pairs_beyond_5_km():
    pts = [PEOPLES_SQUARE, NANJING_RD, HONGQIAO]
    p, rec = provider_with(_matrix_answer(pts))
    m = p.matrix(pts, mode="walking")
    assert {dict(r.url.params)["type"] for r in rec.requests} == {"3"}
    # Hongqiao is ~17 km away: its column and row are never sent
    assert len(rec.requests) == 2
    assert all(format_lnglat(HONGQIAO) not in str(r.url.params) for r in rec.requests)
    assert m.distances_m[0][1] == 1 and m.distances_m[1][0] == 1000
    assert math.isinf(m.distances_m[0][2]) and math.isinf(m.durations_s[2][1])
    assert "5 km walking limit" in m.notes[0]


def test_route_uses_driving_and_walking_endpoints():
    def answer(request):
        name = {
            "/v3/direction/driving": "direction_driving_v3.json",
            "/v3/direction/walking": "direction_walking_v3.json",
        }[request.url.path]
        return load(name)

    p, rec = provider_with(answer)
    drive = p.route(PEOPLES_SQUARE, LUJIAZUI, mode="driving")
    walk = p.route(PEOPLES_SQUARE, NANJING_RD, mode="walking")
    assert [r.url.path for r in rec.requests] == ["/v3/direction/driving", "/v3/direction/walking"]
    assert_wire_point(rec.params(0)["origin"], PEOPLES_SQUARE)
    assert_wire_point(rec.params(1)["destination"], NANJING_RD)
    assert drive.duration_s == 853.0 and walk.duration_s == 874.0


def test_route_error_body_raises_route_not_found():
    p, _ = provider_with(lambda r: load("error_no_roads_nearby.json"))
    with pytest.raises(RouteNotFound, match="NO_ROADS_NEARBY"):
        p.route(PEOPLES_SQUARE, LUJIAZUI, mode="driving")


@pytest.mark.parametrize(
    ("response", "exc_type"),
    [
        (httpx.Response(502, text="Bad gateway"), ProviderUnavailable),
        (httpx.Response(429, text="slow down"), ProviderRateLimited),
        (httpx.Response(404, text="nope"), ProviderError),
        # an answer that breaks the schema is malformed (never asked again), still a kind of unavailable
        (httpx.Response(200, text="<html>not json</html>"), ProviderMalformed),
        (httpx.Response(200, json=["unexpected"]), ProviderMalformed),
        (httpx.Response(200, json={"info": "OK"}), ProviderMalformed),
    ],
)
def test_http_level_failures(response, exc_type):
    p, _ = provider_with(lambda r: response)
    with pytest.raises(exc_type) as info:
        p.geocode("人民广场")
    assert type(info.value) is exc_type
    assert KEY not in str(info.value)


def test_timeout_becomes_provider_timeout():
    def slow(request):
        raise httpx.ReadTimeout("timed out", request=request)

    p = AMapProvider(key=KEY, client=httpx.Client(transport=httpx.MockTransport(slow)), timeout_s=2.5)
    with pytest.raises(ProviderTimeout) as info:
        p.detail("B00155K7QF")
    assert isinstance(info.value, TimeoutError) and isinstance(info.value, ProviderUnavailable)
    assert "2.5 s" in str(info.value)


def test_min_interval_paces_requests_with_injected_sleep():
    slept: list[float] = []
    p, rec = provider_with(
        lambda r: load("geocode_geo_v3.json"), min_interval_s=1.5, sleep=slept.append, clock=lambda: 100.0
    )
    p.geocode("a")
    p.geocode("b")
    assert len(rec.requests) == 2
    assert slept == [1.5]
