"""Conditional branches (\"if we miss the sunset, switch to ...\"): each branch evaluated on facts (the arrival against
the sunset, the alternative's opening hours at its arrival), or said why it could not be: a place the branch needs
that is not named, one outside the region (``REGION_NOT_COVERED``, never planned), a condition no fact settles.

The answer is OK only when the branch that applies was evaluated; otherwise its status says what is missing."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from core.agent import fastpath, when
from core.agent.actions.names import ActionName
from core.agent.actions.registry import ActionRegistry
from core.agent.planned_day import WEATHER_CONDITION, PlannedDay, is_wet, planned_day
from core.agent.router import RouterDecision
from core.agent.state import AgentContext, log_decision
from core.agent.steps import POLICY_BRANCH, act, guard, load_trip_draft, resolve_entities
from core.agent.trip_request import mentioned_places, read_trip
from core.i18n import Lang
from core.models.agent import AgentState, ErrorCode, NextStep, StateStatus
from core.models.region import RegionPack
from core.packs.coverage import scope_of
from core.words import agent as words
from core.words.branches import branch_lines, branch_taken_sentence, negated_condition

if TYPE_CHECKING:
    from core.models.region import RegionPlace


def run_conditional(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    """'赶不上日落就改横滨': both branches, each evaluated on the planned day's plan (the day the message names: its
    start and end, its sunset, its forecast), with the condition stated and the branch taken said with why."""
    pack = ctx.provider.region
    lang = fastpath.state_lang(state)
    cond, then = decision.features.conditional or ("", "")
    state.react.step += 1
    guard(state, ctx, action="conditional")
    day = planned_day(state.user_input, now=ctx.now, plan_part=_plan_part(state.user_input, cond, then))
    primary_ids, alt_text, alt_ids = _branch_places(cond, then, state, ctx, registry)
    sunset_kw = re.search(r"日落|夕阳|sunset", cond, re.I)
    sun = when.sun_times(day.day, lon=pack.center[0], lat=pack.center[1], tz=pack.timezone)
    deadline = sun[1] if (sun and sunset_kw) else None
    a = _keep_branch(cond, primary_ids, deadline, ctx, day=day, lang=lang)
    b = _switch_branch(cond, alt_text, alt_ids, ctx, day=day)
    if a["evaluation"] == "CONDITION_NOT_COMPUTABLE" and WEATHER_CONDITION.search(cond):
        _weather_decides(a, b, day, state, ctx, registry)
    branches = [a, b]
    state.result.branches = branches
    log_decision(
        state,
        action="orchestrator.evaluate_branches",
        reason_code="CONDITIONAL_REQUEST",
        policy_id=POLICY_BRANCH,
        facts={
            "branches": 2,
            "a_feasible": a.get("feasible"),
            "b_feasible": b.get("feasible"),
            "a_evaluation": a["evaluation"],
            "b_evaluation": b["evaluation"],
            "sunset": a.get("sunset"),
            "day": day.day.isoformat(),
            "leave": day.leave.strftime("%H:%M"),
            "taken": _taken(a, b),
        },
    )
    state.result.explanations = branch_lines(cond, branches, lang, city=words.city_name(pack, lang), pack=pack)
    state.result.explanations.append(branch_taken_sentence(a, b, day, lang, pack=pack))
    state.result.status, state.result.error_code = branch_outcome(a, b)
    open_branches = sum(1 for br in branches if br["feasible"] is None and br["evaluation"] != "WEATHER_NOT_KNOWN")
    if open_branches:
        state.result.next_steps.append(NextStep(code="name_branch_place", args={"branches": open_branches}))
    if a["evaluation"] == "WEATHER_NOT_KNOWN":  # nothing to name: the forecast is what is missing (as fastpath says it)
        reason = a.get("weather_reason") or ""
        state.result.next_steps.append(
            NextStep(code="configure_weather")
            if reason == "NO_WEATHER_SOURCE"
            else NextStep(code="weather_later", args={"reason": reason, "date": day.day.isoformat()})
        )


def _plan_part(text: str, cond: str, then: str) -> str:
    """The message's words of the plan itself: what is left when the condition and its alternative are taken out."""
    return text.replace(then, " ").replace(cond, " ") if cond or then else text


def _taken(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """The branch the facts choose: A when its condition holds on the planned day, B when it fails, None when no
    fact settles it."""
    if a.get("weather_wet") is not None:
        return "B" if a["weather_wet"] else "A"
    if a["feasible"] is True:
        return "A"
    if a["feasible"] is False:
        return "B"
    return None


def _weather_decides(
    a: dict[str, Any], b: dict[str, Any], day: PlannedDay, state: AgentState, ctx: AgentContext,
    registry: ActionRegistry,
) -> None:  # fmt: skip
    """A condition on the weather ("要是下雨", "if it rains"): the planned day's forecast settles it when the provider
    publishes one; else both branches stand and the answer says the weather is not known."""
    pack = ctx.provider.region
    out = registry.call(ActionName.WEATHER_LOOKUP, {"date": day.day.isoformat(), "city": pack.city,
                                                    "adcode": pack.adcode}, state=state, ctx=ctx)  # fmt: skip
    wet = is_wet(out.forecast) if out.available else None
    source = out.source if out.available else None
    a.update({"weather_date": day.day.isoformat(), "weather_source": source, "weather_reason": out.reason})
    if wet is None:
        a.update({"feasible": None, "evaluation": "WEATHER_NOT_KNOWN", "weather_wet": None})
        return
    forecast = out.forecast or {}
    a.update({"feasible": not wet, "evaluation": "EVALUATED_WEATHER", "weather_wet": wet,
              "weather": forecast.get("day_weather") or forecast.get("night_weather")})  # fmt: skip
    b["applies"] = wet


def branch_outcome(a: dict[str, Any], b: dict[str, Any]) -> tuple[StateStatus, ErrorCode | None]:
    """The answer's status from the two branches: OK when the branch that applies was evaluated (A made: the plan
    holds; A missed: B says what to do), else what is missing: a place to name (NEED_MORE_INFO), a condition no fact
    settles or two branches that both fail (NEEDS_REVIEW), a branch outside the region when it is the one that
    applies (FAILED). A branch naming a place outside the region gives ``REGION_NOT_COVERED`` in any case."""
    code: ErrorCode | None = (
        "REGION_NOT_COVERED" if "REGION_NOT_COVERED" in (a["evaluation"], b["evaluation"]) else None
    )
    if a["feasible"] is True:
        return "OK", code
    if a["feasible"] is False:
        if b["feasible"] is True:
            return "OK", code
        if b["feasible"] is False:
            return "NEEDS_REVIEW", code
        return ("FAILED" if b["evaluation"] == "REGION_NOT_COVERED" else "NEED_MORE_INFO"), code
    open_a: dict[str, StateStatus] = {
        "NEEDS_TARGET_PLACE": "NEED_MORE_INFO",
        "CONDITION_NOT_COMPUTABLE": "NEEDS_REVIEW",
        "WEATHER_NOT_KNOWN": "NEEDS_REVIEW",  # both branches stand; which applies is known on the day
    }
    return open_a.get(a["evaluation"], "FAILED"), code


def uncovered_place(text: str, pack: RegionPack) -> dict[str, str] | None:
    """The facts of a city or country ``text`` names that ``pack`` does not cover (core.packs.coverage), or None."""
    scope = scope_of(text, active=pack, packs=[pack]) if text else None
    if scope is None or scope.verdict != "NOT_COVERED":
        return None
    return {"named": scope.named or "", "place": scope.place or "", "region": pack.name}


def _place(ctx: AgentContext, pid: str) -> RegionPlace:
    p = ctx.provider.region.place_by_id(pid)
    assert p is not None, "mentioned_places and the trip draft give the pack's own ids"
    return p


def _branch_places(
    cond: str, then: str, state: AgentState, ctx: AgentContext, registry: ActionRegistry
) -> tuple[list[str], str, list[str]]:
    """The first branch's place (one in the condition, else the trip draft's last), the alternative's words and its
    place, resolved and with their facts."""
    pack = ctx.provider.region
    primary_ids = mentioned_places(cond, pack)
    if not primary_ids:  # "明天去外滩，如果赶不上日落就改去豫园": the place of the plan the condition is about (the
        # last one named, not where the day starts: "从人民广场出发去外滩")
        plan = read_trip(_plan_part(state.user_input, cond, then), pack)
        alternative = set(mentioned_places(then, pack))
        primary_ids = [p for p in plan.places if p not in alternative][-1:]
    alt_text = re.sub(
        r"^(就|那就|则|便)?(改成?|换成?|改去|换去|去|switch to|change to|go to|then)\s*", "", then, flags=re.I
    ).strip()
    alt_ids = mentioned_places(alt_text, pack)
    if not primary_ids and ctx.request.trip_id:
        load_trip_draft(registry, state, ctx, policy_id=POLICY_BRANCH)
        primary_ids = [n["place_id"] for n in state.draft.nodes if n.get("place_id")][-1:]
    names = [*(_place(ctx, p).name_zh for p in primary_ids[:1]), *(_place(ctx, p).name_zh for p in alt_ids[:1])]
    if names:
        resolve_entities(registry, state, ctx, names, policy_id=POLICY_BRANCH)
    ids = [*primary_ids[:1], *alt_ids[:1]]
    if ids:
        act(
            registry,
            ActionName.PLACES_GET_POI_FACTS,
            {"place_ids": ids},
            state,
            ctx,
            reason_code="MISSING_POI_FACTS",
            policy_id=POLICY_BRANCH,
        )
    return primary_ids, alt_text, alt_ids


def _eta(ctx: AgentContext, pid: str, *, leave: datetime) -> tuple[datetime, float]:
    """When a drive from the city centre (the plan's assumed start), leaving at ``leave``, reaches ``pid`` on a
    conservative buffer (the figure is an offline estimate when offline), and the drive's nominal seconds."""
    from core.geo.base import LonLat

    pack = ctx.provider.region
    p = _place(ctx, pid)
    leg = ctx.provider.route(LonLat(pack.center[0], pack.center[1]), LonLat(p.lon, p.lat), mode="driving")
    robust = leg.duration_s * 1.3 + 600
    return leave + timedelta(seconds=robust), leg.duration_s


def _keep_branch(
    cond: str, primary_ids: list[str], deadline: datetime | None, ctx: AgentContext, *, day: PlannedDay, lang: Lang
) -> dict[str, Any]:
    """Branch A: the condition does not happen -> keep the plan, evaluated against the planned day's sunset when it
    is one (the plan leaves at the day's start and must be there before the sunset, within the day)."""
    a: dict[str, Any] = {
        "branch": "A",
        "condition": negated_condition(cond, lang),
        "action": "keep_plan",
        "target": _place(ctx, primary_ids[0]).name_zh if primary_ids else None,
        "place_id": primary_ids[0] if primary_ids else None,
    }
    if deadline is not None:
        a["sunset"] = deadline.strftime("%H:%M")
        a["sunset_source"] = "astronomical_calculation"
    outside = uncovered_place(cond, ctx.provider.region) if not primary_ids else None
    if outside is not None:  # the condition's place lies outside the region: nothing of it is computed here
        a.update({"feasible": None, "evaluation": "REGION_NOT_COVERED", **outside})
    elif primary_ids and deadline is not None:
        eta, nominal = _eta(ctx, primary_ids[0], leave=day.leave)
        a.update(
            {
                "date": day.day.isoformat(),
                "leave": day.leave.strftime("%H:%M"),
                "leave_source": day.start_source,
                "day_end": day.end.strftime("%H:%M"),
                "eta": eta.strftime("%H:%M"),
                "nominal_travel_min": round(nominal / 60),
                "feasible": eta <= deadline <= day.end,
                "evaluation": "EVALUATED",
            }
        )
    elif deadline is not None:
        a.update({"feasible": None, "evaluation": "NEEDS_TARGET_PLACE"})
    else:
        a.update({"feasible": None, "evaluation": "CONDITION_NOT_COMPUTABLE"})
    return a


def _switch_branch(
    cond: str, alt_text: str, alt_ids: list[str], ctx: AgentContext, *, day: PlannedDay
) -> dict[str, Any]:
    """Branch B: the condition fails -> the alternative, evaluated on its opening hours at the arrival."""
    b: dict[str, Any] = {"branch": "B", "condition": cond, "action": "switch_to", "target": alt_text}
    outside = uncovered_place(alt_text, ctx.provider.region) if not alt_ids else None
    if outside is not None:  # another city: answered as the scope answers it, never planned
        b.update({"feasible": None, "evaluation": "REGION_NOT_COVERED", **outside})
        return b
    if not alt_ids:
        b.update({"feasible": None, "evaluation": "NOT_IN_KNOWLEDGE_BASE"})
        return b
    pack = ctx.provider.region
    p = _place(ctx, alt_ids[0])
    eta, nominal = _eta(ctx, alt_ids[0], leave=day.leave)
    b.update(
        {
            "date": day.day.isoformat(),
            "target": p.name_zh,
            "place_id": p.id,
            "eta": eta.strftime("%H:%M"),
            "nominal_travel_min": round(nominal / 60),
            "opening_hours": p.opening_hours,
            "feasible": True,
            "evaluation": "EVALUATED",
        }
    )
    if p.opening_hours:
        from core.itinerary.opening import opening_windows

        ow = opening_windows(p.opening_hours, [eta.date()], timezone=pack.timezone, country=pack.country or None)
        mins = eta.hour * 60 + eta.minute
        open_now = any(iv.start <= mins <= iv.end for iv in ow.by_date.get(eta.date(), []))
        b["open_at_eta"] = open_now
        b["feasible"] = open_now
    return b
