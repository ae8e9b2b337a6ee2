"""Weather answers: picking one day out of a published multi-day forecast."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from core.errors import ProviderError
from core.geo.base import DayForecast


def pick_forecast(days: Sequence[DayForecast], city: str, day: date, *, service: str = "AMap") -> DayForecast | None:
    """``day`` from a parsed forecast answer for ``city`` (None: not among the published days).

    Raises ProviderError when nothing is published for ``city``, or when the answer covers several areas
    and none has ``city`` as its adcode (a name such as 中山 matches more than one city)."""
    if not days:
        raise ProviderError(
            f"{service} publishes no forecast for city '{city}'",
            code="WEATHER_CITY_UNKNOWN",
            details={"service": "weather"},
        )
    areas = {f.adcode for f in days}
    if len(areas) > 1:
        days = [f for f in days if f.adcode == str(city).strip()]
        if not days:
            raise ProviderError(
                f"'{city}' matches {len(areas)} areas in {service}'s weather service; give an adcode",
                code="WEATHER_CITY_AMBIGUOUS",
                details={"service": "weather"},
            )
    return next((f for f in days if f.date == day), None)
