"""Stage 3, before the profile: the outing's day from the provider's weather service, behind the weather breaker
(weather.py). The mock: not checked (nothing asked, no codes)."""

from __future__ import annotations

from collections.abc import Callable

from core.config import HalfDayToolName
from core.halfday.tools import ToolDeps, ToolSpec
from core.halfday.weather import read_weather
from core.models.halfday.facts import ToolFacts, WeatherFacts
from core.models.halfday.weather import WeatherQuery, WeatherReading

NAME = HalfDayToolName.CHECK_WEATHER


def tool(deps: ToolDeps) -> ToolSpec:
    return ToolSpec(
        name=NAME,
        stage=3,
        input_model=WeatherQuery,
        output_model=WeatherReading,
        fn=_check(deps),
        mock=mock_weather,
        facts=weather_facts,
        calls_providers=True,
        retries=0,  # a failure is an answer (``failed``), counted once against the breaker; never raised
    )


def _check(deps: ToolDeps) -> Callable[[WeatherQuery], WeatherReading]:
    def check(query: WeatherQuery) -> WeatherReading:
        return read_weather(query, provider=deps.provider, breakers=deps.breakers, settings=deps.settings)

    return check


def mock_weather(query: WeatherQuery) -> WeatherReading:
    """Not checked: the mock asks no service and claims no weather."""
    return WeatherReading(status="not_checked", date=query.date)


def weather_facts(reading: WeatherReading) -> ToolFacts:
    return WeatherFacts(status=reading.status, codes=list(reading.codes), cause=reading.cause)
