"""System 2: the registry, the budgeted ReAct loop wired to the real optimiser, outcomes
(READY, PLANNER_INFEASIBLE_HARD_NODES, TIMEOUT + fallback), conditional branches, the decision
log (structured, no free text) and the telemetry events/metrics."""

from __future__ import annotations

import itertools
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from pydantic import BaseModel, ValidationError

from core.agent.actions.catalog import default_registry
from core.agent.actions.registry import ActionRegistry
from core.agent.actions.spec import ActionError, ActionSpec
from core.agent.state import AgentContext, new_state
from core.agent.telemetry import Telemetry, compute_metrics, read_events
from core.app.agent import agent_deps
from core.models.agent import AgentRequest, DecisionLogEntry, NextStep
from tests.support.agent_packs import agent_runner, make_provider, make_settings
from tests.support.paths import ROOT as PROJECT_ROOT

SHANGHAI = ZoneInfo("Asia/Shanghai")

SPEC_ACTIONS = {
    "trip.load_draft",
    "trip.apply_user_edit",
    "trip.persist_plan",
    "places.resolve_entities",
    "places.get_poi_facts",
    "transport.build_time_matrix",
    "transport.apply_robustness_policy",
    "itinerary.cluster_days_balanced",
    "itinerary.optimize_day_vrptw",
    "itinerary.repair_cross_day",
    "policy.validate_feasibility",
    "policy.score_robustness",
    "llm.generate_explanation",
}
NON_ACTION_STEPS = {
    "router.route",
    "router.clarify",
    "gate.consent",
    "gate.dry_run",
    "gate.confirm",
    "orchestrator.fallback",
    "orchestrator.evaluate_branches",
}


@pytest.fixture
def env(tmp_path):
    return agent_runner(tmp_path)


def _check_log(resp):
    names = set(default_registry().names()) | NON_ACTION_STEPS
    for e in resp.explain.decision_log:
        assert e.chosen_action in names, e.chosen_action
        assert e.reason_code.isupper() and e.policy_id.isupper()
        for v in e.facts.values():
            vals = v if isinstance(v, list) else [v]
            assert all(
                x is None
                or isinstance(x, bool | int | float)
                or (isinstance(x, str) and len(x) <= 80 and "\n" not in x)
                for x in vals
            )
    return [e.chosen_action for e in resp.explain.decision_log]


def test_registry_declares_every_spec_action_with_metadata_and_schemas():
    reg = default_registry()
    assert SPEC_ACTIONS <= set(reg.names())
    for d in reg.describe():
        meta = d["metadata"]
        assert meta["kind"] in ("internal", "external") and meta["cost"] in ("low", "med", "high")
        assert meta["side_effect"] in ("none", "writes_db", "calls_api")
        assert isinstance(meta["preconditions"], list) and isinstance(meta["idempotent"], bool)
        assert d["input_schema"]["type"] == "object" and d["output_schema"]["type"] == "object"
    assert reg.get("trip.persist_plan").side_effect == "writes_db"
    assert reg.get("trip.load_draft").preconditions == ("trip.trip_id",)


def test_registry_validates_input_output_and_preconditions(tmp_path):
    class In(BaseModel):
        n: int

    class Out(BaseModel):
        doubled: int

    calls = []
    reg = ActionRegistry()
    reg.register(
        ActionSpec(
            name="demo.double",
            description="x",
            kind="internal",
            cost="low",
            side_effect="none",
            preconditions=(),
            idempotent=True,
            cacheable=True,
            input_model=In,
            output_model=Out,
            fn=lambda i, s, c: calls.append(i.n) or {"doubled": i.n * 2},
        )
    )
    reg.register(
        ActionSpec(
            name="demo.bad",
            description="x",
            kind="internal",
            cost="low",
            side_effect="none",
            preconditions=(),
            idempotent=True,
            cacheable=False,
            input_model=In,
            output_model=Out,
            fn=lambda i, s, c: {"doubled": "not a number"},
        )
    )
    reg.register(
        ActionSpec(
            name="demo.needs",
            description="x",
            kind="internal",
            cost="low",
            side_effect="none",
            preconditions=("compute.problem",),
            idempotent=True,
            cacheable=False,
            input_model=In,
            output_model=Out,
            fn=lambda i, s, c: {"doubled": 0},
        )
    )
    settings = make_settings(tmp_path)
    tel = Telemetry(settings.agent_event_log, request_id="r1")
    req = AgentRequest(message="x", request_id="r1")
    provider = make_provider(settings)
    deps = agent_deps(settings, provider)  # what the root hands the agent: its database, its reservation service
    state, ctx = (
        new_state(req),
        AgentContext(
            settings=settings,
            request=req,
            provider=provider,
            database=deps.database,
            reservations=deps.reservations,
            telemetry=tel,
            now=datetime(2027, 3, 6, 10, tzinfo=SHANGHAI),
        ),
    )
    assert reg.call("demo.double", {"n": 2}, state=state, ctx=ctx).doubled == 4
    assert reg.call("demo.double", {"n": 2}, state=state, ctx=ctx).doubled == 4  # cached
    assert calls == [2] and state.observability.tool_calls == 1
    with pytest.raises(ActionError, match="invalid input"):
        reg.call("demo.double", {"n": "two"}, state=state, ctx=ctx)
    with pytest.raises(ActionError, match="invalid output"):
        reg.call("demo.bad", {"n": 1}, state=state, ctx=ctx)
    with pytest.raises(ActionError, match="unmet preconditions: compute.problem"):
        reg.call("demo.needs", {"n": 1}, state=state, ctx=ctx)
    with pytest.raises(ActionError, match="unknown action"):
        reg.call("demo.nope", {}, state=state, ctx=ctx)
    logged = [e for e in read_events(settings.agent_event_log) if e["event"] == "action_call"]
    assert [(e["action"], e["ok"], e["cached"]) for e in logged] == [
        ("demo.double", True, False),
        ("demo.double", True, True),
        ("demo.double", False, False),
        ("demo.bad", False, False),
        ("demo.needs", False, False),
    ]
    assert all(e["trace_id"].startswith("r1:") and isinstance(e["ms"], float) for e in logged)


def test_three_day_plan_is_ready_and_checked_by_the_critic(env):
    r = env("规划3天上海行程")
    assert r.route.route == "SYSTEM2_REASONING"
    assert r.result.status == "OK", r.result.answer_text
    days = {e["day"] for e in r.result.payload.timeline}
    assert days == {1, 2, 3}
    assert any(e["kind"] == "lunch" for e in r.result.payload.timeline)
    rob = r.result.payload.robustness
    assert rob["legs"] > 0 and 0 < rob["score"] <= 1 and rob["legs_fully_covered"] <= rob["legs"]
    actions = _check_log(r)
    order = [a for a in actions if a in SPEC_ACTIONS | {"itinerary.prepare_problem", "policy.check_itinerary"}]
    # facts first, then matrix, then optimise, then check
    assert (
        order.index("places.get_poi_facts")
        < order.index("transport.build_time_matrix")
        < order.index("transport.apply_robustness_policy")
        < order.index("itinerary.cluster_days_balanced")
        < order.index("itinerary.optimize_day_vrptw")
        < order.index("policy.validate_feasibility")
        < order.index("policy.check_itinerary")
    )
    steps = [e.step for e in r.explain.decision_log]
    assert steps == sorted(steps) and max(steps) <= 8
    assert r.observability.system_mode == "SYSTEM2" and r.observability.fallback_used is False
    assert r.explain.status_flow[-1] == "done" and "verifying" in r.explain.status_flow


def test_qa_plan_with_availability_verifies_and_says_what_is_not_verified(env):
    r = env("规划 5 天游+冷门+还能订到")
    assert r.route.route == "SYSTEM2_REASONING" and r.route.ui_hint.status == "verifying"
    assert r.result.status == "OK"
    avail = [e for e in r.result.payload.evidence if e["type"] == "availability"]
    assert avail and avail[0]["verified_live"] is False
    assert "verifying" in r.explain.status_flow
    assert NextStep(code="allow_webbrowse", args={"to_verify": "availability"}) in r.result.next_steps


def test_must_visit_that_cannot_fit_fails_with_what_to_change(env):
    r = env("规划1天行程，必去短时展厅")  # open 10:00-10:20 but a visit takes 120 minutes
    assert r.result.status == "FAILED"
    assert r.result.error_code == "PLANNER_INFEASIBLE_HARD_NODES"
    assert "短时展厅" in r.result.answer_text
    assert [s.code for s in r.result.next_steps] == ["relax_must"]  # no single change fits it
    assert any(d["key"] == "a-shortwindow" and d["priority"] == "must" for d in r.result.payload.dropped_items)


def test_a_must_visit_place_with_a_smallest_fix_gets_it_as_a_next_step_said_as_the_itinerary_says_it(env):
    from components.agent.words import next_steps_words
    from core.models.itinerary_result import SmallestFix
    from core.words.itinerary import fix_sentence

    r = env("规划1天行程，必去外滩、豫园、上海博物馆、东方明珠、静安寺、龙华寺")
    assert r.result.status == "FAILED" and r.result.error_code == "PLANNER_INFEASIBLE_HARD_NODES"
    [item] = [d for d in r.result.payload.dropped_items if d["priority"] == "must" and d["smallest_fix"]]
    fix = SmallestFix.model_validate(item["smallest_fix"])
    [step] = r.result.next_steps
    assert step.code == "apply_fix" and step.args["place_key"] == item["key"] and step.args["kind"] == fix.kind
    assert step.args["day"] == (fix.day_index or 0) + 1
    for lang in ("zh", "en"):  # facts in the core, the itinerary's own sentence at the edge
        assert next_steps_words([step], lang) == [fix_sentence(fix, lambda key: key, lang)]


def test_timeout_returns_the_best_partial_result_with_fallback(env):
    ticks = itertools.count()
    clock = lambda: next(ticks) * 0.4  # noqa: E731 - each look at the clock is 0.4 s later (deterministic)
    r = env("规划3天上海行程", options={"max_seconds": 3}, clock=clock)
    assert r.result.status == "TIMEOUT"
    assert r.result.error_code == "TIMEOUT_SYSTEM2"
    assert r.observability.fallback_used is True
    # codes and facts, no words: the faces say them (components/agent/words.py)
    assert [s.code for s in r.result.next_steps] == ["retry_more_time", "plan_less", "ask_one_by_one"]
    assert "max_" not in r.result.answer_text  # no option's name (max_seconds) in a reply
    assert r.result.payload.timeline or r.result.payload.candidates  # the best partial result
    assert r.explain.decision_log[-1].chosen_action == "orchestrator.fallback"
    assert r.explain.status_flow[-1] == "failed"


def test_step_budget_is_enforced(env):
    r = env("规划3天上海行程", options={"max_steps": 2})
    assert r.result.status == "TIMEOUT" and r.result.error_code == "BUDGET_EXCEEDED"
    assert max(e.step for e in r.explain.decision_log) <= 2
    assert r.observability.fallback_used is True
    assert all(e["verified"] is False for e in r.result.payload.timeline)


def test_an_offline_plan_costs_no_money_so_a_zero_usd_budget_holds(env):
    # the cost budget is money: offline work costs 0 USD (the actions' internal units are not dollars)
    r = env("规划3天上海行程", options={"cost_budget_usd": 0})
    assert r.result.error_code != "BUDGET_EXCEEDED" and r.result.status != "TIMEOUT"
    assert r.observability.spent_usd == 0 and r.observability.cost_units > 0


def test_conditional_produces_both_branches_each_evaluated(env):
    r = env("赶不上日落就改横滨")
    assert r.route.route == "SYSTEM2_REASONING"
    branches = r.result.payload.branches
    assert [b["branch"] for b in branches] == ["A", "B"]
    assert branches[0]["sunset"] == "19:01" and branches[0]["sunset_source"] == "astronomical_calculation"
    assert branches[1]["condition"] == "赶不上日落" and branches[1]["target"] == "横滨"
    assert branches[0]["evaluation"] == "NEEDS_TARGET_PLACE"  # no place to see the sunset from: asked for
    assert branches[1]["evaluation"] == "REGION_NOT_COVERED" and branches[1]["place"] == "Yokohama"
    assert (r.result.status, r.result.error_code) == ("NEED_MORE_INFO", "REGION_NOT_COVERED")  # never a silent OK
    assert "条件：赶不上日落" in r.result.answer_text and "横滨" in r.result.answer_text
    r = env("如果赶不上外滩的日落就改去东方明珠")
    a, b = r.result.payload.branches
    assert a["target"] == "外滩" and a["evaluation"] == "EVALUATED" and a["feasible"] is True  # 15:00 + a short ride
    assert b["target"] == "东方明珠广播电视塔" and b["open_at_eta"] is True
    _check_log(r)


def test_decision_log_rejects_free_text():
    DecisionLogEntry(
        step=1,
        chosen_action="places.get_poi_facts",
        reason_code="MISSING_POI_FACTS",
        facts={"n": 3},
        policy_id="FACTS_FIRST",
    )
    with pytest.raises(ValidationError):
        DecisionLogEntry(
            step=1,
            chosen_action="places.get_poi_facts",
            reason_code="MISSING_POI_FACTS",
            facts={"thought": "I think the user probably wants to see the river, so " * 3},
            policy_id="FACTS_FIRST",
        )
    with pytest.raises(ValidationError):
        DecisionLogEntry(step=1, chosen_action="Let me think", reason_code="X", policy_id="P")
    with pytest.raises(ValidationError):
        DecisionLogEntry(step=1, chosen_action="a.b", reason_code="because it is nice", policy_id="P")


def test_events_and_metrics(env):
    for m in ("豫园几点开门", "明天天气", "规划3天上海行程", "官网查房"):
        env(m)
    env("规划3天上海行程", options={"max_steps": 1})
    events = read_events(env.settings.agent_event_log)
    kinds = {e["event"] for e in events}
    assert {"router_decision", "system2_step", "critic_result", "fallback_triggered", "agent_complete"} <= kinds
    assert not any("豫园几点开门" in str(e) for e in events)  # messages are not logged
    m = compute_metrics(events)
    assert m["requests"] == 5 and m["router_p95_ms"] is not None and m["system1_p95_ms"] is not None
    assert m["system2_success_rate"]["plan"] == 0.5 and m["fallback_rate"] == 0.2


def test_open_requests_are_not_given_all_day_venues_they_cannot_fit():
    """Unnamed suggestions skip all-day venues (they would be dropped beside the day's other stops)."""

    from core.agent.trip_request import SUGGEST_MAX_VISIT_MIN, suggest_places
    from core.packs.loader import load_region

    pack = load_region("shanghai", PROJECT_ROOT / "data")
    long_kid_venues = {
        p.id for p in pack.places if "kid_friendly" in p.tags and p.visit_minutes > SUGGEST_MAX_VISIT_MIN
    }
    assert "sh-disneyland" in long_kid_venues  # the pack has such venues, and they rank high for kids
    for text in ("带孩子玩两天", "plan 2 days in Shanghai with kids"):
        ids = suggest_places(pack, text=text, count=6, exclude=set(), when=datetime(2027, 3, 6, 10, tzinfo=SHANGHAI))
        assert len(ids) == 6 and not set(ids) & long_kid_venues
        assert all("kid_friendly" in pack.place_by_id(i).tags for i in ids)
        assert all(pack.place_by_id(i).visit_minutes <= SUGGEST_MAX_VISIT_MIN for i in ids)
