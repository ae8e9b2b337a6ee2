"""The operator page's figures in words (no Streamlit): the agent's metrics (core.agent.telemetry.compute_metrics)
as labelled rows, the acceptance set and a turn's decision log as tables."""

from __future__ import annotations

from typing import Any

import pandas as pd

from components.agent.detail_words import part_words, result_words, route_words, scenario_words, yes_no
from core.i18n import Lang, join_words, t
from core.models.agent import AgentResponse

#: the metrics the agent computes, in the order shown, → their label
METRIC_WORDS = {
    "requests": "agent.operator.metric.requests",
    "router_p95_ms": "agent.operator.metric.router_p95_ms",
    "system1_p95_ms": "agent.operator.metric.system1_p95_ms",
    "system2_p95_ms": "agent.operator.metric.system2_p95_ms",
    "system2_success_rate": "agent.operator.metric.system2_success_rate",
    "fallback_rate": "agent.operator.metric.fallback_rate",
    "browse_block_rate": "agent.operator.metric.browse_block_rate",
    "infeasible_hard_nodes_rate": "agent.operator.metric.infeasible_hard_nodes_rate",
    "cost_units_total": "agent.operator.metric.cost_units_total",
    "tokens_total": "agent.operator.metric.tokens_total",
    "cost_priced_total": "agent.operator.metric.cost_priced_total",
}


def _value(value: Any, lang: Lang) -> str:
    if value is None:
        return t("agent.operator.no_data", lang)
    if isinstance(value, dict):  # success rate per scenario
        said = (
            t("agent.operator.rate_of", lang, scenario=scenario_words(k, lang), rate=f"{v:.0%}")
            for k, v in value.items()
        )
        return join_words(said, lang, sep="clauses") or t("agent.operator.no_data", lang)
    return f"{value:g}" if isinstance(value, float) else str(value)


def metric_rows(metrics: dict[str, Any], lang: Lang) -> list[dict[str, str]]:
    """One row per metric: its label and its value (no data: said so); a priced total names its currency."""
    rows = []
    for name, key in METRIC_WORDS.items():
        value = _value(metrics.get(name), lang)
        if name == "cost_priced_total" and metrics.get(name) is not None and metrics.get("cost_currency"):
            value = f"{value} {metrics['cost_currency']}"
        rows.append({"metric": t(key, lang), "value": value})
    return rows


def _route_and_result(pair: str, lang: Lang) -> str:
    """``"SYSTEM1_API / OK"`` (an acceptance row's expected or actual outcome) in words."""
    route, _, status = pair.partition(" / ")
    return t("agent.operator.route_and_result", lang, route=route_words(route, lang), result=result_words(status, lang))


def acceptance_frame(rows: list[dict[str, Any]], lang: Lang) -> pd.DataFrame:
    """The acceptance cases, one row each, in words: the question, the path and outcome expected and met, passed or
    not, and how long it took (the codes and the checks' detail are the raw data's)."""
    return pd.DataFrame(
        [
            {
                t("agent.operator.col.case", lang): str(r["case"]),
                t("agent.operator.col.expected", lang): _route_and_result(str(r["expected"]), lang),
                t("agent.operator.col.got", lang): _route_and_result(str(r["got"]), lang),
                t("agent.operator.col.passed", lang): yes_no(bool(r["passed"]), lang),
                t("agent.operator.col.seconds", lang): f"{float(r['ms']) / 1000:.1f}",
            }
            for r in rows
        ]
    )


def decision_frame(resp: AgentResponse, lang: Lang) -> pd.DataFrame:
    """A turn's decision log in words: each step's number and the part of the agent that took it (the action, reason
    and policy codes and the facts are the raw data's)."""
    return pd.DataFrame(
        [
            {
                t("agent.operator.col.step", lang): str(e.step),
                t("agent.operator.col.part", lang): part_words(e.chosen_action, lang),
            }
            for e in resp.explain.decision_log
        ]
    )


def decision_raw(resp: AgentResponse) -> list[dict[str, Any]]:
    """A turn's decision log as it is (codes, facts), for the raw-data expander."""
    return [e.model_dump() for e in resp.explain.decision_log]
