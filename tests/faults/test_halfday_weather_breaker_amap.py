"""The half-day weather breaker counts what happens on the path the product uses (issue 31): stage 3 asks the AMap
provider's weather service for the outing's day; the AMap stand-in (a real HTTP server) fails its weather endpoint
as AMap's engine fails, each plan's failure counts, the breaker opens at ``halfday_breaker_weather_fail_max`` and
the next plans answer ``breaker_open`` without asking AMap (the stand-in's requests are counted), then, after the
cool-down on the breakers' injected clock, one probe goes through: a failing one opens it again, a good one closes
it. The plans go through the half-day use case, as every face's do, and say in words that the weather was not
checked, as a warning."""

from __future__ import annotations

import pytest

from core.app import AppServices
from core.app.halfday import plan_half_day, worded
from core.halfday.breaker import HalfDayBreakers
from core.models.halfday.plans import HalfDayRequest
from standins.amap import WEATHER_PATH, AMapLimitedStandIn
from tests.halfday.conftest import NOW
from tests.support.amap_settings import amap_settings

GOAL = "Saturday 1pm to 5pm: a museum and a walk in a garden, then tea"
RESET_S = 120.0


class Ticks:
    """The breakers' clock: it moves only when the test moves it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _plan(services: AppServices):
    events = list(plan_half_day(services.context(user="dora", region="shanghai"), HalfDayRequest(
        goal=GOAL, now=NOW, on_degraded="continue")))  # fmt: skip
    done = events[-1]
    assert done.data.type == "plans", done.data
    return done


def _weather_asked(amap: AMapLimitedStandIn) -> int:
    return amap.requests.count(WEATHER_PATH)


@pytest.mark.parametrize("fail_max", [2, 3])
def test_weather_failures_open_the_half_day_weather_breaker_which_then_asks_nothing_until_its_cool_down(
    tmp_path, fail_max
):
    ticks = Ticks()
    with AMapLimitedStandIn(failing={WEATHER_PATH}, now=lambda: NOW) as amap:
        settings = amap_settings(
            amap.base_url,
            db_url=f"sqlite:///{tmp_path / 'weather.db'}",
            cache_dir=None,
            halfday_breaker_weather_fail_max=fail_max,
            halfday_breaker_weather_reset_s=RESET_S,
            breaker_fail_max=100,  # the provider's own breaker stays out of the way: the half-day one is tested
            halfday_provider_budget_s=60.0,
            http_timeout_s=30.0,
        )
        services = AppServices(settings)
        services.halfday_breakers = HalfDayBreakers(clock=ticks)
        for plan in range(1, fail_max + 1):
            asked = _weather_asked(amap)
            reading = _plan(services).data.result.profile.weather
            breaker = services.halfday_breakers.breaker("weather", "amap@shanghai", settings=settings)  # the plan's
            assert _weather_asked(amap) == asked + 1  # one call a plan, and it failed
            assert (reading.status, reading.cause, reading.codes) == ("failed", "unavailable", [])
            assert (breaker.state, breaker.failures) == (("open", fail_max) if plan == fail_max else ("closed", plan))

        asked = _weather_asked(amap)
        done = _plan(services)
        assert _weather_asked(amap) == asked  # the open breaker kept the plan off AMap's weather
        assert done.data.result.profile.weather.status == "breaker_open"
        assert done.data.result.profile.constraints.weather == []  # no forecast: no weather claimed
        en, zh = worded(done, "en").data.words.weather, worded(done, "zh").data.words.weather
        assert en is not None and "not asked" in en and "no weather claims" in en
        assert zh is not None and "接连出错" in zh and "不作任何天气判断" in zh

        ticks.now += RESET_S - 1  # still cooling down
        assert _plan(services).data.result.profile.weather.status == "breaker_open"
        assert _weather_asked(amap) == asked

        ticks.now += 1  # the cool-down is over: one probe, which fails, and the breaker opens again
        assert _plan(services).data.result.profile.weather.status == "failed"
        assert _weather_asked(amap) == asked + 1 and breaker.state == "open"
        assert _plan(services).data.result.profile.weather.status == "breaker_open"
        assert _weather_asked(amap) == asked + 1

        amap.failing.clear()  # AMap's weather is back
        ticks.now += RESET_S
        reading = _plan(services).data.result.profile.weather
        assert (
            reading.status == "forecast"
            and reading.forecast is not None
            and reading.forecast.source.startswith("amap:")
        )
        assert (breaker.state, breaker.failures) == ("closed", 0)
        assert _weather_asked(amap) == asked + 2
