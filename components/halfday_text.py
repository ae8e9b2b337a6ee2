"""Sentences of the half-day page, built from the core's codes and facts with the words of halfday_words.py.

Pure functions (no Streamlit): a plan's one-sentence intro, a step's lines, risks, feasibility, the parsed goal,
the stage log's lines, the clarification and the error sentence. ``lang`` is "zh" or "en": the goal's language
(``result.goal.language``), or a guess from the goal text before the goal is parsed.
"""

from __future__ import annotations

import re
from datetime import date, time
from typing import Any

from components import halfday_words as w
from core.halfday.goal_models import DecomposedGoal
from core.halfday.models import HalfDayEvent, Plan, PlanStep, Risk

_CJK = re.compile(r"[\u3400-\u9fff]")
WEEKDAYS_ZH = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")
STAGE_COUNT = 7


def guess_language(text: str) -> str:
    """The goal's language before stage 1 has read it: Chinese when it has Chinese characters."""
    return "zh" if _CJK.search(text or "") else "en"


def day_label(d: date, lang: str) -> str:
    if lang == "zh":
        return f"{d.month}月{d.day}日 {WEEKDAYS_ZH[d.weekday()]}"
    return d.strftime("%a %d %b").replace(" 0", " ")


def clock(t: time) -> str:
    return t.strftime("%H:%M")


def place_name(step: PlanStep, lang: str) -> str:
    """The step's place in the page's language (the Chinese name when the pack has no English one)."""
    return step.name_en if lang == "en" and step.name_en else step.name_zh


def _join(items: list[str], lang: str) -> str:
    if lang == "zh":
        return "、".join(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def intro(plan: Plan, lang: str) -> str:
    """One sentence: what the plan is about (its theme codes: the wishes it meets, else its kinds of places) and
    its stops in order."""
    wishes = [w.theme(c, lang) for c in plan.theme if not c.startswith("category:")]
    kinds = [w.theme(c, lang) for c in plan.theme if c.startswith("category:")]
    names = [place_name(s, lang) for s in plan.steps]
    travel = plan.travel_minutes
    if lang == "zh":
        themes = list(dict.fromkeys(wishes or kinds))[:3]
        about = f"以{_join(themes, lang)}为主的半日" if themes else "半日安排"
        return f"{about}:{' → '.join(names)},共 {len(names)} 站,路上约 {travel} 分钟。"
    if wishes:
        about = f"A half day of {_join(list(dict.fromkeys(wishes))[:3], lang)}"
    elif kinds:
        about = "A half day with " + _join([f"{_article(k)} {k}" for k in dict.fromkeys(kinds)][:3], lang)
    else:
        about = "A half day"
    stops = "stop" if len(names) == 1 else "stops"
    return f"{about}: {' → '.join(names)} — {len(names)} {stops}, about {travel} min of travel."


def _article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


def percent(value: float) -> str:
    return f"{round(value * 100)}%"


def feasibility_words(value: float, lang: str) -> str:
    if value >= 0.85:
        pair = ("很可能顺利", "very likely to work")
    elif value >= 0.6:
        pair = ("可行,但有注意事项", "workable, with caveats")
    else:
        pair = ("有风险", "risky")
    return w.pick(pair, lang)


def score_words(total: float | None, lang: str) -> str:
    points = round((total or 0.0) * 100)
    return f"{points} 分" if lang == "zh" else f"{points} / 100"


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
    mode = w.word(w.TRANSPORT, leg.mode, lang)
    src = source_words(leg.source, lang)
    km = leg.distance_m / 1000
    if lang == "zh":
        return f"{mode} 约 {leg.minutes} 分钟(含缓冲,{km:.1f} 公里,来源:{src})"
    return f"{mode}, about {leg.minutes} min with a margin ({km:.1f} km; source: {src})"


def price_line(step: PlanStep, lang: str) -> str:
    src = source_words(step.price_source, lang)
    if step.price_per_person is None:
        return "价格未知" if lang == "zh" else "price unknown"
    if step.price_per_person == 0:
        return f"免费(来源:{src})" if lang == "zh" else f"free (source: {src})"
    if lang == "zh":
        return f"人均 ¥{step.price_per_person:g}(来源:{src})"
    return f"¥{step.price_per_person:g} per person (source: {src})"


def queue_line(step: PlanStep, risks: list[Risk], lang: str) -> str | None:
    if not step.queue_minutes:
        return None
    if step.queue_source:
        src = source_words(step.queue_source, lang)
        day = w.word(w.DAY_TYPES, step.queue_day_type or "", lang)
        if lang == "zh":
            return f"排队约 {step.queue_minutes} 分钟({day},来源:{src})"
        return f"queue about {step.queue_minutes} min ({day}; source: {src})"
    if lang == "zh":
        return f"排队约 {step.queue_minutes} 分钟(地区数据的典型值)"
    return f"queue about {step.queue_minutes} min (typical, from the region pack)"


def why_line(step: PlanStep, lang: str) -> str:
    reasons = [w.reason(code, lang) for code in step.why]
    if not reasons:
        reasons = [w.word(w.CATEGORIES, step.category, lang)]
    return ("理由:" if lang == "zh" else "why: ") + ("、" if lang == "zh" else ", ").join(reasons)


def _fact(value: Any, lang: str) -> str:
    if isinstance(value, list):
        return _join([w.word(w.WEATHER, str(v), lang) for v in value], lang)
    return str(value)


def risk_sentence(risk: Risk, plan: Plan, lang: str) -> str:
    step = next((s for s in plan.steps if s.place_id == risk.place_id), None)
    facts: dict[str, Any] = {k: _fact(v, lang) for k, v in risk.facts.items()}
    facts["place"] = place_name(step, lang) if step is not None else ("这一站" if lang == "zh" else "a stop")
    if "mode" in risk.facts:
        facts["mode"] = w.word(w.TRANSPORT, str(risk.facts["mode"]), lang)
    if "source" in risk.facts:
        facts["source"] = source_words(str(risk.facts["source"]), lang)
    if "day_type" in risk.facts:
        facts["day_type"] = w.word(w.DAY_TYPES, str(risk.facts["day_type"]), lang)
    for key in ("cost_per_person", "budget_per_person"):
        if key in risk.facts:
            facts[key] = float(risk.facts[key])
    pair = w.RISKS.get(risk.code)
    if pair is None:
        return "这一方案还有一项需要注意的风险。" if lang == "zh" else "This plan carries one more risk to check."
    try:
        return w.pick(pair, lang).format(**facts)
    except (KeyError, ValueError, IndexError):
        return w.pick(pair, lang).split("{")[0].strip() or w.pick(pair, lang)


def goal_summary(goal: DecomposedGoal, lang: str) -> str:
    """What stage 1 understood, in one line."""
    parts: list[str] = []
    if goal.window is not None:
        win = goal.window
        parts.append(f"{day_label(win.date, lang)} {clock(win.start)}–{clock(win.end)}")
    p = goal.party
    if lang == "zh":
        who = f"{p.adults} 位成人"
        if p.children:
            ages = "、".join(str(a) for a in p.children_ages)
            who += f"、{p.children} 个孩子" + (f"({ages} 岁)" if ages else "")
    else:
        who = f"{p.adults} adult{'s' if p.adults != 1 else ''}"
        if p.children:
            ages = ", ".join(str(a) for a in p.children_ages)
            who += f", {p.children} child{'ren' if p.children != 1 else ''}" + (f" (aged {ages})" if ages else "")
    parts.append(who)
    if goal.preferences:
        parts.append(_join([w.word(w.PREFERENCES, c, lang) for c in goal.preferences], lang))
    c = goal.constraints
    needs = [w.word(w.DIET, d, lang) for d in c.diet] + [w.word(w.MOBILITY, m, lang) for m in c.mobility]
    needs += [w.word(w.WEATHER, x, lang) for x in c.weather]
    if needs:
        parts.append(_join(needs, lang))
    if c.budget_per_person is not None:
        parts.append(f"人均预算 ¥{c.budget_per_person:g}" if lang == "zh" else f"budget ¥{c.budget_per_person:g} pp")
    if goal.assumed:
        assumed = _join([w.word(w.ASSUMED, a, lang) for a in goal.assumed], lang)
        parts.append(f"({assumed})")
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
    zh = lang == "zh"
    if tool == "get_memory":
        n = int(f.get("events", "0") or 0)
        prefs = int(f.get("preferences", "0") or 0)
        if not n:
            return "还没有历史记忆" if zh else "nothing learned yet"
        return f"{n} 条记录,{prefs} 项偏好" if zh else f"{prefs} preferences learned from {n} events"
    if tool == "analyze_user_profile":
        crowd = w.word(w.CROWD, f.get("crowd_tolerance", ""), lang)
        walk = f.get("walk_limit_min")
        if walk:
            return f"{crowd},单程步行不超过 {walk} 分钟" if zh else f"{crowd}; walks of up to {walk} min"
        return crowd
    if tool == "plan_time_slots":
        slots = f.get("slots", "?")
        start, end = f.get("start", "")[:5], f.get("end", "")[:5]
        return f"{start}–{end},{slots} 个时段" if zh else f"{start}–{end} in {slots} slots"
    if tool == "search_places":
        n = f.get("items", "0")
        return f"{n} 个候选地点" if zh else f"{n} candidate places"
    if tool in ("rank_places_for_plan", "score_plans"):
        n = f.get("plans", "0")
        verb = ("组合出", "composed") if tool == "rank_places_for_plan" else ("评分了", "scored")
        return f"{verb[0]} {n} 套方案" if zh else f"{n} plans {verb[1]}"
    return "完成" if zh else "done"


def event_line(event: HalfDayEvent, lang: str) -> str | None:
    """One line of the live stage log for an event (None for the events that add nothing to read)."""
    d = event.data
    zh = lang == "zh"
    if event.type == "status":
        stage = int(d.get("stage", 0))
        name = w.bilingual(w.STAGES, str(d.get("name", "")))
        if stage == 0:
            return f"**{name}**"
        relaxed = d.get("relaxed") or []
        extra = ""
        if relaxed:
            extra = " — " + _join([w.word(w.RELAX, r, lang) for r in relaxed], lang)
        return f"**{stage}/{STAGE_COUNT} · {name}**{extra}"
    if event.type == "skill_call":
        tool = w.word(w.STAGES, str(d.get("tool", "")), lang)
        mocked = (" (演示替身)" if zh else " (demo stand-in)") if d.get("mocked") else ""
        return f"{'调用工具' if zh else 'Tool'}: {tool}{mocked}"
    if event.type == "observation":
        kind = d.get("type")
        if kind == "result":
            tool = str(d.get("tool", ""))
            if tool == "decompose_goal":
                return None  # the intent event that follows says what was understood
            attempts = int(d.get("attempts", 1) or 1)
            tries = (f",尝试 {attempts} 次" if zh else f", {attempts} attempts") if attempts > 1 else ""
            ms = float(d.get("duration_ms", 0.0) or 0.0)
            return f"✓ {_tool_result(tool, str(d.get('output', '')), lang)} ({ms:.0f} ms{tries})"
        if kind == "warning":
            return "⚠ " + w.word(w.WARNINGS, str(d.get("code", "")), lang)
        if kind == "relaxed":
            best = d.get("facts", {}).get("best_feasibility")
            why = ""
            if best is not None:
                why = f"(最好方案可行度仅 {percent(best)})" if zh else f" (best feasibility only {percent(best)})"
            return "↺ " + w.word(w.RELAX, str(d.get("code", "")), lang) + why
        if kind == "reservable":
            n = len(d.get("place_ids") or [])
            return (
                f"一套方案中有 {n} 站可在线预订"
                if zh
                else f"{n} stop{'s' if n != 1 else ''} of one plan can be reserved"
            )
        return None
    if event.type == "intent":
        goal = d.get("goal")
        if not goal:
            return None
        parsed = DecomposedGoal.model_validate(goal)
        if d.get("clarification"):
            return ("✓ 目标缺少时间,需要问一下" if zh else "✓ The goal needs a time") + ""
        return "✓ " + goal_summary(parsed, lang)
    if event.type == "done":
        kind = d.get("type")
        if kind == "plans":
            return "**规划完成**" if zh else "**Plans ready**"
        if kind == "clarify":
            return "**需要补充信息**" if zh else "**A question first**"
        return "**规划停止**" if zh else "**Planning stopped**"
    return None


# ---- clarification and errors -------------------------------------------------------------------------------
#: quick answers to "when?": (key, English label, Chinese label, what is added to an English / a Chinese goal)
QUICK_CHOICES: tuple[tuple[str, str, str, str, str], ...] = (
    ("this_afternoon", "This afternoon", "今天下午", "this afternoon", "今天下午"),
    ("tomorrow_morning", "Tomorrow morning", "明天上午", "tomorrow morning", "明天上午"),
    ("saturday_afternoon", "Saturday afternoon", "周六下午", "on Saturday afternoon", "周六下午"),
)


def question(missing: list[str], lang: str) -> str:
    code = missing[0] if missing else "time_window"
    return w.word(w.MISSING, code, lang, fallback=w.pick(w.MISSING["time_window"], lang))


def completed_goal(goal: str, choice: str) -> str:
    """The goal with a quick choice of time added in the goal's language."""
    _key, _en, _zh, add_en, add_zh = next(c for c in QUICK_CHOICES if c[0] == choice)
    text = goal.strip()
    if guess_language(text) == "zh":
        return f"{add_zh}{text}"
    return f"{text.rstrip('.')} {add_en}"


def error_sentence(error: dict[str, Any], lang: str) -> str:
    code = str(error.get("code", ""))
    sentence = w.word(w.ERRORS, code, lang, fallback=w.pick(w.ERRORS["OMNI_ERROR"], lang))
    excluded = error.get("excluded") or {}
    if code == "NO_FEASIBLE_PLAN" and excluded:
        top = sorted(excluded.items(), key=lambda kv: -kv[1])[:3]
        reasons = _join([f"{w.excluded_reason(k, lang)} ({v})" for k, v in top], lang)
        sentence += f" 被排除的主要原因:{reasons}。" if lang == "zh" else f" Places left out: {reasons}."
    return sentence
