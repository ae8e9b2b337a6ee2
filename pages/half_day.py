"""Half-day planner: one goal sentence → 2–3 plans (core.halfday), their stages shown live, re-ranked by the
weights from state, reservations through the service's gates, and what the planner remembers.

Thin page: the widgets, the run and the panels live in components/halfday_*.py; the run is kept in
st.session_state and everything below the goal box is rendered from there. Every word is in the page's language
(components.language, locales/*/LC_MESSAGES/halfday.po), whatever language the goal was written in; codes, the
trace id and the tool log are in the collapsed "Details".
"""

import streamlit as st

from components.debug_view import render_raw
from components.frame import active_provider, request_context
from components.halfday import cards, fallback, text
from components.halfday import share as halfday_share
from components.halfday import state as hs
from components.halfday.memory import render_memory_panel
from components.identity import dashboard_user
from components.language import current_lang, t
from components.legacy_pages import ensure_app_frame
from components.reservations import my_reservations
from components.services import settings
from core.models.halfday.plans import rank_by_weights
from core.words import halfday as words
from core.words.halfday_weather import weather_sentence, weather_warns

ensure_app_frame()
lang = current_lang()
st.title(":material/schedule: " + t("halfday.page.title", lang))
st.caption(t("halfday.page.intro", lang))
hs.init_state()
user = dashboard_user()
halfday_share.restore_from_url()  # ?halfday= (a shared link, a reload): the goal, planned once

# --- the goal ------------------------------------------------------------------------------------------------
halfday_share.render_error(lang)
with st.container(border=True, key="hd_goal_box"):
    st.markdown(t("halfday.page.examples", lang))
    for col, (key, example) in zip(st.columns(len(hs.EXAMPLES)), hs.EXAMPLES, strict=True):
        col.button(t(example, lang), key=key, on_click=hs.fill_example, args=(example,), width="stretch")
    st.text_area(
        t("halfday.page.goal", lang),
        key=hs.GOAL,
        height=80,
        max_chars=4000,
        placeholder=t("halfday.page.goal_placeholder", lang),
        persist_state="session",
    )
    st.text_input(
        t("halfday.page.origin", lang),
        key=hs.ORIGIN,
        max_chars=300,
        placeholder=text.origin_hint(st.session_state.get("region") or settings().region, lang),
        persist_state="session",
    )
    plan_clicked = st.button(
        t("halfday.page.plan", lang), key="hd_plan", type="primary", icon=":material/auto_awesome:"
    )

if plan_clicked or st.session_state.pop(hs.PENDING, False):
    request = hs.request_from_state()
    if request is None:
        st.error(st.session_state.pop(hs.GOAL_ERROR, ""))
    else:
        hs.run_plan(request)
elif st.session_state.pop(hs.RESUME, False):  # a level-2 button answered the paused run
    hs.resume_plan()
halfday_share.render_link(lang)  # the URL carries the goal of the plans shown; the address to copy

run = st.session_state.get(hs.RUN)

# --- the last run, from state --------------------------------------------------------------------------------
if run is None:
    st.info(t("halfday.page.empty", lang))
else:
    hs.render_stage_log(run)
    done = run["done"]
    if done is None:  # paused at a level-2 question
        fallback.render_choice(run["asking"], lang)
    elif done.type == "clarify":
        with st.container(border=True, key="hd_clarify"):
            st.markdown(f"**{text.question(list(done.missing), lang)}**")
            offered = hs.quick_choices()  # only windows still ahead; the answer goes beside the goal, not into it
            for col, choice in zip(st.columns(max(len(offered), 1)), offered, strict=False):
                label = t(text.QUICK_LABELS[choice], lang)
                col.button(label, key=f"hd_quick_{choice}", on_click=hs.choose_time, args=(choice,), width="stretch")
    elif done.type == "error":
        error = done.error
        st.error(text.error_sentence(error, lang), icon=":material/error:")
        with st.expander(t("common.details", lang), expanded=False):
            st.markdown(t("halfday.page.trace", lang, trace=error.trace_id))  # what support asks for
        tool = t("halfday.page.tool", lang, tool=error.tool) if error.tool else ""
        render_raw([t("halfday.page.code", lang, code=error.code), tool], key="hd_error_raw", lang=lang)
        st.button(t("halfday.page.retry", lang), key="hd_retry", on_click=hs.retry, icon=":material/refresh:")
        if error.fallback == "conversation":  # level 3: talk the goal over with the agent instead
            fallback.render_fallback(run["goal"], error, lang)
    elif done.type == "plans":
        result = st.session_state[hs.RESULT]
        stale = hs.is_stale(run)
        if stale:
            st.warning(t("halfday.page.stale", lang), icon=":material/history:")
        st.markdown(t("halfday.page.your_goal", lang, goal=text.goal_summary(result.goal, lang)))
        said = weather_sentence(result.profile.weather, result.profile.weather_from, lang)
        if said is not None:  # the forecast the plans used, or why the weather was not checked (a failure warns)
            (st.warning if weather_warns(result.profile.weather) else st.info)(
                said, icon=":material/partly_cloudy_day:"
            )
        if result.origin is not None:
            name, other = cards.origin_name(request_context(result.region), result.origin, lang)
            st.caption(
                t("halfday.page.start_from", lang, name=name, source=text.source_words(result.origin.source, lang)),
                help=t("halfday.step.other_name", lang, name=other) if other else None,
            )
        for code in result.warnings:
            if code == "PLAN_DROPPED_ON_MEASURED_LEGS" and result.dropped_plans:  # each plan left out, and why
                for dropped in result.dropped_plans:
                    st.warning(words.dropped_words(dropped, lang))
            else:
                st.warning(words.word(words.WARNINGS, code, lang))
        if result.relaxed:
            relaxed = text.join([words.word(words.RELAX, r, lang) for r in result.relaxed], lang)
            st.info(t("halfday.page.relaxed", lang, what=relaxed))
        weights = cards.render_weights(lang)
        ranked = rank_by_weights(result.plans, weights)
        provider_name = active_provider()[1]
        cards.render_plans(
            request_context(result.region),
            result,
            ranked,
            weights,
            user=user,
            provider_name=provider_name,
            stale=stale,
            lang=lang,
        )
        with st.expander(t("common.details", lang), expanded=False):
            st.markdown(t("halfday.page.trace", lang, trace=result.trace_id))  # what support asks for
        # the tools' log (names, inputs, outputs) is the analysts': raw data, collapsed (issue 32)
        render_raw(
            data=[{k: v for k, v in row.items() if k != "trace_id"} for row in result.tool_log],
            key="hd_tool_log",
            lang=lang,
        )

# --- reservations and memory ---------------------------------------------------------------------------------
st.divider()
mine, memory = st.tabs([t("halfday.page.tab_mine", lang), t("halfday.page.tab_memory", lang)])
with mine:
    my_reservations("hd_mine")
with memory:
    render_memory_panel(request_context(), user=user, lang=lang)
