"""The day a conditional request is about (issue 31, s42 §3): "明天去外滩，如果赶不上日落就改去豫园" is judged on
tomorrow's plan, not on today's clock. The day is the one the message names (today when it names none); on a later
day the plan leaves at the day's start (the window the message states, else the agents' default 10:00) and runs to
its end; today it leaves now."""

from __future__ import annotations

import re
from datetime import datetime, time

from core.agent import when
from core.agent.features import normalize_message
from core.agent.trip_request import DEFAULT_DAY_END, DEFAULT_DAY_START
from core.models.planned_day import PlannedDay
from core.phrases.clock import find_clocks
from core.phrases.day_window import find_day_window
from core.phrases.weather_words import WET

#: a condition about the weather: judged on the day's forecast
WEATHER_CONDITION = re.compile(
    r"下雨|下雪|雨天|雨大|暴雨|雷阵雨|天气不好|天气差|变天|\brain(s|y|ing)?\b|\bsnow(s|ing)?\b|\bstorm"
    r"|\bbad weather\b|\bweather (is|turns|gets) (bad|wet)\b",
    re.I,
)


def planned_day(text: str, *, now: datetime, plan_part: str | None = None) -> PlannedDay:
    """The day ``text`` plans and its times (a date that does not exist is an InputError, as for any plan). The
    plan leaves at the start the message's window states, else at the first settled time said in ``plan_part`` (the
    words of the plan, outside the condition: "明天下午5点从人民广场出发去外滩"), else at the default start."""
    day = when.resolve_day(text, now=now)
    window = find_day_window(normalize_message(text))
    start, end, source = DEFAULT_DAY_START, DEFAULT_DAY_END, "default"
    if window is not None and window.problem(default_start=DEFAULT_DAY_START, default_end=DEFAULT_DAY_END) is None:
        said_start, said_end = window.resolved(default_start=DEFAULT_DAY_START, default_end=DEFAULT_DAY_END)
        assert said_start is not None and said_end is not None, "a window without a problem has both ends"
        start, end = said_start, min(said_end, 23 * 60 + 59)
        source = "message" if window.start else "default"
    if source == "default" and plan_part:
        clock = next((c for c in find_clocks(normalize_message(plan_part)) if c.hhmm is not None), None)
        if clock is not None and clock.hour is not None and clock.hour * 60 + clock.minute < end:
            start, source = clock.hour * 60 + clock.minute, "message"
    zone = now.tzinfo

    def at(minutes: int) -> datetime:
        return datetime.combine(day, time(minutes // 60, minutes % 60), tzinfo=zone)

    if day <= now.date():
        return PlannedDay(day=day, leave=max(now, at(start)) if source == "message" else now, end=at(end),
                          today=True, start_source="message" if source == "message" else "now")  # fmt: skip
    return PlannedDay(day=day, leave=at(start), end=at(end), today=False, start_source=source)


def is_wet(forecast: dict[str, object] | None) -> bool | None:
    """Whether a published day is wet (its day or night wording); None when it says no weather."""
    if not forecast:
        return None
    said = [str(forecast.get(k) or "") for k in ("day_weather", "night_weather")]
    if not any(said):
        return None
    return any(WET.search(w) for w in said)


__all__ = ["WEATHER_CONDITION", "PlannedDay", "is_wet", "planned_day"]
