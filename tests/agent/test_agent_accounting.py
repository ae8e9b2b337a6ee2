"""Honest accounting (issue 22 §5): tokens of every model call of a request (the router's arbitration included), cost
in budget units unless the settings price the model (then in the table's currency), which paid services ran, and
event-log rows written before the units had their own field still read (as units, never as money)."""

from __future__ import annotations

import json

import httpx
import pytest

from core.agent import route_and_run
from core.agent.llm import make_llm
from core.agent.telemetry import compute_metrics
from core.app.agent import agent_deps
from tests.support.agent_packs import FIXED_NOW, make_provider, make_settings

TOKENS_PER_CALL = 42  # what the stand-in model's usage reports for every answer


def _model(tmp_path, **settings_over):
    """Settings with a (stand-in) model that arbitrates the router's grey zone and words explanations; ``seen``:
    the bodies it was sent."""
    settings = make_settings(tmp_path, llm_base_url="http://llm.test/v1", llm_router_arbitration=True, **settings_over)
    seen: list[dict] = []

    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append(body)
        if body.get("response_format"):  # the router's arbitration asks for JSON
            content = json.dumps({"route": "SYSTEM1_RAG", "confidence": 0.9, "reasons": []})
        else:
            content = "A short explanation."
        return httpx.Response(
            200, json={"choices": [{"message": {"content": content}}], "usage": {"total_tokens": TOKENS_PER_CALL}}
        )

    llm = make_llm(settings, client=httpx.Client(transport=httpx.MockTransport(answer)))
    return settings, llm, seen


def _ask(settings, llm, message):
    return route_and_run({"message": message, "user_id": "alice"}, agent_deps(settings, make_provider(settings), llm=llm), now=FIXED_NOW)  # fmt: skip


def test_tokens_count_the_router_arbitration_call(tmp_path):
    settings, llm, seen = _model(tmp_path)
    r = _ask(settings, llm, "今天豫园开门吗")  # the router's grey zone: the model is asked to arbitrate
    assert any(b.get("response_format") for b in seen)  # the arbitration call was made
    assert r.observability.model_calls == len(seen) >= 1
    assert r.observability.tokens_est == TOKENS_PER_CALL * len(seen)
    assert r.observability.paid_services == ["llm:gpt-4o-mini"]


def test_tokens_count_the_explanation_of_a_plan_and_cost_stays_in_units_without_prices(tmp_path):
    settings, llm, seen = _model(tmp_path, llm_price_per_1k_tokens={})  # an empty table: no price is known
    r = _ask(settings, llm, "规划1天上海行程，去外滩、豫园和上海博物馆")
    assert r.result.answer_text.startswith("A short explanation.")
    assert r.observability.tokens_est == TOKENS_PER_CALL * len(seen) and len(seen) >= 1
    assert r.observability.cost_est_usd is None and r.observability.cost_currency is None  # no price table
    assert r.observability.cost_units > 0  # the plan's actions, in budget units


def test_cost_is_money_with_a_price_table(tmp_path):
    settings, llm, seen = _model(tmp_path, llm_price_per_1k_tokens={"gpt-4o-mini": 0.6})
    r = _ask(settings, llm, "规划1天上海行程，去外滩、豫园和上海博物馆")
    calls = len(seen)
    assert r.observability.cost_est_usd == pytest.approx(calls * TOKENS_PER_CALL / 1000 * 0.6)
    assert r.observability.cost_currency == "USD"
    complete = [json.loads(x) for x in settings.agent_event_log.read_text().splitlines() if "agent_complete" in x]
    assert complete[-1]["cost_est_usd"] == r.observability.cost_est_usd
    assert (
        complete[-1]["tokens"] == calls * TOKENS_PER_CALL and complete[-1]["cost_units"] == r.observability.cost_units
    )


def test_a_model_missing_from_the_price_table_leaves_the_request_unpriced(tmp_path):
    settings, llm, _ = _model(tmp_path, llm_price_per_1k_tokens={"another-model": 0.6})
    r = _ask(settings, llm, "规划1天上海行程，去外滩、豫园和上海博物馆")
    assert r.observability.cost_est_usd is None and r.observability.tokens_est > 0


def test_without_a_model_no_paid_service_ran(tmp_path):
    settings = make_settings(tmp_path)
    r = _ask(settings, None, "规划1天上海行程，去外滩、豫园和上海博物馆")
    o = r.observability
    assert o.paid_services == [] and o.model_calls == 0 and o.tokens_est == 0
    assert o.cost_est_usd == 0 and o.cost_currency == "USD" and o.spent_usd == 0  # offline work costs no money


def test_old_event_rows_read_their_cost_as_units():
    old = {"event": "agent_complete", "request_id": "r1", "status": "OK", "latency_ms": 12.0, "cost_est_usd": 0.0035,
           "tool_calls": 7, "browser_steps": 0, "system_mode": "SYSTEM2", "scenario": "plan"}  # fmt: skip
    new = {**old, "request_id": "r2", "cost_units": 0.001, "cost_est_usd": 0.0252, "cost_currency": "USD", "tokens": 42}
    m = compute_metrics([old, new])
    assert m["requests"] == 2
    assert m["cost_units_total"] == pytest.approx(0.0045)  # the old row's figure was units
    assert m["cost_priced_total"] == pytest.approx(0.0252) and m["cost_currency"] == "USD"
    assert m["tokens_total"] == 42
