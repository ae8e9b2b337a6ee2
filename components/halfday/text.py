"""Sentences of the half-day page, built from the core's codes and facts with the catalog's words (halfday.po).

Pure functions (no Streamlit): a plan's one-sentence intro, a step's lines, risks, feasibility, the parsed goal,
the stage log's lines (from the typed events and their facts), the clarification and the error sentence. ``lang`` is "zh" or "en": the page's language
(components.language.current_lang), whatever language the goal was written in. Place names follow it where the
pack has them (``name_en`` / ``name_zh``); the other name is for a tooltip (``other_name``).
"""

from __future__ import annotations

from typing import Any

from core.config import HalfDayToolName
from core.i18n import Lang, t
from core.models.halfday.events import (
    DoneEvent,
    ErrorFacts,
    HalfDayEvent,
    IntentEvent,
    Observation,
    ObservationEvent,
    PlanObservation,
    RelaxedObservation,
    ReservableObservation,
    ResultObservation,
    SkillCallEvent,
    StatusEvent,
    WarningObservation,
)
from core.models.halfday.facts import (
    CandidateFacts,
    ChosenObservation,
    MemoryFacts,
    PlanSetFacts,
    ProfileFacts,
    SlotsFacts,
    ToolFacts,
    WeatherFacts,
)
from core.models.halfday.goal import DecomposedGoal
from core.models.halfday.plans import Plan, PlanStep, Risk
from core.words import halfday as w
from core.words.halfday_wishes import plan_wishes

STAGE_COUNT = 7


def place_name(step: PlanStep, lang: Lang) -> str:
    """The step's place in ``lang`` (the Chinese name when the pack has no English one)."""
    return step.name_en if lang == "en" and step.name_en else step.name_zh


def other_name(step: PlanStep, lang: Lang) -> str:
    """The step's name in the other language, for a tooltip ("" when it is the same or missing)."""
    other = step.name_zh if lang == "en" else step.name_en
    return other if other and other != place_name(step, lang) else ""


def join(items: list[str], lang: Lang) -> str:
    """``a、b、c`` / ``a, b and c``."""
    if len(items) <= 1:
        return "".join(items)
    return t("halfday.list.separator", lang).join(items[:-1]) + t("halfday.list.last", lang) + items[-1]


def intro(plan: Plan, lang: Lang) -> str:
    """The plan's intro (its code and facts, core/halfday/explain.py) in the catalog's words, as the API and the
    CLI give it."""
    return w.intro_sentence(plan, lang)


def wish_lines(plan: Plan, lang: Lang) -> list[str]:
    """Each wish of the goal as this plan answers it, in the catalog's words (plain text: the person's own words
    are quoted in it, never read as markdown)."""
    return plan_wishes(plan, lang)


def percent(value: float) -> str:
    return f"{round(value * 100)}%"


def feasibility_words(value: float, lang: Lang) -> str:
    if value >= 0.85:
        return t("halfday.feasibility.high", lang)
    if value >= 0.6:
        return t("halfday.feasibility.medium", lang)
    return t("halfday.feasibility.low", lang)


def score_words(total: float | None, lang: Lang) -> str:
    return t("halfday.score.points", lang, points=round((total or 0.0) * 100))


def source_words(source: str, lang: Lang) -> str:
    if source.startswith("offline:"):
        return w.word(w.SOURCES, "pack", lang)
    if source.startswith("pack_estimate:"):
        return w.word(w.SOURCES, "pack_estimate", lang)
    return w.word(w.SOURCES, source, lang)


def travel_line(step: PlanStep, lang: Lang) -> str | None:
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


def price_line(step: PlanStep, lang: Lang) -> str:
    src = source_words(step.price_source, lang)
    if step.price_per_person is None:
        return t("halfday.step.price_unknown", lang)
    if step.price_per_person == 0:
        return t("halfday.step.price_free", lang, source=src)
    return t("halfday.step.price", lang, price=f"{step.price_per_person:g}", source=src)


def queue_line(step: PlanStep, risks: list[Risk], lang: Lang) -> str | None:
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


def why_line(step: PlanStep, lang: Lang) -> str:
    """Why this place (its reason's code and facts) in the catalog's words, as the API and the CLI give it."""
    return w.reason_sentence(step, lang)


def _fact(value: Any, lang: Lang) -> str:
    if isinstance(value, list):
        return join([w.word(w.WEATHER, str(v), lang) for v in value], lang)
    return str(value)


def risk_sentence(risk: Risk, plan: Plan, lang: Lang) -> str:
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


def party_words(goal: DecomposedGoal, lang: Lang) -> str:
    p = goal.party
    who = [t("halfday.party.adult_one" if p.adults == 1 else "halfday.party.adults", lang, n=p.adults)]
    if p.children:
        kids = t("halfday.party.child_one" if p.children == 1 else "halfday.party.children", lang, n=p.children)
        if p.children_ages:
            ages = t("halfday.list.separator", lang).join(str(a) for a in p.children_ages)
            kids = t("halfday.party.ages", lang, children=kids, ages=ages)
        who.append(kids)
    return t("halfday.list.separator", lang).join(who)


def goal_summary(goal: DecomposedGoal, lang: Lang) -> str:
    """What stage 1 understood, in one line."""
    parts: list[str] = []
    if goal.window is not None:
        win = goal.window
        parts.append(f"{w.day_label(win.date, lang)} {w.clock(win.start)}–{w.clock(win.end)}")
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
def _tool_result(tool: str, facts: ToolFacts, lang: Lang) -> str:
    """A tool's result in words, from its facts (each tool's ``facts``, core/halfday/toolbox)."""
    if isinstance(facts, MemoryFacts):
        if not facts.events:
            return t("halfday.tool.memory_empty", lang)
        return t("halfday.tool.memory", lang, events=facts.events, preferences=facts.preferences)
    if isinstance(facts, ProfileFacts):
        crowd = w.word(w.CROWD, facts.crowd_tolerance, lang)
        walk = facts.walk_limit_min
        return t("halfday.tool.profile_walk", lang, crowd=crowd, walk=walk) if walk else crowd
    if isinstance(facts, WeatherFacts):
        if facts.status == "forecast":
            if not facts.codes:
                return t("halfday.tool.weather_clear", lang)
            return t(
                "halfday.tool.weather_codes", lang, codes=join([w.word(w.WEATHER, c, lang) for c in facts.codes], lang)
            )
        failed = facts.status in ("failed", "breaker_open")
        return t("halfday.tool.weather_failed" if failed else "halfday.tool.weather_unread", lang)
    if isinstance(facts, SlotsFacts):
        return t("halfday.tool.slots", lang, start=w.clock(facts.start), end=w.clock(facts.end), slots=facts.slots)
    if isinstance(facts, CandidateFacts):
        return t("halfday.tool.candidates", lang, n=facts.candidates)
    if isinstance(facts, PlanSetFacts):
        if tool == HalfDayToolName.SCORE_PLANS:
            return t("halfday.tool.scored", lang, n=facts.plans)
        if facts.legs_measured is None or facts.legs is None:  # not screened on estimates: no legs measured apart
            return t("halfday.tool.composed", lang, n=facts.plans)
        key = "halfday.tool.composed_dropped" if facts.dropped else "halfday.tool.composed_measured"
        return t(key, lang, n=facts.plans, legs=facts.legs, measured=facts.legs_measured, dropped=facts.dropped)
    return t("halfday.tool.done", lang)


def stage_name(code: str, lang: Lang) -> str:
    return w.word(w.STAGES, code, lang)


def _observation(d: Observation, lang: Lang) -> str | None:
    if isinstance(d, ResultObservation):
        if d.tool == HalfDayToolName.DECOMPOSE_GOAL:
            return None  # the intent event that follows says what was understood
        ms = f"{d.duration_ms:.0f}"
        result = _tool_result(d.tool, d.facts, lang)
        if d.attempts > 1:
            return t("halfday.log.result_attempts", lang, result=result, ms=ms, attempts=d.attempts)
        return t("halfday.log.result", lang, result=result, ms=ms)
    if isinstance(d, WarningObservation):
        if d.code == "REGION_SWITCHED" and d.facts.name and d.facts.region:  # the place named, the region planned in
            return "⚠ " + w.region_switched_words(d.facts.name, region_shown(d.facts.region, lang), lang)
        if d.facts.dropped is not None:  # a plan the measured legs broke: which, and the leg that did
            return "⚠ " + w.dropped_words(d.facts.dropped, lang)
        return "⚠ " + w.warning_words(d.code, d.facts.causes, lang)
    if isinstance(d, RelaxedObservation):
        best = d.facts.best_feasibility
        why = t("halfday.log.best_feasibility", lang, percent=percent(best)) if best is not None else ""
        return "↺ " + w.word(w.RELAX, d.code, lang) + why
    if isinstance(d, ReservableObservation):
        n = len(d.place_ids)
        return t("halfday.log.reservable_one" if n == 1 else "halfday.log.reservable_many", lang, n=n)
    if isinstance(d, PlanObservation):
        return t("halfday.log.plan_ready", lang, stops=len(d.plan.steps))
    if isinstance(d, ChosenObservation):
        line = "→ " + w.word(w.CHOSEN, d.choice, lang)
        return line + " " + t("halfday.log.chosen_by_default", lang) if d.by == "default" else line
    return None


def event_line(event: HalfDayEvent, lang: Lang) -> str | None:
    """One line of the live stage log for an event (None for the events that add nothing to read)."""
    if isinstance(event, StatusEvent):
        stage, name = event.data.stage, stage_name(event.data.name, lang)
        if stage == 0:
            return f"**{name}**"
        relaxed = event.data.relaxed
        extra = " — " + join([w.word(w.RELAX, r, lang) for r in relaxed], lang) if relaxed else ""
        return f"**{stage}/{STAGE_COUNT} · {name}**{extra}"
    if isinstance(event, SkillCallEvent):
        tool = w.tool_words(event.data.tool, lang)
        return t("halfday.log.tool_mocked" if event.data.mocked else "halfday.log.tool", lang, tool=tool)
    if isinstance(event, ObservationEvent):
        return _observation(event.data, lang)
    if isinstance(event, IntentEvent):
        if event.data.clarification is not None:
            return t("halfday.log.needs_time", lang)
        return "✓ " + goal_summary(event.data.goal, lang)
    if isinstance(event, DoneEvent):
        return f"**{done_label(event.data.type, lang)}**"
    return None


def done_label(kind: object, lang: Lang) -> str:
    """How a run ended, in words: plans ready, a question first, or stopped."""
    if kind == "plans":
        return t("halfday.run.ready", lang)
    if kind == "clarify":
        return t("halfday.run.question", lang)
    if kind == "waiting":
        return t("halfday.run.waiting", lang)
    return t("halfday.run.stopped", lang)


# ---- clarification and errors -------------------------------------------------------------------------------
#: quick answers to "when?": the window choice the request carries → its label (core/halfday/goal_window.py)
QUICK_LABELS: dict[str, str] = {
    "this_afternoon": "halfday.quick.this_afternoon",
    "tomorrow_morning": "halfday.quick.tomorrow_morning",
    "saturday_afternoon": "halfday.quick.saturday_afternoon",
}


def question(missing: list[str], lang: Lang) -> str:
    code = missing[0] if missing else "time_window"
    return w.word(w.MISSING, code, lang, fallback=w.word(w.MISSING, "time_window", lang))


def region_shown(region: str, lang: Lang) -> str:
    """A region's display name in ``lang`` (its code when the pack does not load)."""
    from core.app.regions import load_region
    from core.errors import OmniError

    try:
        return load_region(region).display_name.get(lang) or region
    except (OmniError, OSError, ValueError):
        return region


def error_sentence(error: ErrorFacts, lang: Lang) -> str:
    if error.code == "REGION_NOT_COVERED" and error.named:  # the place the goal named, the regions installed
        return w.region_not_covered_words(error.named, [region_shown(r, lang) for r in error.regions or []], lang)
    sentence = w.word(w.ERRORS, error.code, lang, fallback=w.word(w.ERRORS, "OMNI_ERROR", lang))
    if error.code == "NO_FEASIBLE_PLAN" and error.excluded:
        top = sorted(error.excluded.items(), key=lambda kv: -kv[1])[:3]
        reasons = join([f"{w.excluded_reason(k, lang)} ({v})" for k, v in top], lang)
        sentence = t("halfday.error.excluded", lang, sentence=sentence, reasons=reasons)
    return sentence


def origin_hint(region: str, lang: Lang) -> str:
    """The start field's placeholder: the region pack's own example place in ``lang`` ("" when it has none), so
    a Helsinki page never suggests a Shanghai square."""
    from core.app.regions import example_place

    example = example_place(region, lang)
    return example[0] if example else ""
