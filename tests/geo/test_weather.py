"""AMap weather: params builder, parser, client (MockTransport), resilience, and the agent's fast path."""

from __future__ import annotations

from datetime import date, datetime
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import httpx
import pytest
import tenacity

from core.agent import route_and_run
from core.app.agent import agent_deps
from core.errors import InputError, ProviderAuthError, ProviderError, ProviderUnavailable
from core.geo.amap import WEATHER_PATH, AMapProvider
from core.geo.composite import MapServices
from core.geo.offline import OfflineProvider
from core.geo.resilience import ResilientProvider
from core.packs.loader import load_region
from tests.geo.test_resilience import KEY, Server, load
from tests.support.agent_packs import make_settings
from tests.support.paths import ROOT


def params_of(request: httpx.Request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(str(request.url)).query).items()}


def client_for(server) -> httpx.Client:
    return httpx.Client(transport=httpx.MockTransport(server))


def test_weather_params_ask_for_the_forecast_by_adcode():
    amap = AMapProvider(key=KEY, client=client_for(Server()))
    assert amap.get_weather_params("310000") == {"key": KEY, "city": "310000", "extensions": "all"}
    assert amap.get_weather_params(" 310101 ", forecast=False)["extensions"] == "base"
    with pytest.raises(InputError):
        amap.get_weather_params("  ")


def test_forecast_parser_keeps_the_published_values():
    days = AMapProvider.parse_weather_forecast_json(load("weather_forecast_v3.json"))
    assert [d.date for d in days] == [date(2026, 11, 21), date(2026, 11, 22), date(2026, 11, 23), date(2026, 11, 24)]
    mon = days[2]
    assert (mon.day_weather, mon.night_weather, mon.day_temp_c, mon.night_temp_c) == ("阴", "多云", 12.0, 7.0)
    assert (mon.day_wind, mon.day_power, mon.night_power) == ("西北", "4", "1-3")
    assert (mon.city, mon.adcode, mon.report_time) == ("上海市", "310000", "2026-11-21 11:00:10")
    assert mon.source == f"amap:{WEATHER_PATH}"
    assert AMapProvider.parse_weather_forecast_json({"status": "1", "forecasts": []}) == []


def test_client_returns_the_day_asked_or_none_outside_the_four_days():
    server = Server(default=load("weather_forecast_v3.json"))
    amap = AMapProvider(key=KEY, client=client_for(server))
    fc = amap.weather("310000", day=date(2026, 11, 24))
    assert fc is not None and fc.day_weather == "晴" and fc.night_temp_c == 6.0
    assert urlsplit(str(server.requests[0].url)).path == WEATHER_PATH
    assert params_of(server.requests[0]) == {"key": KEY, "city": "310000", "extensions": "all"}
    assert amap.weather("310000", day=date(2026, 11, 25)) is None


def test_client_maps_amap_errors():
    amap = AMapProvider(key=KEY, client=client_for(Server(default=load("error_invalid_key.json"))))
    with pytest.raises(ProviderAuthError):
        amap.weather("310000", day=date(2026, 11, 22))


def resilient(server) -> MapServices:
    """AMap weather behind retries and breakers, cached by MapServices as the app wires it."""
    inner = AMapProvider(key=KEY, client=client_for(server))
    rp = ResilientProvider(inner, fallback=None, retries=2, wait=tenacity.wait_none(), sleep=lambda s: None)
    return MapServices(geocoder=rp, router=rp, weather=rp, region=load_region("shanghai", ROOT / "data"))


def test_resilient_weather_retries_caches_and_never_estimates():
    server = Server(httpx.Response(503), load("weather_forecast_v3.json"))
    rp = resilient(server)
    fc = rp.weather("310000", day=date(2026, 11, 22))
    assert fc.day_weather == "小雨" and len(server.requests) == 2  # one retry after the 503
    assert rp.weather("310000", day=date(2026, 11, 22)) == fc and len(server.requests) == 2  # cached
    down = resilient(Server(default=httpx.Response(503)))
    with pytest.raises(ProviderUnavailable):  # no offline "estimate" of weather
        down.weather("310000", day=date(2026, 11, 22))


@pytest.fixture
def agent_env(tmp_path):
    settings = make_settings(tmp_path)
    offline = OfflineProvider(load_region(settings.region, settings.data_dir))

    def run(message, server, now):
        rp = ResilientProvider(
            AMapProvider(key=KEY, client=client_for(server)),
            fallback=offline,
            retries=1,
            wait=tenacity.wait_none(),
            sleep=lambda s: None,
        )
        provider = MapServices(geocoder=rp, router=rp, weather=rp, region=offline.region, warnings=rp.warnings)
        return route_and_run({"message": message, "user_id": "u"}, agent_deps(settings, provider), now=now)

    return run


SAT_MORNING = datetime(2026, 11, 22, 9, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


def test_agent_reports_the_amap_forecast_with_its_source(agent_env):
    server = Server(default=load("weather_forecast_v3.json"))
    r = agent_env("明天天气怎么样", server, SAT_MORNING)
    assert r.route.route == "SYSTEM1_API" and r.result.status == "OK"
    text = r.result.answer_text
    assert "2026-11-23" in text and "白天阴 12°C" in text and "夜间多云 7°C" in text
    assert "amap:/v3/weather/weatherInfo" in text and "2026-11-21 11:00:10" in text
    ev = next(e for e in r.result.payload.evidence if e["type"] == "weather")
    assert ev["day_temp_c"] == 12.0 and ev["source"] == "amap:/v3/weather/weatherInfo"
    en = agent_env("What's the weather tomorrow?", server, SAT_MORNING)
    assert "day 阴 12°C, night 多云 7°C" in en.result.answer_text


def test_agent_says_when_the_date_is_beyond_the_forecast_or_the_service_fails(agent_env):
    far = agent_env(
        "明天天气怎么样",
        Server(default=load("weather_forecast_v3.json")),
        datetime(2026, 12, 5, 9, 0, tzinfo=ZoneInfo("Asia/Shanghai")),
    )
    assert far.result.status == "OK" and "2026-12-06" in far.result.answer_text
    assert "4 天" in far.result.answer_text and "不会编造" in far.result.answer_text
    assert not any(ch in far.result.answer_text for ch in "℃°")
    failed = agent_env("What's the weather tomorrow?", Server(default=httpx.Response(503)), SAT_MORNING)
    assert "weather service failed" in failed.result.answer_text and "°" not in failed.result.answer_text
    ev = next(e for e in failed.result.payload.evidence if e["type"] == "weather")
    assert ev["available"] is False and ev["reason"] == "WEATHER_SERVICE_FAILED"


def _two_areas() -> dict:
    body = load("weather_forecast_v3.json")
    other = {**body["forecasts"][0], "city": "中山区", "adcode": "210202", "province": "辽宁"}
    body["forecasts"] = [other, body["forecasts"][0]]
    body["count"] = "2"
    return body


def test_an_ambiguous_city_gives_no_forecast_unless_the_adcode_picks_one():
    amap = AMapProvider(key=KEY, client=client_for(Server(default=_two_areas())))
    with pytest.raises(ProviderError) as err:
        amap.weather("中山", day=date(2026, 11, 23))
    assert err.value.code == "WEATHER_CITY_AMBIGUOUS"
    fc = amap.weather("310000", day=date(2026, 11, 23))
    assert fc.adcode == "310000" and fc.city == "上海市"


def test_empty_float_fields_fall_back_to_the_published_integers():
    body = load("weather_forecast_v3.json")
    cast = body["forecasts"][0]["casts"][0]
    cast["daytemp_float"], cast["nighttemp_float"] = [], ""
    day = AMapProvider.parse_weather_forecast_json(body)[0]
    assert (day.day_temp_c, day.night_temp_c) == (16.0, 10.0)


def test_an_unknown_city_or_a_failed_status_is_an_error_not_a_missing_date():
    amap = AMapProvider(
        key=KEY,
        client=client_for(
            Server(default={"status": "1", "count": "0", "info": "OK", "infocode": "10000", "forecasts": []})
        ),
    )
    with pytest.raises(ProviderError) as err:
        amap.weather("999999", day=date(2026, 11, 23))
    assert err.value.code == "WEATHER_CITY_UNKNOWN"
    with pytest.raises(ProviderError):
        AMapProvider.parse_weather_forecast_json(load("error_invalid_params.json"))


def test_one_forecast_call_serves_all_four_days():
    server = Server(default=load("weather_forecast_v3.json"))
    rp = resilient(server)
    temps = [rp.weather("310000", day=date(2026, 11, d)).day_temp_c for d in (21, 22, 23, 24)]
    assert temps == [16.0, 13.0, 12.0, 14.0] and len(server.requests) == 1
    assert rp.weather("310000", day=date(2026, 11, 30)) is None and len(server.requests) == 1
