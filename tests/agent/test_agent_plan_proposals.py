"""The model may propose the Plan stage's next step (issue 31, seed 003's to-do), off by default: within the Action
Registry and checked by the rules; a proposal outside the registry or breaking a rule is refused, logged and the
deterministic step runs. The model is an OpenAI-compatible stand-in (httpx.MockTransport): offline."""

from __future__ import annotations

import json

import httpx
import pytest

from core.agent import route_and_run
from core.agent.llm import make_llm
from core.agent.telemetry import read_events
from core.app.agent import agent_deps
from tests.support.agent_packs import FIXED_NOW, make_provider, make_settings

PLAN = "plan 1 day in Shanghai: the Bund and the Shanghai Museum"
LOOP_ACTIONS = ["places.get_poi_facts", "transport.build_time_matrix", "itinerary.optimize_day_vrptw",
                "policy.validate_feasibility"]  # fmt: skip


def _agent(tmp_path, propose, **settings_over):
    """``ask(message)`` with a model whose plan proposals are ``propose(facts)``; ``asked``: the facts it was sent."""
    settings = make_settings(tmp_path, llm_base_url="http://llm.test/v1", **settings_over)
    asked: list[dict] = []

    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
        if "next step of a travel-itinerary planner" in system:
            facts = json.loads(user)
            asked.append(facts)
            content = propose(facts)
        else:  # the explanation's wording
            content = "Your day is planned."
        return httpx.Response(200, json={"choices": [{"message": {"content": content}}], "usage": {"total_tokens": 9}})

    llm = make_llm(settings, client=httpx.Client(transport=httpx.MockTransport(answer)))
    provider = make_provider(settings)

    def ask(message):
        return route_and_run({"message": message, "user_id": "alice"}, agent_deps(settings, provider, llm=llm), now=FIXED_NOW)  # fmt: skip

    ask.asked, ask.settings = asked, settings
    return ask


def _proposals(r):
    return [e for e in r.explain.decision_log if e.policy_id == "LLM_PLAN_PROPOSAL"]


def test_off_by_default_the_model_is_never_asked_for_a_step(tmp_path):
    ask = _agent(tmp_path, lambda facts: json.dumps({"action": facts["allowed"][0]}))
    r = ask(PLAN)
    assert r.result.status == "OK" and ask.asked == [] and _proposals(r) == []


def test_a_proposal_the_rules_accept_is_run_and_logged(tmp_path):
    ask = _agent(tmp_path, lambda facts: json.dumps({"action": facts["allowed"][0]}), llm_plan_proposals=True)
    r = ask(PLAN)
    assert r.result.status == "OK" and r.result.payload.timeline
    accepted = _proposals(r)
    assert [e.chosen_action for e in accepted] == LOOP_ACTIONS
    assert {e.reason_code for e in accepted} == {"LLM_PROPOSED"}
    assert ask.asked[0]["allowed"] == ["places.get_poi_facts"]  # the first step allows only the facts
    assert ask.asked[0]["present"] == {"facts": False, "matrix": False, "optimise": False, "check": False}


@pytest.mark.parametrize(
    ("answer", "rule"),
    [
        ('{"action": "payments.charge_card"}', "ACTION_NOT_REGISTERED"),
        ('{"action": "reservations.confirm"}', "ACTION_NOT_A_PLAN_STEP"),
        ('{"action": "itinerary.optimize_day_vrptw"}', "PHASE_ORDER"),  # before any fact or matrix
        ('{"action": "llm.generate_explanation"}', "PHASE_ORDER"),  # finishing before the critic ran
        ("optimise first, then check", "PROPOSAL_UNREADABLE"),
        ('{"action": "policy.validate_feasibility", "why": "it is fast"}', "PROPOSAL_UNREADABLE"),
    ],
)
def test_a_proposal_that_breaks_a_rule_is_refused_logged_and_the_plan_is_the_deterministic_one(tmp_path, answer, rule):
    ask = _agent(tmp_path, lambda facts: answer, llm_plan_proposals=True)
    r = ask(PLAN)
    assert r.result.status == "OK" and r.result.payload.timeline
    first = _proposals(r)[0]  # the first step: only the facts may come first
    assert first.reason_code == "PROPOSAL_REFUSED"
    assert (first.facts["rule"], first.facts["fallback"]) == (rule, "places.get_poi_facts")
    refused = [e for e in _proposals(r) if e.reason_code == "PROPOSAL_REFUSED"]
    assert {e.facts["rule"] for e in refused} == {rule}  # (optimising is accepted when it is the step)
    steps = [e.chosen_action for e in r.explain.decision_log if e.policy_id != "LLM_PLAN_PROPOSAL"]
    for action in LOOP_ACTIONS:  # every deterministic step ran, in order
        assert action in steps
    assert [steps.index(a) for a in LOOP_ACTIONS] == sorted(steps.index(a) for a in LOOP_ACTIONS)
    events = [e for e in read_events(ask.settings.agent_event_log) if e["event"] == "fallback_triggered"]
    assert events and {e["reason"] for e in events} == {rule} and events[0]["to_route"] == "DETERMINISTIC_PLAN"


def test_after_a_failed_critic_the_model_may_choose_a_repair_or_to_finish_and_nothing_else():
    from types import SimpleNamespace

    from core.agent.proposal import permitted
    from core.models.agent import AgentState

    state = AgentState(request_id="r", user_input="plan")
    assert permitted(state, planned="facts", may_repair=True) == {"facts"}
    state.compute.critic = SimpleNamespace(passed=False)
    assert permitted(state, planned="repair", may_repair=True) == {"repair", "finish"}
    assert permitted(state, planned="repair", may_repair=False) == {"repair", "finish"}  # the loop's own repair
    state.compute.critic = SimpleNamespace(passed=True)
    assert permitted(state, planned="check", may_repair=True) == {"check", "finish"}
