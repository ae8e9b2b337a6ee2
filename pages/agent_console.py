"""Agent console: chat with the travel agent (core.agent.route_and_run); the page only renders."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components import maps
from components.frame import active_provider
from components.identity import dashboard_user
from components.legacy_pages import ensure_app_frame
from components.progress import progress_box
from core.agent import route_and_run
from core.agent.fastpath import zh_text
from core.agent.telemetry import live_metrics
from core.bench.agent import run_qa_acceptance
from core.config import get_settings

ensure_app_frame()

STATUS_ICON = {
    "thinking": "🤔",
    "browsing": "🌐",
    "verifying": "🔎",
    "repairing": "🛠️",
    "awaiting_consent": "🔐",
    "awaiting_confirmation": "✅❓",
    "done": "✔️",
    "failed": "⚠️",
}

st.title("Agent console 智能体控制台")
state = st.session_state
state.setdefault("agent_history", [])
# the dashboard's identity, shared by every page: reservations made on other pages are this user's here too
USER = dashboard_user()

#: how many of the session's earlier messages go with each request
RECENT_MESSAGES = 5
#: what each confirmation button does, in words (never the action's name)
CONFIRM_LABELS = {
    "reservations.confirm": ("确认预订", "Confirm booking"),
    "reservations.cancel": ("确认取消", "Confirm cancellation"),
    "trip.persist_plan": ("保存行程", "Save the trip"),
    "trip.apply_user_edit": ("确认修改行程", "Confirm the trip change"),
    "trip.record_commitment": ("记录我的确认", "Record my confirmation"),
}

with st.sidebar.expander("Agent options", expanded=False):
    st.toggle("Allow web browsing (consent)", key="agent_allow_web", value=False)
    st.toggle("Dry run only", key="agent_dry_run", value=False)
    st.number_input("max_steps", 1, 50, 8, key="agent_max_steps")
    st.number_input("max_seconds", 1, 600, 60, key="agent_max_seconds")


def _run(message: str, **extra) -> None:
    options = {
        "allow_webbrowse": state.agent_allow_web,
        "dry_run": state.agent_dry_run,
        "max_steps": int(state.agent_max_steps),
        "max_seconds": float(state.agent_max_seconds),
    }
    options.update(extra.pop("options", {}))
    provider, _ = active_provider()  # the region and provider chosen in the sidebar
    # the session's last few user messages: a hint beside the agent's own record of a booking it asked about
    recent = {"recent_messages": [turn["message"] for turn in state.agent_history[-RECENT_MESSAGES:]]}
    with progress_box("Routing") as box:
        resp = route_and_run(
            {"message": message, "user_id": USER, "options": options, "conversation_context": recent, **extra},
            provider=provider,
            progress=lambda status, _message: box.update(f"{STATUS_ICON.get(status, '')} {status}"),
        )
        last = resp.explain.status_flow[-1]
        box.finish(f"{STATUS_ICON.get(last, '')} {last}", failed=resp.result.status in ("FAILED", "TIMEOUT"))
    state.agent_history.append({"message": message, "response": resp})


prompt = st.chat_input("问点什么 / Ask the agent…", key="agent_prompt")
if prompt:
    _run(prompt)

for turn in state.agent_history[:-1]:
    with st.chat_message("user"):
        st.write(turn["message"])
    with st.chat_message("assistant"):
        st.write(turn["response"].result.answer_text)

if state.agent_history:
    last = state.agent_history[-1]
    resp = last["response"]
    with st.chat_message("user"):
        st.write(last["message"])
    with st.chat_message("assistant"):
        route = resp.route
        with st.container(border=True):
            c1, c2, c3 = st.columns(3)
            c1.metric("Route", route.route)
            c2.metric("Confidence", f"{route.confidence:.2f}")
            c3.metric("Status", resp.result.status)
            st.caption(
                f"reasons: {', '.join(route.reasons) or '—'} · capabilities: "
                f"{', '.join(route.required_capabilities) or '—'} · consent required: {route.consent_required} · "
                f"budget: {route.budget.max_seconds:g}s / {route.budget.max_steps} steps / "
                f"{route.budget.max_browser_steps} browser steps"
            )
            st.caption(f"ui_hint: {route.ui_hint.mode} · {route.ui_hint.status} · {route.ui_hint.message}")
        st.markdown(" → ".join(f"{STATUS_ICON.get(s, '')} {s}" for s in resp.explain.status_flow))
        st.write(resp.result.answer_text)
        if resp.result.error_code:
            st.warning(f"{resp.result.error_code}: {'; '.join(resp.result.next_steps)}")
        if resp.result.status == "NEED_CONSENT" and st.button(
            "Allow browsing for this request 授权浏览", key="agent_consent"
        ):
            _run(last["message"], options={"allow_webbrowse": True})
            st.rerun()
        dry = resp.result.payload.dry_run
        if resp.result.status == "NEED_CONFIRMATION" and dry:
            zh_label, en_label = CONFIRM_LABELS.get(dry["action"], ("确认", "Confirm"))
            with st.expander("Details 详情", expanded=False):
                st.json(dry["evidence"], expanded=False)
            if st.button(f"{zh_label} / {en_label}", key="agent_confirm", type="primary"):
                said = zh_label if zh_text(last["message"]) else en_label  # the reply keeps the user's language
                _run(said, options={"confirm_dry_run_id": dry["dry_run_id"]})
                st.rerun()
        payload = resp.result.payload
        if payload.timeline:
            st.markdown("##### Timeline")
            st.dataframe(
                pd.DataFrame(payload.timeline).drop(columns=["lon", "lat"], errors="ignore"),
                key="agent_timeline",
                hide_index=True,
            )
            visits = [e for e in payload.timeline if e.get("kind") == "visit"]
            if visits:
                services, provider_name = active_provider()
                maps.render_agent_map(visits, region=services.region.name, provider=provider_name)
        for name in ("dropped_items", "branches", "candidates", "evidence"):
            rows = getattr(payload, name)
            if rows:
                st.markdown(f"##### {name}")
                st.dataframe(pd.DataFrame(rows).astype(str), key=f"agent_{name}", hide_index=True)
        st.markdown("##### Decision log")
        st.dataframe(
            pd.DataFrame([e.model_dump() | {"facts": str(e.facts)} for e in resp.explain.decision_log]),
            key="agent_decision_log",
            hide_index=True,
        )
        o = resp.observability
        cols = st.columns(5)
        cols[0].metric("latency ms", f"{o.latency_ms:.0f}")
        cols[1].metric("router ms", f"{o.router_ms:.2f}")
        cols[2].metric("tool calls", o.tool_calls)
        cols[3].metric("browser steps", o.browser_steps)
        cols[4].metric("fallback", "yes" if o.fallback_used else "no")

with st.expander("Metrics 指标", expanded=False):
    st.json(live_metrics(get_settings().agent_event_log))

if st.button("Run the QA acceptance set 运行验收集", key="agent_qa"):
    state.agent_qa_rows = run_qa_acceptance()
if state.get("agent_qa_rows"):
    qa = pd.DataFrame(state.agent_qa_rows)
    st.metric("QA passed", f"{int(qa['passed'].sum())}/{len(qa)}")
    st.dataframe(qa.drop(columns=["checks"]), key="agent_qa_table", hide_index=True)
