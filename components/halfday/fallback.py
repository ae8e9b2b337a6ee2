"""The half-day page's answers to degradation (half_day_planner.md §4.1). Level 2: the question whether to go on
with cached or estimated data, two buttons that answer the paused run. Level 3: the goal handed to the travel agent
in the same context, its answer and a chat box to go on talking, and the support contact (a setting) beside Retry."""

from __future__ import annotations

import streamlit as st

from components.frame import request_context
from components.halfday import state as hs
from components.language import t
from core.app import halfday as halfday_app
from core.errors import OmniError
from core.i18n import Lang
from core.models.halfday.events import ErrorFacts, WarningObservation
from core.words import halfday as words

CHAT = "hd_fallback_chat"  # the chat box under the agent's answer


def render_choice(asking: WarningObservation, lang: Lang) -> None:
    """Level 2: the question and its two answers; the run stays paused until one is pressed."""
    with st.container(border=True, key="hd_degraded"):
        st.warning(words.word(words.WARNINGS, asking.code, lang), icon=":material/cloud_off:")
        go_on, stop = st.columns(2)
        go_on.button(
            words.word(words.DEGRADED_CHOICES, "continue", lang),
            key="hd_degraded_continue",
            on_click=hs.answer_degraded,
            args=("continue",),
            type="primary",
            width="stretch",
        )
        stop.button(
            words.word(words.DEGRADED_CHOICES, "stop", lang),
            key="hd_degraded_stop",
            on_click=hs.answer_degraded,
            args=("stop",),
            width="stretch",
        )


def contact_line(error: ErrorFacts, lang: Lang) -> str:
    """The support contact in words, or that none is configured."""
    if error.contact:
        return t("halfday.contact.line", lang, contact=error.contact)
    return t("halfday.contact.none", lang)


def render_fallback(goal: str, error: ErrorFacts, lang: Lang) -> None:
    """Level 3: the conversation with the agent about the goal (asked once per run), a chat box, the contact."""
    st.info(contact_line(error, lang), icon=":material/support_agent:")
    talk = st.session_state.get(hs.FALLBACK)
    if talk is None or talk.get("trace_id") != error.trace_id:
        talk = {"trace_id": error.trace_id, "turns": []}
        st.session_state[hs.FALLBACK] = talk
        _ask(talk, goal)
    said = st.chat_input(t("halfday.fallback.chat", lang), key=CHAT)
    if said:
        _ask(talk, said)
    with st.container(border=True, key="hd_fallback"):
        st.markdown(t("halfday.fallback.intro", lang))
        for role, words_said in talk["turns"]:
            with st.chat_message("user" if role == "you" else "assistant"):
                st.markdown(words_said if words_said else t("halfday.fallback.failed", lang))


def _ask(talk: dict[str, object], message: str) -> None:
    turns = talk["turns"]
    assert isinstance(turns, list)
    turns.append(("you", message))
    try:
        reply = halfday_app.converse_instead(request_context(), message)
        answer = reply.result.answer_text.strip()
    except OmniError:  # the agent could not answer either: said in words, the page stays up
        answer = ""
    turns.append(("assistant", answer))
