"""Agent operator page: for the people who run the travel agent, not for travellers. The agent's live metrics (from
its event log), the QA acceptance set (run on a throw-away store) and the decision logs of this session's turns
(the chat page, pages/agent_console.py, keeps them in session state). One language at a time; the page only
renders (core.app.agent gives the figures, components/agent/operator_words.py their words)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components.agent.detail_words import result_words, route_words
from components.agent.operator_words import METRIC_WORDS, acceptance_frame, decision_frame, decision_raw, metric_rows
from components.debug_view import render_raw
from components.frame import request_context
from components.language import current_lang, t
from components.legacy_pages import ensure_app_frame
from components.services import settings
from core.app.agent import acceptance, metrics

ensure_app_frame()
lang = current_lang()
state = st.session_state
st.title(":material/monitoring: " + t("agent.operator.title", lang))
st.caption(t("agent.operator.intro", lang))

st.markdown("##### " + t("agent.operator.metrics", lang))
rows = metric_rows(metrics(settings=settings()), lang)
st.dataframe(
    pd.DataFrame(rows, columns=["metric", "value"]),
    key="operator_metrics",
    hide_index=True,
    column_config={
        "metric": st.column_config.TextColumn(t("agent.operator.col.metric", lang)),
        "value": st.column_config.TextColumn(t("agent.operator.col.value", lang)),
    },
)
st.caption(t("agent.operator.metrics_help", lang, n=len(METRIC_WORDS)))

st.markdown("##### " + t("agent.operator.acceptance", lang))
if st.button(t("agent.console.qa.run", lang), key="agent_qa"):
    state.agent_qa_rows = acceptance(request_context())
if state.get("agent_qa_rows"):
    qa = pd.DataFrame(state.agent_qa_rows)
    st.metric(t("agent.console.qa.passed", lang), f"{int(qa['passed'].sum())}/{len(qa)}")
    st.dataframe(acceptance_frame(state.agent_qa_rows, lang), key="agent_qa_table", hide_index=True)
    render_raw(data=state.agent_qa_rows, key="operator_qa_raw", lang=lang)

st.markdown("##### " + t("agent.operator.decision_logs", lang))
history = state.get("agent_history") or []
if not history:
    st.info(t("agent.operator.no_turns", lang))
else:
    turn = st.selectbox(
        t("agent.operator.turn", lang),
        options=list(range(len(history)))[::-1],  # the latest first
        format_func=lambda n: t("agent.operator.turn_label", lang, n=n + 1, message=history[n]["message"][:60]),
        key="operator_turn",
        persist_state="session",
    )
    resp = history[turn]["response"]
    route, status = route_words(resp.route.route, lang), result_words(resp.result.status, lang)
    st.caption(t("agent.operator.turn_status", lang, route=route, status=status))
    st.dataframe(decision_frame(resp, lang), key="operator_decision_log", hide_index=True)
    render_raw(data=decision_raw(resp), key="operator_decision_raw", lang=lang)
