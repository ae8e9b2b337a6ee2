"""Action and event names are enums (issue 30) that read and write the same strings as before: the registry holds
exactly the named actions, and what a decision log, a dry run and the event log write is the plain name."""

from __future__ import annotations

import json

from core.agent.actions.catalog import default_registry
from core.agent.actions.names import ActionName
from core.agent.telemetry import Telemetry, TelemetryEvent, read_events
from core.models.agent import DecisionLogEntry


def test_the_registry_registers_every_named_action_and_nothing_else():
    assert default_registry().names() == sorted(ActionName)
    for name in ActionName:
        family, _, verb = name.partition(".")
        assert family and verb and name.name == f"{family}_{verb}".upper()


def test_a_name_is_its_string_in_json_and_reads_back_equal():
    entry = DecisionLogEntry(
        step=0, chosen_action=ActionName.TRIP_PERSIST_PLAN, reason_code="PLAN_READY", policy_id="GATE"
    )
    written = entry.model_dump_json()
    assert json.loads(written)["chosen_action"] == "trip.persist_plan"
    assert DecisionLogEntry.model_validate_json(written).chosen_action == ActionName.TRIP_PERSIST_PLAN
    assert json.dumps({"action": ActionName.RESERVATIONS_CONFIRM}) == '{"action": "reservations.confirm"}'


def test_the_event_log_writes_the_same_event_and_action_names(tmp_path):
    log = tmp_path / "events.jsonl"
    t = Telemetry(log, request_id="r1")
    t.system2_step(step=1, action=ActionName.POLICY_SCORE_ROBUSTNESS, ms=1.5, status="ok")
    t.fallback_triggered(from_route="SYSTEM2_REASONING", to_route="SYSTEM1_API", reason="TIMEOUT")
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [(e["event"], e.get("action")) for e in lines] == [
        ("system2_step", "policy.score_robustness"),
        ("fallback_triggered", None),
    ]
    assert [e["event"] for e in read_events(log)] == ["system2_step", "fallback_triggered"]
    assert type(t.events[0]["event"]) is str  # the row in memory holds the plain name too
    assert {str(e) for e in TelemetryEvent} == {
        "router_decision",
        "system2_step",
        "critic_result",
        "webbrowse_blocked",
        "fallback_triggered",
        "agent_complete",
        "action_call",
    }
