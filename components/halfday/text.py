"""Sentences of the half-day page, built from the core's codes and facts with the catalog's words (halfday.po).

Pure functions (no Streamlit): a plan's one-sentence intro, a step's lines, risks, feasibility, the parsed goal,
the stage log's lines, the clarification and the error sentence. ``lang`` is "zh" or "en": the page's language
(components.language.current_lang), whatever language the goal was written in. Place names follow it where the
pack has them (``name_en`` / ``name_zh``); the other name is for a tooltip (``other_name``).
"""

from __future__ import annotations

import re
from datetime import date, time
from typing import Any

from components.halfday import words as w
from core.halfday.goal_models import DecomposedGoal
from core.halfday.models import HalfDayEvent, Plan, PlanStep, Risk
from core.i18n import t

_CJK = re.compile(r"[\u3400-\u9fff]")
STAGE_COUNT = 7
WEEKDAYS = ("common.weekday.mon", "common.weekday.tue", "common.weekday.wed", "common.weekday.thu",
            "common.weekday.fri", "common.weekday.sat", "common.weekday.sun")  # fmt: skip
MONTHS = ("common.month.jan", "common.month.feb", "common.month.mar", "common.month.apr", "common.month.may",
          "common.month.jun", "common.month.jul", "common.month.aug", "common.month.sep", "common.month.oct",
          "common.month.nov", "common.month.dec")  # fmt: skip


def guess_language(text: str) -> str:
    """The language a goal is written in: Chinese when it has Chinese characters."""
    return "zh" if _CJK.search(text or "") else "en"


def day_label(d: date, lang: str) -> str:
    return t("halfday.day", lang, month=t(MONTHS[d.month - 1], lang), day=d.day, weekday=t(WEEKDAYS[d.weekday()], lang))


def clock(value: time) -> str:
    return value.strftime("%H:%M")


def place_name(step: PlanStep, lang: str) -> str:
    """The step's place in ``lang`` (the Chinese name when the pack has no English one)."""
    return step.name_en if lang == "en" and step.name_en else step.name_zh


def other_name(step: PlanStep, lang: str) -> str:
    """The step's name in the other language, for a tooltip ("" when it is the same or missing)."""
    other = step.name_zh if lang == "en" else step.name_en
    return other if other and other != place_name(step, lang) else ""


def join(items: list[str], lang: str) -> str:
    """``a、b、c`` / ``a, b and c``."""
    if len(items) <= 1:
        return "".join(items)
    return t("halfday.list.separator", lang).join(items[:-1]) + t("halfday.list.last", lang) + items[-1]


def intro(plan: Plan, lang: str) -> str:
    """One sentence: what the plan is about (its theme codes: the wishes it meets, else its kinds of places) and
    its stops in order."""
    wishes = list(
        dict.fromkeys(w.theme(c, lang) for c in w.without_implied(plan.theme) if not c.startswith("category:"))
    )
    kinds = [c.split(":", 1)[1] for c in plan.theme if c.startswith("category:")]
    if wishes:
        about = t("halfday.intro.wishes", lang, themes=join(wishes[:3], lang))
    elif kinds:
        with_kinds = [w.word(w.CATEGORY_WITH, k, lang) for k in dict.fromkeys(kinds)]
        about = t("halfday.intro.kinds", lang, themes=join(with_kinds[:3], lang))
    else:
        about = t("halfday.intro.plain", lang)
    names = [place_name(s, lang) for s in plan.steps]
    key = "halfday.intro.one" if len(names) == 1 else "halfday.intro.many"
    return t(key, lang, about=about, stops=" → ".join(names), n=len(names), minutes=plan.travel_minutes)


def percent(value: float) -> str:
    return f"{round(value * 100)}%"


def feasibility_words(value: float, lang: str) -> str:
    if value >= 0.85:
        return t("halfday.feasibility.high", lang)
    if value >= 0.6:
        return t("halfday.feasibility.medium", lang)
    return t("halfday.feasibility.low", lang)


def score_words(total: float | None, lang: str) -> str:
    return t("halfday.score.points", lang, points=round((total or 0.0) * 100))


def source_words(source: str, lang: str) -> str:
    if source.startswith("offline:"):
        return w.word(w.SOURCES, "pack", lang)
    if source.startswith("pack_estimate:"):
        return w.word(w.SOURCES, "pack_estimate", lang)
    return w.word(w.SOURCES, source, lang)


def travel_line(step: PlanStep, lang: str) -> str | None:
    leg = step.travel
    if leg is None:
        return None
    return t(
        "halfday.step.travel",
        lang,
        mode=w.word(w.TRANSPORT, leg.mode, lang),
        minutes=leg.minutes,
        km=f"{leg.distance_m / 1000:.1f}",
        source=source_words(leg.source, lang),
    )


def price_line(step: PlanStep, lang: str) -> str:
    src = source_words(step.price_source, lang)
    if step.price_per_person is None:
        return t("halfday.step.price_unknown", lang)
    if step.price_per_person == 0:
        return t("halfday.step.price_free", lang, source=src)
    return t("halfday.step.price", lang, price=f"{step.price_per_person:g}", source=src)


def queue_line(step: PlanStep, risks: list[Risk], lang: str) -> str | None:
    if not step.queue_minutes:
        return None
    if step.queue_source:
        return t(
            "halfday.step.queue",
            lang,
            minutes=step.queue_minutes,
            day_type=w.word(w.DAY_TYPES, step.queue_day_type or "", lang),
            source=source_words(step.queue_source, lang),
        )
    return t("halfday.step.queue_typical", lang, minutes=step.queue_minutes)


def why_line(step: PlanStep, lang: str) -> str:
    why = w.without_implied(list(step.why), prefix="matches_")
    reasons = [w.reason(code, lang) for code in why] or [w.word(w.CATEGORIES, step.category, lang)]
    return t("halfday.step.why", lang, reasons=t("halfday.list.separator", lang).join(reasons))


def _fact(value: Any, lang: str) -> str:
    if isinstance(value, list):
        return join([w.word(w.WEATHER, str(v), lang) for v in value], lang)
    return str(value)


def risk_sentence(risk: Risk, plan: Plan, lang: str) -> str:
    key = w.RISKS.get(risk.code)
    if key is None:
        return t("halfday.risk.other", lang)
    step = next((s for s in plan.steps if s.place_id == risk.place_id), None)
    facts: dict[str, Any] = {k: _fact(v, lang) for k, v in risk.facts.items()}
    facts["place"] = place_name(step, lang) if step is not None else t("halfday.risk.a_stop", lang)
    if "mode" in risk.facts:
        facts["mode"] = w.word(w.TRANSPORT, str(risk.facts["mode"]), lang)
    if "source" in risk.facts:
        facts["source"] = source_words(str(risk.facts["source"]), lang)
    if "day_type" in risk.facts:
        facts["day_type"] = w.word(w.DAY_TYPES, str(risk.facts["day_type"]), lang)
    for name in ("cost_per_person", "budget_per_person"):
        if name in risk.facts:
            facts[name] = f"{float(risk.facts[name]):g}"
    try:
        return t(key, lang, **facts)
    except (KeyError, ValueError, IndexError):  # a risk without one of its facts: the general sentence
        return t("halfday.risk.other", lang)


def party_words(goal: DecomposedGoal, lang: str) -> str:
    p = goal.party
    who = [t("halfday.party.adult_one" if p.adults == 1 else "halfday.party.adults", lang, n=p.adults)]
    if p.children:
        kids = t("halfday.party.child_one" if p.children == 1 else "halfday.party.children", lang, n=p.children)
        if p.children_ages:
            ages = t("halfday.list.separator", lang).join(str(a) for a in p.children_ages)
            kids = t("halfday.party.ages", lang, children=kids, ages=ages)
        who.append(kids)
    return t("halfday.list.separator", lang).join(who)


def goal_summary(goal: DecomposedGoal, lang: str) -> str:
    """What stage 1 understood, in one line."""
    parts: list[str] = []
    if goal.window is not None:
        win = goal.window
        parts.append(f"{day_label(win.date, lang)} {clock(win.start)}–{clock(win.end)}")
    parts.append(party_words(goal, lang))
    if goal.preferences:
        parts.append(join([w.word(w.PREFERENCES, c, lang) for c in w.without_implied(list(goal.preferences))], lang))
    c = goal.constraints
    needs = [w.word(w.DIET, d, lang) for d in c.diet] + [w.word(w.MOBILITY, m, lang) for m in c.mobility]
    needs += [w.word(w.WEATHER, x, lang) for x in c.weather]
    if needs:
        parts.append(join(needs, lang))
    if c.budget_per_person is not None:
        parts.append(t("halfday.goal.budget", lang, budget=f"{c.budget_per_person:g}"))
    if goal.assumed:
        assumed = join([w.word(w.ASSUMED, a, lang) for a in goal.assumed], lang)
        parts.append(t("halfday.goal.assumed", lang, assumed=assumed))
    return " · ".join(parts)


# ---- the stage log ------------------------------------------------------------------------------------------
_SUMMARY = re.compile(r"(?:^|\s)(\w+)(?:=(\S+)|\[(\d+)\]|\{(\d+)\})")


def summary_facts(summary: str) -> dict[str, str]:
    """The facts of a tool log summary (core/halfday/tools.py ``summarise``: ``k=v``, ``k[len]``, ``k{len}``)."""
    out: dict[str, str] = {}
    for key, value, n_list, n_dict in _SUMMARY.findall(summary or ""):
        out[key] = value or n_list or n_dict
    return out


def _tool_result(tool: str, output: str, lang: str) -> str:
    f = summary_facts(output)
    if tool == "get_memory":
        n = int(f.get("events", "0") or 0)
        if not n:
            return t("halfday.tool.memory_empty", lang)
        return t("halfday.tool.memory", lang, events=n, preferences=int(f.get("preferences", "0") or 0))
    if tool == "analyze_user_profile":
        crowd = w.word(w.CROWD, f.get("crowd_tolerance", ""), lang)
        walk = f.get("walk_limit_min")
        return t("halfday.tool.profile_walk", lang, crowd=crowd, walk=walk) if walk else crowd
    if tool == "plan_time_slots":
        start, end = f.get("start", "")[:5], f.get("end", "")[:5]
        return t("halfday.tool.slots", lang, start=start, end=end, slots=f.get("slots", "?"))
    if tool == "search_places":
        return t("halfday.tool.candidates", lang, n=f.get("items", "0"))
    if tool == "rank_places_for_plan":
        return t("halfday.tool.composed", lang, n=f.get("plans", "0"))
    if tool == "score_plans":
        return t("halfday.tool.scored", lang, n=f.get("plans", "0"))
    return t("halfday.tool.done", lang)


def stage_name(code: str, lang: str) -> str:
    return w.word(w.STAGES, code, lang)


def _observation(d: dict[str, Any], lang: str) -> str | None:
    kind = d.get("type")
    if kind == "result":
        tool = str(d.get("tool", ""))
        if tool == "decompose_goal":
            return None  # the intent event that follows says what was understood
        attempts = int(d.get("attempts", 1) or 1)
        ms = f"{float(d.get('duration_ms', 0.0) or 0.0):.0f}"
        result = _tool_result(tool, str(d.get("output", "")), lang)
        if attempts > 1:
            return t("halfday.log.result_attempts", lang, result=result, ms=ms, attempts=attempts)
        return t("halfday.log.result", lang, result=result, ms=ms)
    if kind == "warning":
        return "⚠ " + w.word(w.WARNINGS, str(d.get("code", "")), lang)
    if kind == "relaxed":
        best = d.get("facts", {}).get("best_feasibility")
        why = t("halfday.log.best_feasibility", lang, percent=percent(best)) if best is not None else ""
        return "↺ " + w.word(w.RELAX, str(d.get("code", "")), lang) + why
    if kind == "reservable":
        n = len(d.get("place_ids") or [])
        return t("halfday.log.reservable_one" if n == 1 else "halfday.log.reservable_many", lang, n=n)
    return None


def event_line(event: HalfDayEvent, lang: str) -> str | None:
    """One line of the live stage log for an event (None for the events that add nothing to read)."""
    d = event.data
    if event.type == "status":
        stage = int(d.get("stage", 0))
        name = stage_name(str(d.get("name", "")), lang)
        if stage == 0:
            return f"**{name}**"
        relaxed = d.get("relaxed") or []
        extra = " — " + join([w.word(w.RELAX, r, lang) for r in relaxed], lang) if relaxed else ""
        return f"**{stage}/{STAGE_COUNT} · {name}**{extra}"
    if event.type == "skill_call":
        tool = stage_name(str(d.get("tool", "")), lang)
        return t("halfday.log.tool_mocked" if d.get("mocked") else "halfday.log.tool", lang, tool=tool)
    if event.type == "observation":
        return _observation(d, lang)
    if event.type == "intent":
        goal = d.get("goal")
        if not goal:
            return None
        if d.get("clarification"):
            return t("halfday.log.needs_time", lang)
        return "✓ " + goal_summary(DecomposedGoal.model_validate(goal), lang)
    if event.type == "done":
        return f"**{done_label(d.get('type'), lang)}**"
    return None


def done_label(kind: object, lang: str) -> str:
    """How a run ended, in words: plans ready, a question first, or stopped."""
    if kind == "plans":
        return t("halfday.run.ready", lang)
    if kind == "clarify":
        return t("halfday.run.question", lang)
    return t("halfday.run.stopped", lang)


# ---- clarification and errors -------------------------------------------------------------------------------
#: quick answers to "when?": (key, its label, what is added to the goal in the goal's language)
QUICK_CHOICES: tuple[tuple[str, str, str], ...] = (
    ("this_afternoon", "halfday.quick.this_afternoon", "halfday.quick_add.this_afternoon"),
    ("tomorrow_morning", "halfday.quick.tomorrow_morning", "halfday.quick_add.tomorrow_morning"),
    ("saturday_afternoon", "halfday.quick.saturday_afternoon", "halfday.quick_add.saturday_afternoon"),
)


def question(missing: list[str], lang: str) -> str:
    code = missing[0] if missing else "time_window"
    return w.word(w.MISSING, code, lang, fallback=w.word(w.MISSING, "time_window", lang))


def completed_goal(goal: str, choice: str) -> str:
    """The goal with a quick choice of time added, in the goal's own language (the parser reads it)."""
    _key, _label, add = next(c for c in QUICK_CHOICES if c[0] == choice)
    text = goal.strip()
    if guess_language(text) == "zh":
        return f"{t(add, 'zh')}{text}"
    return f"{text.rstrip('.')} {t(add, 'en')}"


def error_sentence(error: dict[str, Any], lang: str) -> str:
    code = str(error.get("code", ""))
    sentence = w.word(w.ERRORS, code, lang, fallback=w.word(w.ERRORS, "OMNI_ERROR", lang))
    excluded = error.get("excluded") or {}
    if code == "NO_FEASIBLE_PLAN" and excluded:
        top = sorted(excluded.items(), key=lambda kv: -kv[1])[:3]
        reasons = join([f"{w.excluded_reason(k, lang)} ({v})" for k, v in top], lang)
        sentence = t("halfday.error.excluded", lang, sentence=sentence, reasons=reasons)
    return sentence
