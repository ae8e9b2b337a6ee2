"""The words of a conditional request's answer (core/agent/flows/conditional.py): the condition, each branch as
evaluated on the planned day (or why it was not), and the branch taken with why."""

from __future__ import annotations

import re
from typing import Any

from core.i18n import Lang, t
from core.models.planned_day import PlannedDay
from core.models.region import RegionPack
from core.words.agent import day_text

#: a Chinese condition and the words of its opposite: the branch that keeps the plan is said as what it means
_ZH_OPPOSITES = [
    (re.compile(r"^赶不上"), "赶得上"),
    (re.compile(r"^来不及"), "来得及"),
    (re.compile(r"^(没票|没有票)"), "有票"),
    (re.compile(r"^(没房|没有房)"), "有房"),
    (re.compile(r"^满了"), "没满"),
    (re.compile(r"^关门"), "没关门"),
    (re.compile(r"^太"), "不太"),
    (re.compile(r"^(下雨|下雪|堵车|排队)"), r"不\1"),
]


def negated_condition(cond: str, lang: Lang) -> str:
    """The condition of the branch that keeps the plan: 赶不上日落 -> 赶得上日落, 下雨 -> 不下雨, "it rains" -> "not: it
    rains"; a condition of no known opposite is said as its negation."""
    if lang == "zh":
        for rx, opposite in _ZH_OPPOSITES:
            if rx.search(cond):
                return rx.sub(opposite, cond, count=1)
    return t("agent.conditional.not", lang, condition=cond)


def target_name(br: dict[str, Any], pack: RegionPack | None, lang: Lang) -> str:
    """The branch's place as the reader names it: the pack's name in ``lang`` (its local name where it has none in
    ``lang``), else the words the message said."""
    place = pack.place_by_id(br["place_id"]) if pack is not None and br.get("place_id") else None
    if place is None:
        return str(br.get("target") or "")
    return (place.name_en or place.name_zh) if lang == "en" else (place.name_zh or place.name_en)


def branch_lines(
    cond: str, branches: list[dict[str, Any]], lang: Lang, *, city: str, pack: RegionPack | None = None
) -> list[str]:
    """A conditional request's answer: the condition, then each branch as evaluated (or why it was not), its place
    named in ``lang``."""
    lines = [t("agent.conditional.condition", lang, condition=cond)]
    for br in branches:
        head = {"branch": br["branch"], "condition": br["condition"]}
        if br["evaluation"] == "EVALUATED":
            verdict = t("agent.conditional.feasible" if br["feasible"] else "agent.conditional.not_feasible", lang)
            sunset = t("agent.conditional.sunset", lang, sunset=br["sunset"]) if br.get("sunset") else ""
            lines.append(t("agent.conditional.evaluated", lang, **head, target=target_name(br, pack, lang), eta=br["eta"],
                           sunset=sunset, verdict=verdict))  # fmt: skip
        elif br["evaluation"] in ("EVALUATED_WEATHER", "WEATHER_NOT_KNOWN"):
            lines.append(t("agent.conditional.keep_plan", lang, **head))
        elif br["evaluation"] == "REGION_NOT_COVERED":  # a place outside the region: never planned (scope)
            lines.append(t("agent.conditional.region_not_covered", lang, **head, named=br["named"], city=city))
        elif br["evaluation"] == "NOT_IN_KNOWLEDGE_BASE":
            lines.append(t("agent.conditional.not_in_kb", lang, **head, target=br["target"], city=city))
        elif br["evaluation"] == "NEEDS_TARGET_PLACE":
            lines.append(t("agent.conditional.needs_place", lang, **head, sunset=br.get("sunset")))
        else:
            lines.append(t("agent.conditional.not_computed", lang, **head))
    return lines


def branch_taken_sentence(
    a: dict[str, Any], b: dict[str, Any], day: PlannedDay, lang: Lang, *, pack: RegionPack | None = None
) -> str:
    """Which branch the planned day's facts choose, and why; or that no fact settles it, and what is not known."""
    when = day_text(day.day, lang) if not day.today else t("agent.conditional.today", lang)
    if a["evaluation"] == "EVALUATED_WEATHER":
        key = "agent.conditional.taken_wet" if a["weather_wet"] else "agent.conditional.taken_dry"
        return t(key, lang, day=when, weather=a.get("weather") or "", source=a.get("weather_source") or "",
                 branch="B" if a["weather_wet"] else "A")  # fmt: skip
    if a["evaluation"] == "WEATHER_NOT_KNOWN":
        return t("agent.conditional.weather_not_known", lang, day=when)
    if a["evaluation"] == "EVALUATED" and a.get("sunset"):
        leave_key = "agent.conditional.leave_now" if day.start_source == "now" else "agent.conditional.leave_at"
        leave = t(leave_key, lang, leave=a.get("leave") or day.leave.strftime("%H:%M"))
        facts = {"day": when, "sunset": a["sunset"], "eta": a["eta"], "target": target_name(a, pack, lang),
                 "leave": leave, "end": a.get("day_end") or day.end.strftime("%H:%M")}  # fmt: skip
        if a["feasible"]:
            return t("agent.conditional.taken_in_time", lang, **facts)
        return t("agent.conditional.taken_missed", lang, **facts)
    return t("agent.conditional.undecided", lang, day=when)


__all__ = ["branch_lines", "branch_taken_sentence", "negated_condition", "target_name"]
