"""Stage 3's weather reading in words (core/models/halfday/weather.py): the forecast the plan used, with its figures,
its source and when it was issued, and what it changed; or that the weather was not checked, and why. Nothing is
said of the weather without a published forecast."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from core.i18n import Lang, t
from core.models.halfday.weather import Forecast, WeatherReading
from core.words.halfday import CAUSES, SOURCES, WEATHER, Keys, day_label, join, word

#: the readings that are a failure to warn of (the others are said as a plain note)
WARN = frozenset({"failed", "breaker_open"})
#: why the weather was not checked, by status
NOT_CHECKED: Keys = {
    "no_service": "halfday.weather_check.no_service",
    "not_covered": "halfday.weather_check.not_covered",
    "not_published": "halfday.weather_check.not_published",
    "failed": "halfday.weather_check.failed",
    "breaker_open": "halfday.weather_check.breaker_open",
    "not_asked": "halfday.weather_check.not_asked",
    "not_checked": "halfday.weather_check.not_checked",
}
#: AMap's published sky wordings (its weather table), in English; a wording not listed is shown as published
SKY: Keys = {
    "晴": "halfday.sky.clear",
    "少云": "halfday.sky.few_clouds",
    "晴间多云": "halfday.sky.partly_cloudy",
    "多云": "halfday.sky.cloudy",
    "阴": "halfday.sky.overcast",
    "阵雨": "halfday.sky.showers",
    "雷阵雨": "halfday.sky.thunder_showers",
    "小雨": "halfday.sky.light_rain",
    "中雨": "halfday.sky.moderate_rain",
    "大雨": "halfday.sky.heavy_rain",
    "暴雨": "halfday.sky.rainstorm",
    "毛毛雨/细雨": "halfday.sky.drizzle",
    "雨": "halfday.sky.rain",
    "雨夹雪": "halfday.sky.sleet",
    "小雪": "halfday.sky.light_snow",
    "中雪": "halfday.sky.moderate_snow",
    "大雪": "halfday.sky.heavy_snow",
    "雪": "halfday.sky.snow",
    "雾": "halfday.sky.fog",
    "霾": "halfday.sky.haze",
}


def weather_warns(reading: WeatherReading | None) -> bool:
    """The reading is a failure a face warns of (the service failed, or its breaker is open)."""
    return reading is not None and reading.status in WARN


def _sky(published: str, lang: Lang) -> str:
    return published if lang == "zh" else word(SKY, published, lang, fallback=published)


def _degrees(value: float) -> str:
    return f"{value:g}"


def _issued(f: Forecast, lang: Lang) -> str | None:
    """When the forecast was issued: its time, with its day when that is not the forecast's day."""
    try:
        at = datetime.fromisoformat(f.report_time or "")
    except ValueError:
        return None
    clock = at.strftime("%H:%M")
    return clock if at.date() == f.date else f"{day_label(at.date(), lang)} {clock}"


def _figures(f: Forecast, *, evening: bool, lang: Lang) -> str:
    """The sky as published (the night's too when the outing runs into the evening and it differs) and the day's
    low and high."""
    parts = []
    if f.day_weather:
        sky = _sky(f.day_weather, lang)
        if evening and f.night_weather and f.night_weather != f.day_weather:
            sky = t("halfday.weather_then", lang, day=sky, night=_sky(f.night_weather, lang))
        parts.append(sky)
    elif evening and f.night_weather:  # only the night published: the evening's sky
        parts.append(_sky(f.night_weather, lang))
    low, high = f.night_temp_c, f.day_temp_c
    if low is not None and high is not None:
        parts.append(t("halfday.weather_range", lang, low=_degrees(min(low, high)), high=_degrees(max(low, high))))
    elif high is not None:
        parts.append(t("halfday.weather_high", lang, high=_degrees(high)))
    return t("halfday.weather_and", lang).join(parts)


def weather_sentence(reading: WeatherReading | None, weather_from: Mapping[str, str], lang: Lang) -> str | None:
    """The weather the plan used, in words (None: no reading, a plan made without stage 3's). ``weather_from``: who
    said each weather code of the profile; the goal's own stand, and the forecast's are then left out."""
    if reading is None:
        return None
    said = [code for code, origin in weather_from.items() if origin == "goal"]
    f = reading.forecast
    if reading.status != "forecast" or f is None:
        if reading.status == "failed" and reading.cause:
            return t("halfday.weather_check.failed_cause", lang, cause=word(CAUSES, reading.cause, lang))
        return t(NOT_CHECKED[reading.status], lang, day=day_label(reading.date, lang))
    source = word(SOURCES, f.source.split(":", 1)[0], lang)
    issued = _issued(f, lang)
    key = "halfday.weather_forecast_issued" if issued else "halfday.weather_forecast"
    out = t(key, lang, day=day_label(f.date, lang), source=source, issued=issued or "",
            figures=_figures(f, evening=reading.evening, lang=lang))  # fmt: skip
    if said and reading.codes and set(reading.codes) != set(said):
        return out + t("halfday.weather_goal_kept", lang, said=join([word(WEATHER, c, lang) for c in said], lang))
    effect = next((c for c in ("rain", "hot", "cold") if c in reading.codes and not said), "none")
    return out + t(f"halfday.weather_effect.{effect}", lang)
