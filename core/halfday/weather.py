"""Stage 3's weather (half_day_planner.md §4.2): the outing's day from the provider's weather service, asked through
the weather breaker, and the weather codes the published day implies. Nothing is invented: without a published day
there are no codes, only the status that says why.

A failure of the service (a ``ProviderError``: it did not answer, refused, or answered what cannot be read) counts
against the weather breaker of the provider's region (a call never sent, for want of the plan's time, does not); an
open breaker answers at once with ``breaker_open`` and asks nothing. The map services cache the forecast per area, so
a plan asks the service once at most.
"""

from __future__ import annotations

from datetime import time

from core.config import Settings
from core.errors import ProviderError, ProviderNotRequested
from core.geo.base import DayForecast
from core.geo.composite import MapServices
from core.geo.retry_policy import cause_code
from core.halfday.breaker import Breaker, BreakerOpen, HalfDayBreakers
from core.models.halfday.goal import WeatherCode
from core.models.halfday.weather import Forecast, WeatherQuery, WeatherReading, WeatherStatus
from core.phrases.weather_words import WET

__all__ = ["forecast_codes", "read_weather", "weather_breaker"]

#: what counts against the weather service: its own errors (timeouts and sockets arrive as ProviderUnavailable)
WEATHER_FAILURES: tuple[type[BaseException], ...] = (ProviderError, OSError, TimeoutError)
#: the outing reaches the evening from here on: the night's published weather counts too
EVENING = time(18, 0)


#: what the service answers when it knows no area by the region's code: the region is not covered, the service works
NOT_AN_AREA = frozenset({"WEATHER_CITY_UNKNOWN", "WEATHER_CITY_AMBIGUOUS"})


class _NotAsked(Exception):
    """A call the provider never sent, or one the service answered without a failure of its own (it knows no such
    area): it passes the breaker by, counted neither way."""

    def __init__(self, status: WeatherStatus) -> None:
        super().__init__(status)
        self.status = status


def weather_breaker(breakers: HalfDayBreakers, provider: MapServices, *, settings: Settings) -> Breaker:
    """The weather service's breaker in the provider's region (its own threshold and cool-down)."""
    region = f"{provider.name}@{provider.region.name}"
    return breakers.breaker("weather", region, settings=settings, counts=WEATHER_FAILURES)


def forecast_codes(forecast: Forecast, *, evening: bool, hot_c: float, cold_c: float) -> list[WeatherCode]:
    """The codes a published day implies: rain when its wording is wet (the night's too when the outing runs into
    the evening), hot when its high is at or above ``hot_c``, cold when at or below ``cold_c``."""
    said = [forecast.day_weather] + ([forecast.night_weather] if evening else [])
    codes: list[WeatherCode] = ["rain"] if any(w and WET.search(w) for w in said) else []
    high = forecast.day_temp_c
    if high is not None and high >= hot_c:
        codes.append("hot")
    elif high is not None and high <= cold_c:
        codes.append("cold")
    return codes


def read_weather(
    query: WeatherQuery, *, provider: MapServices, breakers: HalfDayBreakers, settings: Settings
) -> WeatherReading:
    """The outing's day from the provider's weather service, through the weather breaker."""
    evening = query.end > EVENING
    if not provider.has_weather:
        return WeatherReading(status="no_service", date=query.date, evening=evening)
    area = provider.region.adcode
    if not area:  # the service knows areas by their code (AMap: China's adcodes); this region has none
        return WeatherReading(status="not_covered", date=query.date, evening=evening)
    breaker = weather_breaker(breakers, provider, settings=settings)
    published: DayForecast | None
    try:
        with breaker.calling():
            try:
                published = provider.weather(area, day=query.date)
            except ProviderNotRequested as exc:  # never sent (the plan's time for providers ran out): no failure
                raise _NotAsked("not_asked") from exc
            except ProviderError as exc:
                if exc.code in NOT_AN_AREA:  # the service answered: it has no forecast for the region's code
                    raise _NotAsked("not_covered") from exc
                raise
    except _NotAsked as exc:
        return WeatherReading(status=exc.status, date=query.date, evening=evening)
    except BreakerOpen:
        return WeatherReading(status="breaker_open", date=query.date, evening=evening)
    except WEATHER_FAILURES as exc:
        return WeatherReading(status="failed", date=query.date, cause=cause_code(exc), evening=evening)
    if published is None or not _says_anything(published, evening=evening):  # a day listed with no figures says none
        return WeatherReading(status="not_published", date=query.date, evening=evening)
    forecast = Forecast.model_validate(published.model_dump())
    codes = forecast_codes(
        forecast, evening=evening, hot_c=settings.halfday_weather_hot_c, cold_c=settings.halfday_weather_cold_c
    )
    return WeatherReading(status="forecast", date=query.date, forecast=forecast, codes=codes, evening=evening)


def _says_anything(day: DayForecast, *, evening: bool) -> bool:
    """The published day has a sky or a temperature for the outing's hours."""
    return any(v is not None for v in (day.day_weather, day.day_temp_c, *((day.night_weather,) if evening else ())))
