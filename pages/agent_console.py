"""Agent console: chat with the travel agent (core.agent.route_and_run); the page only renders.

One language at a time (components/language.py). Starter prompts in that language until the first message. Every
turn is drawn from its stored response: the answer first (a plan that needs the person's review says so), then the
plan's table and map, then one collapsed "Details" section (route, confidence, status, latency, what it cost and
which paid services ran). The acceptance set, the metrics and the decision logs are on the operator page
(pages/operator.py)."""

from __future__ import annotations

from typing import TypedDict

import pandas as pd
import streamlit as st

from components import choices as C
from components import maps
from components.agent.choices import AGENT
from components.agent.detail_words import turn_lines
from components.agent.words import (
    STARTER_PROMPTS,
    TABLE_HEADERS,
    confirm_label,
    cost_words,
    map_stops,
    next_steps_words,
    other_hours,
    status_words,
    timeline_rows,
)
from components.frame import active_provider, request_context
from components.identity import dashboard_user
from components.language import current_lang, t
from components.legacy_pages import ensure_app_frame
from components.progress import progress_box
from core.app import memory as memory_app
from core.app.agent import ask, confirm_dry_run
from core.errors import OmniError
from core.models.agent import AgentResponse
from core.models.memory import new_conversation_id

ensure_app_frame()
lang = current_lang()

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


class Turn(TypedDict):
    """A turn of the session's history (``agent_history``): the words shown for it and the agent's answer."""

    message: str
    response: AgentResponse


st.title(":material/smart_toy: " + t("agent.console.title", lang))
state = st.session_state
state.setdefault("agent_history", [])
# the dashboard's identity, shared by every page, settled on load: reservations made on other pages are this user's
dashboard_user()
CONVERSATION = "agent_conversation_id"  # session key: the conversation kept on the server (None: not started)
LINK = "c"  # the query parameter naming it: a reload or a link opens it again, for its owner only


def _open_conversation() -> None:
    """On a session's first run: the conversation named by ``?c=`` (if it is this user's), else the user's latest;
    its turns become the history. Another user's id, or an unknown one, starts a new conversation with a notice."""
    if CONVERSATION in state:
        return
    state[CONVERSATION] = None
    ctx = request_context()
    asked = st.query_params.get(LINK)
    try:
        cid = asked or memory_app.latest_conversation(ctx)
        found = memory_app.open_conversation(ctx, cid) if cid else None
    except OmniError:
        state.agent_conversation_error = "agent.error.database_unreachable"
        return
    if found is None:
        if asked:
            state.agent_conversation_error = "agent.console.conversation_not_found"
            del st.query_params[LINK]
        return
    state[CONVERSATION] = found.id
    state.agent_history = [
        {"message": turn.message, "response": AgentResponse.model_validate(turn.response)} for turn in found.turns
    ]
    st.query_params[LINK] = found.id


_open_conversation()

#: how many of the session's earlier messages go with each request
RECENT_MESSAGES = 5

with st.sidebar.expander(t("agent.console.options", lang), expanded=False):
    # kept as state (components/agent/choices.py): a language or page switch keeps them
    C.value_widget(st.toggle, AGENT, "agent_allow_web", t("agent.console.allow_web", lang))
    C.value_widget(st.toggle, AGENT, "agent_dry_run", t("agent.console.dry_run", lang))
    C.value_widget(
        st.number_input, AGENT, "agent_max_steps", t("agent.console.max_steps", lang), min_value=1, max_value=50
    )
    C.value_widget(
        st.number_input, AGENT, "agent_max_seconds", t("agent.console.max_seconds", lang), min_value=1, max_value=600
    )


def _status_label(status: str) -> str:
    return f"{STATUS_ICON.get(status, '')} {status_words(status, lang)}".strip()


def _run(
    message: str, *, shown: str | None = None, confirm: str | None = None, allow_webbrowse: bool | None = None
) -> None:
    """Ask the agent (or confirm its dry run ``confirm`` by id, no words sent) in this run's context: the
    session's user, the page's language, the sidebar's region and provider. ``shown``: the turn's words on screen;
    ``allow_webbrowse``: the consent given for this turn (else the page's switch)."""
    options = {
        "allow_webbrowse": state.agent_allow_web if allow_webbrowse is None else allow_webbrowse,
        "dry_run": state.agent_dry_run,
        "max_steps": int(state.agent_max_steps),
        "max_seconds": float(state.agent_max_seconds),
    }
    ctx = request_context()
    if not state.get(CONVERSATION):  # a new conversation: its id now, so a consent given in its first turn is kept
        state[CONVERSATION] = new_conversation_id()
    # the session's last few user messages: a hint beside the agent's own record of a booking it asked about
    recent = {
        "recent_messages": [turn["message"] for turn in state.agent_history[-RECENT_MESSAGES:]],
        "conversation_id": state[CONVERSATION],
    }
    with progress_box(t("agent.console.asking", lang)) as box:
        report = lambda status, _message: box.update(_status_label(status))  # noqa: E731
        if confirm is not None:
            resp = confirm_dry_run(ctx, confirm, progress=report)
        else:
            resp = ask(ctx, {"message": message, "options": options, "conversation_context": recent}, progress=report)
        last = resp.explain.status_flow[-1]
        box.finish(status_words(last, lang), failed=resp.result.status in ("FAILED", "TIMEOUT"))
    state.agent_history.append({"message": shown or message, "response": resp})
    try:  # kept on the server: a reload or the link opens the conversation again
        state[CONVERSATION] = memory_app.keep_turn(ctx, state.get(CONVERSATION), shown or message, resp)
        st.query_params[LINK] = state[CONVERSATION]
    except OmniError:
        state.agent_conversation_error = "agent.error.database_unreachable"


def _details(n: int, resp: AgentResponse) -> None:
    """Route, confidence, status, latency, cost, the decision log and the raw rows: raw data for analysts,
    collapsed under "raw data (for debugging)"; the answer above says them in words."""
    route, o, result = resp.route, resp.observability, resp.result
    with st.expander(t("agent.words.details.title", lang), expanded=False, key=f"agent_words_{n}"):
        st.markdown("  \n".join(turn_lines(resp, lang)))  # the codes below, said in words
    with st.expander(t("common.debug", lang), expanded=False, key=f"agent_details_{n}", icon=":material/bug_report:"):
        c1, c2, c3 = st.columns(3)
        c1.metric(t("agent.console.route", lang), route.route)
        c2.metric(t("agent.console.confidence", lang), f"{route.confidence:.2f}")
        c3.metric(t("agent.console.status", lang), result.status)
        cols = st.columns(4)
        cols[0].metric(t("agent.console.latency_ms", lang), f"{o.latency_ms:.0f}")
        cols[1].metric(t("agent.console.tool_calls", lang), o.tool_calls)
        cols[2].metric(t("agent.console.browser_steps", lang), o.browser_steps)
        label, value, note = cost_words(o, lang)
        cols[3].metric(label, value)
        st.caption(note)
        st.caption(" → ".join(resp.explain.status_flow))
        st.caption(
            f"reasons: {', '.join(route.reasons) or '—'} · capabilities: "
            f"{', '.join(route.required_capabilities) or '—'} · consent required: {route.consent_required} · "
            f"budget: {route.budget.max_seconds:g}s / {route.budget.max_steps} steps / "
            f"{route.budget.max_browser_steps} browser steps · router {o.router_ms:.2f} ms · "
            f"fallback: {o.fallback_used}"
        )
        if result.error_code:
            st.caption(result.error_code)
        if result.next_steps:  # the steps as data (code, facts); the answer above says them in words
            st.caption("next steps")
            st.dataframe(
                pd.DataFrame([{"code": s.code, "args": str(s.args)} for s in result.next_steps]),
                key=f"agent_next_steps_{n}",
                hide_index=True,
            )
        if result.payload.dry_run:
            st.json(result.payload.dry_run.get("evidence", {}), expanded=False)
        for name in ("dropped_items", "branches", "candidates", "evidence"):
            rows = getattr(result.payload, name)
            if rows:
                st.caption(name)
                st.dataframe(pd.DataFrame(rows).astype(str), key=f"agent_{name}_{n}", hide_index=True)
        if resp.explain.decision_log:  # the steps themselves are on the operator page
            st.caption(t("agent.console.decision_log_on_operator", lang, n=len(resp.explain.decision_log)))


def _plan(n: int, resp: AgentResponse) -> None:
    """The plan's timeline in words and its map, numbered pins for every stop."""
    timeline = resp.result.payload.timeline
    if not timeline:
        return
    services, provider_name = active_provider()
    pack = services.region
    st.markdown("##### " + t("agent.console.timeline", lang))
    frame = pd.DataFrame(timeline_rows(timeline, pack, lang), columns=list(TABLE_HEADERS))
    st.dataframe(
        frame,
        key=f"agent_timeline_{n}",
        hide_index=True,
        column_config={c: st.column_config.TextColumn(t(k, lang)) for c, k in TABLE_HEADERS.items()},
    )
    stops = map_stops(timeline, pack, lang)
    if stops:
        maps.render_agent_map(stops, key=f"agent_map_{n}", region=pack.name, provider=provider_name, lang=lang)


def _actions(turn: Turn, resp: AgentResponse) -> None:
    """The buttons of the latest turn: allow browsing, confirm what the agent prepared. Each says what it does."""
    if resp.result.status == "NEED_CONSENT" and st.button(t("agent.console.allow_browsing", lang), key="agent_consent"):
        _run(turn["message"], allow_webbrowse=True)
        st.rerun()
    dry = resp.result.payload.dry_run
    if resp.result.status == "NEED_CONFIRMATION" and dry:
        key = confirm_label(dry["action"])
        if st.button(t(key, lang), key="agent_confirm", type="primary"):
            _run("", shown=t(key, lang), confirm=dry["dry_run_id"])
            st.rerun()


if state.get("agent_conversation_error"):
    st.warning(t(state.agent_conversation_error, lang))
if state.agent_history and st.button(t("agent.console.new_conversation", lang), key="agent_new_conversation"):
    state.agent_history, state[CONVERSATION], state.agent_conversation_error = [], None, None
    if LINK in st.query_params:
        del st.query_params[LINK]
    st.rerun()

prompt = st.chat_input(t("agent.console.ask", lang), key="agent_prompt")
if prompt:
    _run(prompt)
elif not state.agent_history:  # what one can ask, in the page's language: a click sends it
    st.caption(t("agent.console.starters", lang))
    cols = st.columns(len(STARTER_PROMPTS))
    for i, (col, key) in enumerate(zip(cols, STARTER_PROMPTS, strict=True)):
        if col.button(t(key, lang), key=f"agent_starter_{i}"):
            _run(t(key, lang))
            st.rerun()

history = state.agent_history
for n, turn in enumerate(history):
    resp = turn["response"]
    with st.chat_message("user"):
        st.write(turn["message"])
    with st.chat_message("assistant"):
        if resp.result.status == "NEEDS_REVIEW":  # the critic still found problems: the answer says which
            st.warning(t("agent.console.needs_review", lang))
        if other_hours(resp):  # a plan on hours other than the ones asked: never shown as if it met them
            st.warning(t("agent.console.other_hours", lang))
        st.markdown(resp.result.answer_text.replace("\n", "  \n"))  # the answer first, one line per line
        pack = active_provider()[0].region if resp.result.next_steps else None  # names a fix's stop in `lang`
        steps = next_steps_words(resp.result.next_steps, lang, pack)
        if steps:
            (st.warning if resp.result.error_code else st.caption)(
                t("agent.console.next_steps", lang) + " " + " ".join(steps)
            )
        if n == len(history) - 1:
            _actions(turn, resp)
        _plan(n, resp)
        _details(n, resp)
