"""The operator page's figures in words (no Streamlit): the agent's metrics (core.agent.telemetry.compute_metrics)
as labelled rows, the acceptance set and a turn's decision log as tables."""

from __future__ import annotations

from typing import Any

import pandas as pd

from core.i18n import Lang, t
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
        return "; ".join(f"{k} {v:.0%}" for k, v in value.items()) or t("agent.operator.no_data", lang)
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


def acceptance_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The acceptance cases, one row each (the checks' detail left out)."""
    return pd.DataFrame(rows).drop(columns=["checks"], errors="ignore").astype(str)


def decision_frame(resp: AgentResponse) -> pd.DataFrame:
    """A turn's decision log: step, action, reason and policy codes, and the facts."""
    return pd.DataFrame([e.model_dump() | {"facts": str(e.facts)} for e in resp.explain.decision_log])
