"""Conditional branches (\"if it rains..., otherwise...\"): evaluate each branch on facts, run the chosen one."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from core.agent import fastpath, when
from core.agent.actions.registry import ActionRegistry
from core.agent.router import RouterDecision
from core.agent.state import AgentContext, log_decision
from core.agent.steps import POLICY_BRANCH, act, guard
from core.agent.trip_request import mentioned_places
from core.i18n import t
from core.models.agent import (
    AgentState,
    NextStep,
)

if TYPE_CHECKING:
    from core.packs.loader import RegionPlace


def run_conditional(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    """'赶不上日落就改横滨': both branches, each evaluated, with the condition stated."""
    zh = fastpath.state_lang(state) == "zh"
    pack = ctx.provider.region
    cond, then = decision.features.conditional or ("", "")
    state.react.step += 1
    guard(state, ctx, action="conditional")
    primary_ids = mentioned_places(cond, pack)
    alt_text = re.sub(
        r"^(就|那就|则|便)?(改成?|换成?|改去|换去|去|switch to|change to|go to|then)\s*", "", then, flags=re.I
    ).strip()
    alt_ids = mentioned_places(alt_text, pack)

    def place(pid: str) -> RegionPlace:
        p = pack.place_by_id(pid)
        assert p is not None, "mentioned_places and the trip draft give the pack's own ids"
        return p

    # Where the first branch would be: a place in the condition, else the last place of the trip draft.
    if not primary_ids and ctx.request.trip_id:
        act(
            registry,
            "trip.load_draft",
            {"trip_id": ctx.request.trip_id},
            state,
            ctx,
            reason_code="LOAD_TRIP_DRAFT",
            policy_id=POLICY_BRANCH,
        )
        primary_ids = [n["place_id"] for n in state.draft.nodes if n.get("place_id")][-1:]
    names = [
        *(place(p).name_zh for p in primary_ids[:1]),
        *(place(p).name_zh for p in alt_ids[:1]),
    ]
    if names:
        act(
            registry,
            "places.resolve_entities",
            {"names": names},
            state,
            ctx,
            reason_code="UNRESOLVED_ENTITIES",
            policy_id=POLICY_BRANCH,
            facts={"names": names},
        )
    ids = [*primary_ids[:1], *alt_ids[:1]]
    if ids:
        act(
            registry,
            "places.get_poi_facts",
            {"place_ids": ids},
            state,
            ctx,
            reason_code="MISSING_POI_FACTS",
            policy_id=POLICY_BRANCH,
        )
    now = ctx.now
    sunset_kw = re.search(r"日落|夕阳|sunset", cond, re.I)
    sun = when.sun_times(now.date(), lon=pack.center[0], lat=pack.center[1], tz=pack.timezone)
    deadline = sun[1] if (sun and sunset_kw) else None
    start: dict[str, Any] = {"name": "city centre", "lon": pack.center[0], "lat": pack.center[1]}

    def eta_to(pid: str) -> tuple[datetime, float]:
        from core.geo.base import LonLat

        p = place(pid)
        leg = ctx.provider.route(LonLat(start["lon"], start["lat"]), LonLat(p.lon, p.lat), mode="driving")
        robust = leg.duration_s * 1.3 + 600  # a conservative buffer; the figure is an offline estimate when offline
        return now + timedelta(seconds=robust), leg.duration_s

    branches: list[dict[str, Any]] = []
    # Branch A: the condition holds (we make it) -> keep the plan
    a: dict[str, Any] = {
        "branch": "A",
        "condition": (f"赶得上{cond.replace('赶不上', '').replace('来不及', '')}" if zh else f"NOT ({cond})"),
        "action": "keep_plan",
        "target": place(primary_ids[0]).name_zh if primary_ids else None,
    }
    if deadline is not None:
        a["sunset"] = deadline.strftime("%H:%M")
        a["sunset_source"] = "astronomical_calculation"
    if primary_ids and deadline is not None:
        eta, nominal = eta_to(primary_ids[0])
        a.update(
            {
                "eta": eta.strftime("%H:%M"),
                "nominal_travel_min": round(nominal / 60),
                "feasible": eta <= deadline,
                "evaluation": "EVALUATED",
            }
        )
    elif deadline is not None:
        a.update({"feasible": None, "evaluation": "NEEDS_TARGET_PLACE"})
    else:
        a.update({"feasible": None, "evaluation": "CONDITION_NOT_COMPUTABLE"})
    branches.append(a)
    # Branch B: the condition fails -> the alternative
    b: dict[str, Any] = {"branch": "B", "condition": cond, "action": "switch_to", "target": alt_text}
    if alt_ids:
        p = place(alt_ids[0])
        eta, nominal = eta_to(alt_ids[0])
        b.update(
            {
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
    else:
        b.update({"feasible": None, "evaluation": "NOT_IN_KNOWLEDGE_BASE"})
    branches.append(b)
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
            "sunset": a.get("sunset"),
        },
    )
    lang = fastpath.state_lang(state)
    lines = [t("agent.conditional.condition", lang, condition=cond)]
    for br in branches:
        head = {"branch": br["branch"], "condition": br["condition"]}
        if br["evaluation"] == "EVALUATED":
            verdict = t("agent.conditional.feasible" if br["feasible"] else "agent.conditional.not_feasible", lang)
            sunset = t("agent.conditional.sunset", lang, sunset=br["sunset"]) if br.get("sunset") else ""
            lines.append(t("agent.conditional.evaluated", lang, **head, target=br["target"], eta=br["eta"],
                           sunset=sunset, verdict=verdict))  # fmt: skip
        elif br["evaluation"] == "NOT_IN_KNOWLEDGE_BASE":
            lines.append(t("agent.conditional.not_in_kb", lang, **head, target=br["target"], city=pack.city))
        elif br["evaluation"] == "NEEDS_TARGET_PLACE":
            lines.append(t("agent.conditional.needs_place", lang, **head, sunset=br.get("sunset")))
        else:
            lines.append(t("agent.conditional.not_computed", lang, **head))
    state.result.explanations = lines
    state.result.status = "OK"
    open_branches = sum(1 for br in branches if br["feasible"] is None)
    if open_branches:
        state.result.next_steps.append(NextStep(code="name_branch_place", args={"branches": open_branches}))
