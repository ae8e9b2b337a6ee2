"""AgentState is the one state (spec §3, issue 31): the request's consent decision, the booking follow-up and the
standing rules read are the state's, as plain data the response keeps with the conversation's turn
(``explain.state``); AgentContext holds only what the root injects and the request itself."""

from __future__ import annotations

import dataclasses
import json

import pytest

from core.agent.state import AgentContext
from tests.support.agent_packs import agent_runner


@pytest.fixture
def env(tmp_path):
    return agent_runner(tmp_path)


def test_the_context_holds_dependencies_and_the_request_only():
    # besides what the root hands down and the request: where the request started on the shared clock and on the
    # shared clients' ledgers (its duration and its spending are measured from them), never a decision or a fact
    assert {f.name for f in dataclasses.fields(AgentContext)} == {
        "settings", "request", "now", "provider", "database", "reservations", "store", "memory", "telemetry", "llm",
        "browser", "clock", "started", "llm_start", "map_requests_start", "progress", "lang",
    }  # fmt: skip


def test_the_consent_decision_is_the_states_and_says_where_it_came_from(env):
    asked = env("check the hotel's official site for rooms", conversation_context={"conversation_id": "trip-42"})
    assert asked.explain.state["consent"] == {"browse": False, "browse_source": None}
    given = env(
        "check the hotel's official site for rooms",
        options={"allow_webbrowse": True},
        conversation_context={"conversation_id": "trip-42"},
    )
    assert given.explain.state["consent"] == {"browse": True, "browse_source": "request"}
    # the next message of the same conversation, without the option: the conversation's consent holds
    later = env("官网查一下还有没有房", conversation_context={"conversation_id": "trip-42"})
    assert later.result.status != "NEED_CONSENT"
    assert later.explain.state["consent"] == {"browse": True, "browse_source": "conversation"}
    other = env("官网查一下还有没有房", conversation_context={"conversation_id": "trip-43"})
    assert other.explain.state["consent"]["browse"] is False and other.result.status == "NEED_CONSENT"


def test_the_plans_facts_are_plain_data_that_survive_a_round_trip(env):
    r = env("我们带着4岁的孩子，规划1天上海行程，九点出发")
    state = r.explain.state
    assert json.loads(json.dumps(state)) == state  # kept with the conversation's turn as JSON
    assert state["trip"]["day_boundaries"][0] == {"start": "09:00", "end": "20:00"}
    assert state["trip"]["window_source"] == "message"
