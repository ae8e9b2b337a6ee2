"""Half-day planner 半日闲: one goal sentence → 2–3 plans (core.halfday), their stages shown live, re-ranked by the
weights from state, reservations through the service's gates, and what the planner remembers.

Thin page: the widgets, the run and the panels live in components/halfday_*.py; the run is kept in
st.session_state and everything below the goal box is rendered from there.
"""

import pandas as pd
import streamlit as st

from components import halfday_cards as cards
from components import halfday_state as hs
from components import halfday_text as text
from components import halfday_words as words
from components.frame import active_provider
from components.halfday_memory import render_memory_panel
from components.identity import dashboard_user
from components.legacy_pages import ensure_app_frame
from components.reservations import my_reservations
from core.halfday.score import rank_by_weights

ensure_app_frame()
st.title(":material/schedule: Half-day planner 半日闲")
st.caption(
    "Say what you would like to do in a few free hours; the planner reads it, checks opening hours, queues, prices "
    "and travel, and offers 2–3 plans you can compare, re-weight and book. 一句话描述你的半天,得到可执行的方案。"
)
hs.init_state()
user = dashboard_user()

# --- the goal ------------------------------------------------------------------------------------------------
with st.container(border=True, key="hd_goal_box"):
    st.markdown("**Examples / 示例**")
    for col, (key, example) in zip(st.columns(len(hs.EXAMPLES)), hs.EXAMPLES, strict=True):
        col.button(example, key=key, on_click=hs.fill_example, args=(example,), width="stretch")
    st.text_area(
        "What would you like to do? / 你想怎么过这半天?",
        key=hs.GOAL,
        height=80,
        max_chars=4000,
        placeholder="明天下午带孩子去博物馆,再吃点本帮菜 / Tomorrow afternoon: a museum, then local food",
    )
    st.text_input("Start from (optional) / 出发地(可选)", key=hs.ORIGIN, max_chars=300, placeholder="人民广场")
    plan_clicked = st.button("Plan / 开始规划", key="hd_plan", type="primary", icon=":material/auto_awesome:")

if plan_clicked or st.session_state.pop(hs.PENDING, False):
    request = hs.request_from_state()
    if request is None:
        st.error(st.session_state.pop(hs.GOAL_ERROR, ""))
    else:
        hs.run_plan(request)

run = st.session_state.get(hs.RUN)
typed = str(st.session_state.get(hs.GOAL, ""))
lang = run["lang"] if run else (text.guess_language(typed) if typed.strip() else "zh")

# --- the last run, from state --------------------------------------------------------------------------------
if run is None:
    st.info("Write a goal or pick an example, then press **Plan**. / 写下目标或点一个示例,再点“开始规划”。")
else:
    hs.render_stage_log(run)
    done = run["done"]
    kind = done.get("type")
    if kind == "clarify":
        with st.container(border=True, key="hd_clarify"):
            st.markdown(f"**{text.question(list(done.get('missing') or []), lang)}**")
            choices = st.columns(len(text.QUICK_CHOICES))
            for col, (key, en, zh, _add_en, _add_zh) in zip(choices, text.QUICK_CHOICES, strict=True):
                col.button(f"{en} / {zh}", key=f"hd_quick_{key}", on_click=hs.choose_time, args=(key,), width="stretch")
    elif kind == "error":
        error = done.get("error") or {}
        st.error(text.error_sentence(error, lang), icon=":material/error:")
        with st.expander("Details / 详情", expanded=False):
            st.markdown(f"Trace id / 追踪号: `{error.get('trace_id', '')}`")
            st.markdown(
                f"Code / 错误码: `{error.get('code', '')}`"
                + (f" · tool `{error['tool']}`" if error.get("tool") else "")
            )
        st.button("Retry / 重试", key="hd_retry", on_click=hs.retry, icon=":material/refresh:")
    elif kind == "plans":
        result = st.session_state[hs.RESULT]
        lang = result.goal.language
        stale = hs.is_stale(run)
        if stale:
            st.warning(
                "These plans are for an earlier goal (or region): press Plan again to update them. / "
                "这些方案对应之前的目标(或地区),请重新规划。",
                icon=":material/history:",
            )
        st.markdown(("**你的目标:** " if lang == "zh" else "**Your goal:** ") + text.goal_summary(result.goal, lang))
        if result.origin is not None:
            src = text.source_words(result.origin.source, lang)
            st.caption(("出发地:" if lang == "zh" else "Starting from ") + f"{result.origin.name} ({src})")
        for code in result.warnings:
            st.warning(words.word(words.WARNINGS, code, lang))
        if result.relaxed:
            relaxed = ", ".join(words.word(words.RELAX, r, lang) for r in result.relaxed)
            st.info(("为找到可行方案," if lang == "zh" else "To find workable plans I ") + relaxed + ".")
        weights = cards.render_weights(lang)
        ranked = rank_by_weights(result.plans, weights)
        provider_name = active_provider()[1]
        cards.render_plans(
            hs.planner_for(result.region), result, ranked, weights, user=user, provider_name=provider_name, stale=stale
        )
        with st.expander("Details / 详情", expanded=False):
            st.markdown(f"Trace id / 追踪号: `{result.trace_id}`")
            st.dataframe(
                pd.DataFrame(result.tool_log).drop(columns=["trace_id"], errors="ignore"),
                key="hd_tool_log",
                hide_index=True,
            )

# --- reservations and memory ---------------------------------------------------------------------------------
st.divider()
mine, memory = st.tabs(["My reservations / 我的预订", "Memory / 记忆"])
planner = hs.planner_for()
with mine:
    my_reservations("hd_mine")
with memory:
    render_memory_panel(planner, user=user, lang=lang)
