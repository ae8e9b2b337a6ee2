"""How a published forecast says wet weather: one reading for every planner that judges a day wet (the half-day
planner's weather, core/halfday/weather.py, and a conditional's planned day, core/agent/planned_day.py)."""

from __future__ import annotations

import re

#: wet weather as published, in Chinese (AMap's table: 雨, 雪, 雷阵雨, 冰雹, 雨夹雪, 冻雨) or English
WET = re.compile(r"雨|雪|雷|冰雹|霰|rain|shower|drizzle|snow|sleet|thunder|storm|hail", re.IGNORECASE)

__all__ = ["WET"]
