"""The planned itinerary as System 2's reply (core/agent/loop.py plans it): the timeline, the places suggested and
their facts as evidence, the explanation's facts and notes, FAILED for a must the plan cannot hold, NEEDS_REVIEW
when the critic still fails after the repairs, and the dry run of saving it when the person asked to.
"""

from __future__ import annotations

import re
from typing import Any, TypedDict

from core.agent import fastpath
from core.agent.actions.names import ActionName
from core.agent.actions.registry import ActionRegistry
from core.agent.assumed import read_assumed
from core.agent.flows.itinerary_fixes import must_fix_steps
from core.agent.state import AgentContext, log_decision
from core.agent.steps import POLICY_CHECK, issue_dry_run
from core.agent.trip_request import day_window_evidence
from core.agent.trip_wishes import note_wishes
from core.models.agent import AgentState, NextStep
from core.models.common import Lang
from core.models.itinerary_result import ItineraryResult
from core.models.region import RegionPack
from core.words.agent import dropped_lines, name_of, visit_words
from core.words.assumed import assumed_sentence
from core.words.day_window import day_window_sentence
from core.words.itinerary import violation_sentence

__all__ = ["decision_needs_availability", "finish_plan", "nothing_to_plan"]


class _PlanFacts(TypedDict):
    """The facts llm.generate_explanation words (nothing else goes in)."""

    days: list[dict[str, Any]]
    dropped: list[str]
    robustness: float | None
    min_slack_min: int | None
    notes: list[str]


def nothing_to_plan(state: AgentState) -> None:
    """No place to plan (none in the draft, none named, none suggested): the person is asked what to see."""
    state.result.status = "NEED_MORE_INFO"
    state.result.explanations = [fastpath.t("agent.plan.nothing", fastpath.state_lang(state))]


def _timeline_payload(result: ItineraryResult) -> list[dict[str, Any]]:
    """Each entry of each day, as the reply's timeline rows."""
    out = []
    for day in result.days:
        for e in day.entries:
            out.append(
                {
                    "day": day.day_index + 1,
                    "date": day.date.isoformat(),
                    "kind": e.kind,
                    "key": e.key,
                    "name": e.name,
                    "start": e.start.strftime("%H:%M"),
                    "end": e.end.strftime("%H:%M"),
                    "slack_min": e.slack_min,
                    "robust_min": e.robust_min,
                    "nominal_min": e.nominal_min,
                    "source": e.source,
                    "priority": e.priority,
                    "lon": e.lon,
                    "lat": e.lat,
                    "part": e.part,
                    "meal": e.meal,
                }
            )
    return out


def _add_sources(state: AgentState, pack: RegionPack) -> None:
    """The places the agent suggested, as candidates, and each place's facts from the pack, as evidence."""
    for pid in state.memory.user_profile.get("suggested", []):
        p = pack.place_by_id(pid)
        assert p is not None, "suggest_places only gives the pack's own ids"
        state.result.candidates.append(
            {"place_id": pid, "name": p.name_zh, "tags": list(p.tags), "rating": p.rating, "why": "kb_suggestion"}
        )
    for poi in state.memory.semantic_facts.pois:
        state.result.evidence.append(
            {
                "type": "poi_facts",
                "place_id": poi["place_id"],
                "name": poi["name"],
                "opening_hours": poi["opening_hours"],
                "needs_reservation": poi["needs_reservation"],
                "source": f"region_pack:{pack.name}",
            }
        )


def _plan_facts(result: ItineraryResult, pack: RegionPack, lang: Lang) -> _PlanFacts:
    """The facts the explanation words: each day's visits and the dropped places in ``lang``, the plan's slack."""
    return {
        "days": [
            {
                "day": d.day_index,
                "date": d.date.isoformat(),
                "visits": [  # in the reply's language (the pack's English name in English, when it has one)
                    visit_words(e, pack, lang) for e in d.entries if e.kind == "visit" and not e.continues_visit
                ],
            }
            for d in result.days
        ],
        "dropped": dropped_lines(result, lambda key: name_of(pack, key, "", lang), lang),  # worded, no codes
        "robustness": result.robustness.score if result.robustness else None,
        "min_slack_min": result.robustness.min_slack_min if result.robustness else None,
        "notes": [],
    }


def _fail_infeasible(state: AgentState, result: ItineraryResult, pack: RegionPack, lang: Lang) -> None:
    """A must the plan cannot hold: FAILED, with the steps that would fix it."""
    state.result.status = "FAILED"
    state.result.error_code = "PLANNER_INFEASIBLE_HARD_NODES"
    fixes = must_fix_steps(result, lambda key: name_of(pack, key, key, lang))
    musts = [d.name for d in result.dropped_items if d.priority == "must"]
    said = [
        name_of(pack, d.key, d.name, lang) if d.key else d.name for d in result.dropped_items if d.priority == "must"
    ]
    state.result.next_steps += fixes or [NextStep(code="relax_must")]
    head = fastpath.t("agent.plan.infeasible", lang, names=fastpath.join_words(said, lang))
    state.result.explanations = [head]
    log_decision(
        state,
        action=ActionName.POLICY_VALIDATE_FEASIBILITY,
        reason_code="PLANNER_INFEASIBLE_HARD_NODES",
        policy_id=POLICY_CHECK,
        facts={"must_dropped": musts[:10]},
    )


def _add_notes(state: AgentState, ctx: AgentContext, result: ItineraryResult, lang: Lang, notes: list[str]) -> None:
    """The notes the explanation carries: the defaults taken for what the message did not say (the day, the party,
    the budget), the day's window and its source, availability asked but not verified, the agent's suggestions
    swapped, offline estimates."""
    pack = ctx.provider.region
    if result.days:
        assumed = read_assumed(state.user_input, plan_date=result.days[0].date, today=ctx.now.date())
        state.result.evidence.append(assumed.evidence())
        said = assumed_sentence(assumed.defaults, day=result.days[0].date, party_size=assumed.party_size, lang=lang)
        if said:
            notes.append(said)
    state.result.evidence.append(day_window_evidence(state))
    notes.append(day_window_sentence(state.trip, lang))
    if decision_needs_availability(state):
        needs = [p["name"] for p in state.memory.semantic_facts.pois if p.get("needs_reservation")]
        state.result.evidence.append(
            {"type": "availability", "verified_live": False, "needs_reservation": needs, "source": "knowledge_base"}
        )
        listed = fastpath.join_words(needs, lang) or fastpath.t("agent.plan.none", lang)
        notes.append(fastpath.t("agent.plan.availability_not_verified", lang, names=listed))
        state.result.next_steps.append(NextStep(code="allow_webbrowse", args={"to_verify": "availability"}))
    swapped = state.memory.user_profile.get("suggestions_swapped") or {}
    if swapped.get("added"):  # the agent's own suggestions changed: said, never silent
        notes.append(
            fastpath.t(
                "agent.plan.suggestions_swapped",
                lang,
                dropped=fastpath.join_words([name_of(pack, k, k, lang) for k in swapped["dropped"]], lang),
                added=fastpath.join_words([name_of(pack, k, k, lang) for k in swapped["added"]], lang),
            )
        )
    if any(n.startswith("Offline estimate") for n in result.warnings):
        notes.append(fastpath.t("agent.plan.offline_estimates", lang))


def _flag_needs_review(state: AgentState, pack: RegionPack, lang: Lang) -> None:
    """The critic still fails after the repairs: NEEDS_REVIEW, its problems worded (never answered as OK)."""
    state.result.status = "NEEDS_REVIEW"
    critic = state.compute.critic
    problems = list(dict.fromkeys(
        violation_sentence(v, lambda key: name_of(pack, key, key, lang), lang) for v in critic.violations
    ))  # fmt: skip
    state.result.explanations.append(
        fastpath.t("agent.plan.needs_review", lang, problems=fastpath.join_words(problems, lang, sep="sentences"))
    )
    codes = ",".join(sorted(critic.codes()))
    state.result.next_steps.append(NextStep(code="critic", args={"codes": codes}))


def finish_plan(state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    """The planned itinerary as the reply: its timeline, sources and explanation, FAILED for a must it cannot hold,
    NEEDS_REVIEW when the critic still fails, and the offer to save it when asked."""
    result = state.compute.itinerary
    lang = fastpath.state_lang(state)
    if result is None:
        return
    state.result.timeline = _timeline_payload(result)
    state.result.dropped_items = [d.model_dump(mode="json") for d in result.dropped_items]
    pack = ctx.provider.region
    _add_sources(state, pack)
    facts = _plan_facts(result, pack, lang)
    wishes = note_wishes(state, result, pack, lang)  # every wish accounted for, in both outcomes
    if result.status == "infeasible":
        _fail_infeasible(state, result, pack, lang)
        state.result.explanations += wishes
        return
    _add_notes(state, ctx, result, lang, facts["notes"])
    exp = registry.call(
        ActionName.LLM_GENERATE_EXPLANATION,
        {"facts": facts, "locale": "zh-CN" if lang == "zh" else "en"},
        state=state,
        ctx=ctx,
    )
    state.result.explanations = [exp.text, *wishes]
    state.result.status = "READY"
    if result.status == "needs_review":
        _flag_needs_review(state, pack, lang)
    if state.trip.window_problem is not None and state.result.status == "READY":
        _ask_hours_again(state)
    _maybe_offer_persist(state, ctx)


def _ask_hours_again(state: AgentState) -> None:
    """The hours said could not be the days (an end before the start, 25点, a window already over today): the plan
    shown runs on the default hours, which is not what was asked, so the answer is NEED_MORE_INFO (never OK) with
    the hours asked again; the notes say which hours the plan used and why."""
    problem = state.trip.window_problem or ""
    state.result.status = "NEED_MORE_INFO"
    state.result.next_steps.append(NextStep(code="missing", args={"field": "day_window", "problem": problem}))
    window = state.trip.day_boundaries[0]
    log_decision(
        state,
        action=ActionName.POLICY_VALIDATE_FEASIBILITY,
        reason_code="DAY_WINDOW_NOT_AS_ASKED",
        policy_id=POLICY_CHECK,
        facts={"problem": problem, "said": state.trip.window_said or "", "start": window.start, "end": window.end},
    )


def decision_needs_availability(state: AgentState) -> bool:
    """Whether the message asks if the places can still be booked (which the plan cannot verify live)."""
    return bool(re.search(r"订到|可订|有房|有票|余票|availab|can (still )?book|bookable", state.user_input, re.I))


def _maybe_offer_persist(state: AgentState, ctx: AgentContext) -> None:
    """Saving a plan into the trip store is a commit: dry run now, NEED_CONFIRMATION, commit later."""
    from core.agent.lexicon import SAVE

    if not SAVE.search(state.user_input):
        return
    result = state.compute.itinerary
    nodes = []
    for day in result.days:
        for e in day.entries:
            if e.kind == "visit" and e.key and not e.continues_visit:
                place = ctx.provider.region.place_by_id(e.key)
                nodes.append(
                    {
                        "name": e.name,
                        "place_id": place.id if place else None,
                        "day": day.day_index + 1,
                        "priority": e.priority or "should",
                        **({"meal": e.meal} if e.meal else {}),
                    }
                )
    current = ctx.store.get_trip(ctx.request.trip_id, user_id=ctx.request.user_id) if ctx.request.trip_id else None
    evidence = [
        {
            "type": "persist_plan",
            "trip_id": ctx.request.trip_id,
            "days": len(result.days),
            "nodes": len(nodes),
            "replaces_nodes": len(current.nodes) if current else 0,
            "price_total_per_person": sum(
                (p.get("price_per_person") or 0)
                for p in state.memory.semantic_facts.pois
                if any(n["place_id"] == p["place_id"] for n in nodes)
            ),
            "cancellation_policy": "n/a (a trip draft)",
            "availability": "not_verified",
        }
    ]
    params = {
        "trip_id": ctx.request.trip_id,
        "region": ctx.provider.region.name,
        "days": len(result.days),
        "nodes": nodes,
        "title": "Planned trip",
    }
    issue_dry_run(state, ctx, action=ActionName.TRIP_PERSIST_PLAN, params=params, evidence=evidence)
