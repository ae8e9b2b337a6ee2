"""The half-day planner's weather reading (stage 3, ``check_weather``): what the provider's weather service published
for the outing's day, or why there is nothing, and the weather codes the forecast implies. Codes and facts only: the
words are core/words/halfday_weather.py's."""

from __future__ import annotations

from datetime import date, time
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from core.models.halfday.goal import WeatherCode

#: forecast: a published day; no_service: the provider has no weather service (offline); not_covered: the region has
#: no area the service knows (AMap: an adcode, China only); not_published: the day is not among the published ones;
#: failed: the service failed (it counts against the weather breaker); breaker_open: not asked, the breaker is open;
#: not_asked: the plan's time for outside services ran out before it (nothing sent, nothing failed); not_checked: the
#: tool's mock ran (nothing asked)
WeatherStatus = Literal[
    "forecast", "no_service", "not_covered", "not_published", "failed", "breaker_open", "not_asked", "not_checked"
]
#: where a weather code of the profile came from: the person's words, or the forecast
WeatherOrigin = Literal["goal", "forecast"]


class WeatherQuery(BaseModel):
    """The outing's day and hours on the region's clock (the night's weather counts when it runs into the evening)."""

    model_config = ConfigDict(extra="forbid")

    date: date
    start: time
    end: time


class Forecast(BaseModel):
    """One published day, as the provider published it (core.geo.base.DayForecast: nothing derived)."""

    model_config = ConfigDict(extra="ignore")

    date: date
    city: str | None = None
    adcode: str | None = None
    day_weather: str | None = None
    night_weather: str | None = None
    day_temp_c: float | None = None
    night_temp_c: float | None = None
    report_time: str | None = Field(default=None, description="when the provider issued it (local time, as published)")
    source: str = Field(description="who published it, e.g. amap:/v3/weather/weatherInfo")


class WeatherReading(BaseModel):
    """What stage 3 knows of the outing's weather: a status, the published day when there is one, the codes it
    implies (rain from its wording, hot or cold from its high against the settings' thresholds) and, when the service
    failed, how (the error's code)."""

    model_config = ConfigDict(extra="forbid")

    status: WeatherStatus
    date: date
    forecast: Forecast | None = None
    codes: list[WeatherCode] = Field(default_factory=list, description="what the forecast implies (none without one)")
    cause: str | None = Field(
        default=None,
        description="failed: how, as core.geo.retry_policy.cause_code names it (timeout, unavailable, ...)",
    )
    evening: bool = Field(default=False, description="the outing runs into the evening: the night's weather counts")

    @model_validator(mode="after")
    def _forecast_with_its_status(self) -> WeatherReading:
        """A forecast's reading has its published day; no other has one (its words would claim what was not read)."""
        if (self.status == "forecast") != (self.forecast is not None):
            raise ValueError(
                f"a reading of status {self.status!r} {'needs' if self.status == 'forecast' else 'has no'} forecast"
            )
        return self
