"""Stage 3 reads the outing's weather forecast (issue 31, half_day_planner.md §4.2): ``check_weather`` asks the
provider's weather service through the weather breaker and the profile follows what the forecast says (a rainy day
keeps the plan indoors) unless the goal named the weather itself. The forecasts here are written by hand: the AMap
stand-in's (a real HTTP server) for the planner, a service of our own for the units. The moment is the suite's."""

from __future__ import annotations

from datetime import date, time

import pytest

from core.config import Settings
from core.errors import ProviderError, ProviderNotRequested, ProviderUnavailable
from core.geo.base import DayForecast
from core.geo.composite import MapServices
from core.geo.offline import OfflineProvider
from core.geo.registry import make_provider
from core.halfday.breaker import HalfDayBreakers
from core.halfday.profile import analyze_user_profile
from core.halfday.weather import forecast_codes, read_weather, weather_breaker
from core.models.halfday.plans import HalfDayRequest, Memory, ProfileInput
from core.models.halfday.weather import Forecast, WeatherQuery, WeatherReading
from core.packs.loader import load_region
from core.words.halfday import intro_sentence
from core.words.halfday_weather import weather_sentence
from standins.amap import AMapLimitedStandIn, CastDay
from tests.halfday.conftest import NOW, SATURDAY, goal, planner_on
from tests.support.amap_settings import amap_settings

SOURCE = "amap:/v3/weather/weatherInfo"
AFTERNOON = WeatherQuery(date=SATURDAY, start=time(13, 0), end=time(17, 0))
EVENING = WeatherQuery(date=SATURDAY, start=time(16, 0), end=time(21, 0))


def _forecast(day: str, *, night: str | None = None, high: float = 14, low: float = 8) -> Forecast:
    return Forecast(date=SATURDAY, day_weather=day, night_weather=night or day, day_temp_c=high, night_temp_c=low,
                    report_time="2026-11-27 11:00:00", source=SOURCE)  # fmt: skip


# ---- the codes a published day implies -----------------------------------------------------------------------
@pytest.mark.parametrize("sky", ["雷阵雨", "雨夹雪", "中雪", "阵雨", "Light rain", "Thundershower", "Sleet", "drizzle"])
def test_wet_wording_in_either_language_is_rain(sky):
    assert forecast_codes(_forecast(sky), evening=False, hot_c=32, cold_c=5) == ["rain"]


@pytest.mark.parametrize("sky", ["晴", "多云", "阴", "霾", "Sunny", "Overcast"])
def test_a_dry_day_implies_nothing(sky):
    assert forecast_codes(_forecast(sky), evening=False, hot_c=32, cold_c=5) == []


def test_the_night_counts_only_when_the_outing_runs_into_the_evening():
    turning = _forecast("多云", night="小雨")
    assert forecast_codes(turning, evening=False, hot_c=32, cold_c=5) == []
    assert forecast_codes(turning, evening=True, hot_c=32, cold_c=5) == ["rain"]


def test_hot_and_cold_come_from_the_day_s_high_against_the_thresholds():
    assert forecast_codes(_forecast("晴", high=35, low=27), evening=False, hot_c=32, cold_c=5) == ["hot"]
    assert forecast_codes(_forecast("晴", high=30, low=22), evening=False, hot_c=32, cold_c=5) == []
    assert forecast_codes(_forecast("晴", high=30, low=22), evening=False, hot_c=29, cold_c=5) == ["hot"]
    assert forecast_codes(_forecast("小雪", high=-2, low=-8), evening=False, hot_c=32, cold_c=5) == ["rain", "cold"]


# ---- read_weather: each status, and nothing claimed without a forecast --------------------------------------
class HandWritten:
    """A weather service of our own: the days it publishes, or a failure; it counts the calls."""

    name = "handwritten"

    def __init__(self, days: list[DayForecast] | None = None, *, fail: bool = False) -> None:
        self.days, self.fail, self.calls = days or [], fail, 0

    def weather_forecast(self, city: str) -> list[DayForecast]:
        self.calls += 1
        if self.fail:
            raise ProviderUnavailable("the weather service did not answer", details={"service": "weather"})
        return list(self.days)


def _services(region: str = "shanghai", weather: HandWritten | None = None) -> MapServices:
    offline = OfflineProvider(load_region(region))
    return MapServices(geocoder=offline, router=offline, weather=weather, region=offline.region)


def _published(d: date, sky: str) -> DayForecast:
    return DayForecast(adcode="310000", date=d, day_weather=sky, night_weather=sky, day_temp_c=13, night_temp_c=9,
                       report_time="2026-11-27 11:00:00", source=SOURCE)  # fmt: skip


def _read(services: MapServices, query: WeatherQuery = AFTERNOON, **settings) -> WeatherReading:
    return read_weather(query, provider=services, breakers=HalfDayBreakers(), settings=Settings(**settings))


def test_offline_has_no_weather_service_and_claims_nothing():
    reading = _read(_services())
    assert (reading.status, reading.forecast, reading.codes) == ("no_service", None, [])


def test_a_region_without_an_area_code_is_not_covered_and_nothing_is_asked():
    service = HandWritten([_published(SATURDAY, "小雨")])
    reading = _read(_services("helsinki", service))
    assert (reading.status, reading.codes, service.calls) == ("not_covered", [], 0)


def test_a_day_past_the_published_ones_is_not_published():
    service = HandWritten([_published(date(2026, 11, 27), "小雨")])  # today only
    reading = _read(_services(weather=service))
    assert (reading.status, reading.forecast, reading.codes, service.calls) == ("not_published", None, [], 1)


def test_a_published_day_is_read_with_its_figures_source_and_issue_time():
    reading = _read(_services(weather=HandWritten([_published(SATURDAY, "中雨")])))
    assert reading.status == "forecast" and reading.codes == ["rain"]
    assert reading.forecast is not None
    assert (reading.forecast.day_weather, reading.forecast.day_temp_c, reading.forecast.night_temp_c) == ("中雨", 13, 9)
    assert (reading.forecast.source, reading.forecast.report_time) == (SOURCE, "2026-11-27 11:00:00")


class NeverSent(HandWritten):
    def weather_forecast(self, city: str) -> list[DayForecast]:
        self.calls += 1
        raise ProviderNotRequested("the plan's time for providers ran out", details={"service": "weather"})


def test_failures_count_against_the_weather_breaker_but_a_call_never_sent_does_not():
    breakers, settings = HalfDayBreakers(), Settings(halfday_breaker_weather_fail_max=2)
    failing, unsent = _services(weather=HandWritten(fail=True)), _services(weather=NeverSent())
    breaker = weather_breaker(breakers, failing, settings=settings)  # as the product makes it: what counts, its own
    read = lambda services: read_weather(AFTERNOON, provider=services, breakers=breakers, settings=settings)  # noqa: E731
    assert read(failing).status == "failed" and breaker.failures == 1
    assert read(unsent).status == "not_asked" and breaker.failures == 1  # not asked: no failure of the service
    assert read(failing).status == "failed" and breaker.state == "open"
    assert read(failing).status == "breaker_open" and failing.weather_service.calls == 2


def test_a_call_never_sent_is_said_as_not_asked_never_as_the_service_failing():
    reading = _read(_services(weather=NeverSent()))
    assert (reading.status, reading.cause, reading.codes, reading.forecast) == ("not_asked", None, [], None)
    assert weather_sentence(reading, {}, "en") == (
        "The weather forecast was not asked: the plan's time for outside services had run out, so the plan makes no "
        "weather claims."
    )
    assert "失败" not in (weather_sentence(reading, {}, "zh") or "") and "用完" in (
        weather_sentence(reading, {}, "zh") or ""
    )


class NoSuchArea(HandWritten):
    def weather_forecast(self, city: str) -> list[DayForecast]:
        self.calls += 1
        raise ProviderError(f"AMap publishes no forecast for city '{city}'", code="WEATHER_CITY_UNKNOWN")


def test_a_service_that_knows_no_such_area_leaves_the_region_uncovered_and_its_breaker_closed():
    breakers, settings = HalfDayBreakers(), Settings(halfday_breaker_weather_fail_max=1)
    services = _services(weather=NoSuchArea())
    reading = read_weather(AFTERNOON, provider=services, breakers=breakers, settings=settings)
    assert (reading.status, reading.cause) == ("not_covered", None)
    assert weather_breaker(breakers, services, settings=settings).state == "closed"


def test_a_day_listed_without_sky_or_temperatures_is_no_forecast():
    bare = DayForecast(adcode="310000", date=SATURDAY, report_time="2026-11-27 11:00:00", source=SOURCE)
    reading = _read(_services(weather=HandWritten([bare])))
    assert (reading.status, reading.forecast, reading.codes) == ("not_published", None, [])
    night_only = bare.model_copy(update={"night_weather": "小雨"})  # says nothing of an afternoon, but of an evening
    assert _read(_services(weather=HandWritten([night_only]))).status == "not_published"
    evening = _read(_services(weather=HandWritten([night_only])), EVENING)
    assert (evening.status, evening.codes) == ("forecast", ["rain"])
    assert "小雨" in (weather_sentence(evening, {}, "zh") or "") and "light rain" in (
        weather_sentence(evening, {}, "en") or ""
    )


def test_a_reading_claims_a_forecast_only_with_its_published_day():
    with pytest.raises(ValueError):
        WeatherReading(status="forecast", date=SATURDAY)
    with pytest.raises(ValueError):
        WeatherReading(status="failed", date=SATURDAY, forecast=_forecast("晴"))


def test_a_failing_service_is_failed_with_its_cause_and_no_codes():
    reading = _read(_services(weather=HandWritten(fail=True)))
    assert (reading.status, reading.cause, reading.codes, reading.forecast) == ("failed", "unavailable", [], None)


# ---- the profile follows the forecast, never over the goal's words ------------------------------------------
def _profile(reading: WeatherReading | None, **constraints):
    g = goal(preferences=["park", "outdoor"], **constraints)
    return analyze_user_profile(ProfileInput(goal=g, memory=Memory(user_id="u"), today=NOW.date(), weather=reading))


def _reading(sky: str, codes: list[str]) -> WeatherReading:
    return WeatherReading(status="forecast", date=SATURDAY, forecast=_forecast(sky), codes=codes)


def test_a_rainy_forecast_keeps_the_profile_indoors_and_says_it_was_the_forecast():
    profile = _profile(_reading("小雨", ["rain"]))
    assert profile.indoor_only is True and profile.constraints.weather == ["rain"]
    assert profile.weather_from == {"rain": "forecast"}


def test_a_sunny_forecast_leaves_the_profile_as_the_goal_made_it():
    profile = _profile(_reading("晴", []))
    assert profile.indoor_only is False and profile.constraints.weather == [] and profile.weather_from == {}
    assert profile.model_dump(exclude={"weather"}) == _profile(None).model_dump(exclude={"weather"})


def test_the_goal_s_own_weather_words_win_over_the_forecast():
    profile = _profile(_reading("小雨", ["rain"]), weather=["hot"])  # the person expects heat: their words stand
    assert profile.constraints.weather == ["hot"] and profile.weather_from == {"hot": "goal"}
    assert profile.indoor_only is False


def test_without_a_forecast_the_profile_adds_no_weather():
    for status in ("no_service", "failed", "breaker_open", "not_published"):
        profile = _profile(WeatherReading(status=status, date=SATURDAY))
        assert profile.constraints.weather == [] and profile.indoor_only is False


# ---- through the planner on the AMap provider, against the stand-in's hand-written forecast ----------------
OUTDOOR_GOAL = "周六下午一点到五点去公园和江边散散步，拍拍照"
RAINY = [CastDay(day="小雨", night="中雨", high=12, low=8)] * 4
SUNNY = [CastDay(day="晴", night="晴", high=19, low=11)] * 4


def _plan_on_amap(tmp_path, forecast, goal_text=OUTDOOR_GOAL):
    with AMapLimitedStandIn(forecast=forecast, now=lambda: NOW) as amap:
        settings = amap_settings(amap.base_url, db_url=f"sqlite:///{tmp_path / 'w.db'}", cache_dir=None,
                                 halfday_provider_budget_s=60.0, http_timeout_s=30.0)  # fmt: skip
        planner = planner_on(make_provider("amap", settings=settings).for_request(), settings)
        result, events = planner.plan(HalfDayRequest(goal=goal_text, now=NOW, on_degraded="continue"))
        weather_calls = amap.requests.count("/v3/weather/weatherInfo")
    assert result is not None, events[-1]
    return result, weather_calls


def _outdoor_only(result) -> list[str]:
    pack = load_region("shanghai")
    out = []
    for plan in result.plans:
        for step in plan.steps:
            tags = set(pack.place_by_id(step.place_id).tags)
            if "outdoor" in tags and not ({"indoor", "rainy_day_ok"} & tags):
                out.append(step.place_id)
    return out


def test_a_rainy_forecast_turns_an_outdoor_goal_indoor_and_a_sunny_one_does_not(tmp_path):
    rainy, asked = _plan_on_amap(tmp_path / "rain", RAINY)
    assert asked == 1  # one call a plan
    assert rainy.profile.weather is not None and rainy.profile.weather.status == "forecast"
    assert rainy.profile.indoor_only and rainy.profile.weather_from == {"rain": "forecast"}
    assert "indoor" in rainy.relaxed or _outdoor_only(rainy) == []
    sunny, _ = _plan_on_amap(tmp_path / "sun", SUNNY)
    assert not sunny.profile.indoor_only and sunny.profile.constraints.weather == []
    assert _outdoor_only(sunny)  # the walk by the river and in the park stays outdoors
    assert not any(r.code == "OUTDOOR_WEATHER" for p in sunny.plans for r in p.risks)


def test_the_plan_says_the_forecast_it_used_in_both_languages(tmp_path):
    rainy, _ = _plan_on_amap(tmp_path, RAINY)
    zh = weather_sentence(rainy.profile.weather, rainy.profile.weather_from, "zh")
    en = weather_sentence(rainy.profile.weather, rainy.profile.weather_from, "en")
    assert zh is not None and "高德" in zh and "小雨" in zh and "8～12°C" in zh and "室内" in zh
    assert en is not None and "AMap" in en and "light rain" in en and "8-12 °C" in en and "indoor places first" in en
    assert "Sat 28 Nov" in en and "issued Fri 27 Nov 08:00" in en


# ---- offline, mocked: not checked, said so in words ---------------------------------------------------------
def test_offline_plans_say_the_weather_was_not_checked_in_either_language(planner):
    from core.app.halfday import worded

    planner.registry.replace("decompose_goal", lambda _inp: goal(preferences=["park", "museum"]))
    result, events = planner.plan(HalfDayRequest(goal="test goal", now=NOW))
    assert result is not None and result.profile.weather is not None
    assert (result.profile.weather.status, result.profile.weather.codes) == ("no_service", [])
    zh, en = (worded(events[-1], lang).data.words.weather for lang in ("zh", "en"))
    assert zh == "未查询天气：当前地图服务没有天气预报，行程不作任何天气判断。"
    assert (
        en
        == "The weather was not checked: this map service has no weather forecast, so the plan makes no weather claims."
    )
    observed = [e.data for e in events if e.type == "observation" and getattr(e.data, "tool", "") == "check_weather"]
    assert [(o.facts.kind, o.facts.status) for o in observed] == [("weather", "no_service")]


def test_the_mock_checks_nothing_and_claims_nothing(settings):
    mocked = planner_on(make_provider("offline", region="shanghai", settings=settings),
                        settings.model_copy(update={"halfday_mock_tools": ["check_weather"]}))  # fmt: skip
    mocked.registry.replace("decompose_goal", lambda _inp: goal(preferences=["park"]))
    result, events = mocked.plan(HalfDayRequest(goal="test goal", now=NOW))
    assert result is not None and result.profile.weather is not None
    assert result.profile.weather.status == "not_checked" and result.profile.constraints.weather == []
    calls = [e.data for e in events if e.type == "skill_call" and e.data.tool == "check_weather"]
    assert [c.mocked for c in calls] == [True]


def test_every_reading_has_words_in_both_languages_without_codes_or_none():
    from core.i18n import LANGS
    from core.models.halfday.weather import WeatherStatus
    from core.words.halfday_weather import SKY

    forecast = _forecast("雷阵雨", night="晴", high=27, low=19)
    for status in WeatherStatus.__args__:
        reading = WeatherReading(
            status=status, date=SATURDAY, forecast=forecast if status == "forecast" else None,
            codes=["rain"] if status == "forecast" else [], cause="timeout" if status == "failed" else None,
        )  # fmt: skip
        for lang in LANGS:
            said = weather_sentence(reading, {"rain": "forecast"} if status == "forecast" else {}, lang)
            assert said and "None" not in said and status not in said and "halfday." not in said, (status, lang, said)
    for lang in LANGS:
        for published in SKY:
            worded_sky = weather_sentence(_reading(published, []), {}, lang)
            assert worded_sky is not None and "halfday." not in worded_sky
    assert "thundery showers" in (weather_sentence(_reading("雷阵雨", ["rain"]), {"rain": "forecast"}, "en") or "")


HOT = [CastDay(day="晴", night="晴", high=36, low=28)] * 4


def _tagged_outdoor(result) -> set[str]:
    pack = load_region("shanghai")
    return {s.place_id for p in result.plans for s in p.steps if "outdoor" in pack.place_by_id(s.place_id).tags}


def test_a_hot_forecast_marks_each_outdoor_step_at_risk(tmp_path):
    hot, _ = _plan_on_amap(tmp_path, HOT)
    assert hot.profile.weather_from == {"hot": "forecast"} and not hot.profile.indoor_only
    assert hot.profile.preferences.get("indoor") == 0.5  # indoor places weigh more in the heat
    at_risk = {r.place_id for p in hot.plans for r in p.risks if r.code == "OUTDOOR_WEATHER"}
    assert at_risk and at_risk == _tagged_outdoor(hot)


def test_through_the_planner_the_goal_s_own_weather_wins_over_a_rainy_forecast(tmp_path):
    said_cold, _ = _plan_on_amap(
        tmp_path, RAINY, goal_text="Saturday 1pm to 5pm, a walk in a park and by the river; it will be chilly"
    )
    assert said_cold.profile.constraints.weather == ["cold"] and said_cold.profile.weather_from == {"cold": "goal"}
    assert not said_cold.profile.indoor_only  # the forecast's rain was not added over the person's words
    en = weather_sentence(said_cold.profile.weather, said_cold.profile.weather_from, "en")
    assert en is not None and "light rain" in en and "your own words on the weather (cold) are followed" in en


# ---- the intro claims shelter only as the stops show it ----------------------------------------------------
def _stops_outdoors(plan) -> set[str]:
    """The plan's stops with no shelter, read from the pack's own tags (not from the plan's facts)."""
    pack = load_region("shanghai")
    return {s.place_id for s in plan.steps if _outdoor_only_tags(set(pack.place_by_id(s.place_id).tags))}


def _outdoor_only_tags(tags: set[str]) -> bool:
    return "outdoor" in tags and not ({"indoor", "rainy_day_ok"} & tags)


def test_a_rainy_forecast_s_plans_say_every_stop_is_indoors_or_name_the_stops_that_are_not(tmp_path):
    rainy, _ = _plan_on_amap(tmp_path, RAINY)
    for plan in rainy.plans:
        en, zh = intro_sentence(plan, "en"), intro_sentence(plan, "zh")
        outdoors = _stops_outdoors(plan)
        if not outdoors:
            assert en.endswith("Every stop is indoors: the forecast says rain.")
            assert zh.endswith("天气预报有下雨,每一站都在室内。")
        else:  # the indoor filter was relaxed: the stops still outdoors are named, and no "every stop" is claimed
            names = [s.name_en or s.name_zh for s in plan.steps if s.place_id in outdoors]
            assert all(n in en for n in names) and "outdoors although rain is expected" in en
            assert "Every stop is indoors" not in en and "每一站都在室内" not in zh


def test_heat_or_cold_named_in_the_goal_claims_no_shelter_for_a_plan_with_a_walk_outdoors(tmp_path):
    said_cold, _ = _plan_on_amap(
        tmp_path, RAINY, goal_text="Saturday 1pm to 5pm, a walk in a park and by the river; it will be chilly"
    )
    walks = [p for p in said_cold.plans if _stops_outdoors(p)]
    assert walks  # the park and the river stay outdoors: the cold only makes indoor places weigh more
    for plan in walks:
        assert "indoors" not in intro_sentence(plan, "en") and "室内" not in intro_sentence(plan, "zh")
    for plan in said_cold.plans:
        if not _stops_outdoors(plan):
            assert intro_sentence(plan, "en").endswith("Every stop is indoors, for the cold.")
