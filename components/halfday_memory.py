"""The memory panel: what the planner learned of the user (tag and category affinities from chosen plans, places
visited and disliked), the family profile they can edit (adults, children's birth years, seniors, diet, mobility)
and a Reset that forgets everything (core/halfday/memory.py)."""

from __future__ import annotations

import re
from datetime import date

import streamlit as st
from pydantic import ValidationError
from sqlalchemy.exc import SQLAlchemyError

from components import halfday_words as w
from core.errors import OmniError
from core.halfday.goal_models import DIET_CODES, MOBILITY_CODES
from core.halfday.models import FamilyProfile, Memory
from core.halfday.service import HalfDayPlanner

FAMILY_KEYS = ("hd_fam_adults", "hd_fam_children", "hd_fam_seniors", "hd_fam_diet", "hd_fam_mobility")
NOTICE = "hd_memory_notice"  # the last save / reset, in words
LOADED = "hd_fam_loaded"  # whose family profile the widgets hold


def affinity_words(tag: str, lang: str) -> str:
    """A learned tag (pack tag or category) in words."""
    return w.word(w.TAGS, tag, lang, fallback=w.word(w.CATEGORIES, tag, lang))


def _load_family(memory: Memory) -> None:
    fam = memory.family
    state = st.session_state
    state["hd_fam_adults"] = int(fam.adults or 0)
    state["hd_fam_children"] = ", ".join(str(y) for y in fam.children_birth_years)
    state["hd_fam_seniors"] = int(fam.seniors or 0)
    state["hd_fam_diet"] = [d for d in fam.diet if d in DIET_CODES]
    state["hd_fam_mobility"] = [m for m in fam.mobility if m in MOBILITY_CODES]
    state[LOADED] = memory.user_id


def birth_years(raw: str, *, today: date) -> list[int]:
    """'2019, 2021' → [2019, 2021]; a year outside the last 18 years is refused (ValueError)."""
    years = []
    for part in re.split(r"[\s,,、;;]+", raw.strip()):
        if not part:
            continue
        if not part.isdigit() or not today.year - 17 <= int(part) <= today.year:
            raise ValueError(part)
        years.append(int(part))
    return years


def _forget(planner: HalfDayPlanner, user: str) -> None:
    try:
        n = planner.memory.reset(user)
    except SQLAlchemyError:
        st.session_state[NOTICE] = "The memory cannot be reached right now. / 记忆暂时无法访问。"
        return
    for key in (*FAMILY_KEYS, LOADED):
        st.session_state.pop(key, None)
    st.session_state[NOTICE] = f"Forgotten: {n} events and the family profile / 已清除 {n} 条记录和家庭档案"


def render_memory_panel(planner: HalfDayPlanner, *, user: str, lang: str) -> None:
    zh = lang == "zh"
    try:
        memory = planner.memory.get(user)
    except OmniError as exc:
        st.warning(w.word(w.ERRORS, exc.code, lang, fallback=w.pick(w.ERRORS["OMNI_ERROR"], lang)))
        return
    except SQLAlchemyError:  # an unreachable database must not take the page down
        st.warning(w.word(w.ERRORS, "DATABASE_UNREACHABLE", lang))
        return
    if st.session_state.get(LOADED) != user:
        _load_family(memory)
    if notice := st.session_state.pop(NOTICE, None):
        st.success(notice)

    st.markdown("**What I learned / 学到的偏好**")
    likes = sorted(((t, v) for t, v in memory.preferences.items() if v > 0), key=lambda tv: -tv[1])
    dislikes = sorted(((t, v) for t, v in memory.preferences.items() if v < 0), key=lambda tv: tv[1])
    if not likes and not dislikes:
        st.caption(
            "还没有学到什么:选择一套方案后我会记住。" if zh else "Nothing yet: choose a plan and I will remember."
        )
    if likes:
        label = "喜欢" if zh else "Likes"
        st.markdown(f"{label}: " + ", ".join(f"{affinity_words(t, lang)} (+{v:.2f})" for t, v in likes[:10]))
    if dislikes:
        label = "不太喜欢" if zh else "Less keen on"
        st.markdown(f"{label}: " + ", ".join(f"{affinity_words(t, lang)} ({v:.2f})" for t, v in dislikes[:10]))
    pack = planner.provider.region

    def names(ids: list[str]) -> str:
        out = []
        for pid in ids:
            place = pack.place_by_id(pid)
            if place is not None:
                out.append(place.name_en if lang == "en" and place.name_en else place.name_zh)
        return ", ".join(out)

    if visited := names(memory.visited[:10]):
        st.caption(("去过(选定的方案):" if zh else "Visited in chosen plans: ") + visited)
    if disliked := names(memory.disliked[:10]):
        st.caption(("不再推荐:" if zh else "Not suggested again: ") + disliked)
    st.caption(f"{memory.events} 条记录" if zh else f"Learned from {memory.events} events")

    st.markdown("**Family profile / 家庭档案**")
    c1, c2, c3 = st.columns(3)
    c1.number_input("Adults / 成人", 0, 30, key="hd_fam_adults", help="0: not set / 0 表示未填写")
    c2.text_input("Children's birth years / 孩子出生年份", key="hd_fam_children", placeholder="2019, 2021")
    c3.number_input("Seniors / 老人", 0, 30, key="hd_fam_seniors")
    d1, d2 = st.columns(2)
    d1.multiselect("Diet / 饮食", list(DIET_CODES), key="hd_fam_diet", format_func=lambda c: w.bilingual(w.DIET, c))
    d2.multiselect(
        "Mobility / 出行", list(MOBILITY_CODES), key="hd_fam_mobility", format_func=lambda c: w.bilingual(w.MOBILITY, c)
    )
    s1, s2 = st.columns(2)
    if s1.button("Save the profile / 保存档案", key="hd_fam_save", icon=":material/save:"):
        state = st.session_state
        try:
            adults = int(state["hd_fam_adults"]) or None
            family = FamilyProfile(
                adults=adults,
                children_birth_years=birth_years(str(state["hd_fam_children"]), today=date.today()),
                seniors=int(state["hd_fam_seniors"]) or None,
                diet=list(state["hd_fam_diet"]),
                mobility=list(state["hd_fam_mobility"]),
            )
            if family.seniors and (family.adults or 0) < family.seniors:
                raise ValueError("seniors")
        except (ValueError, ValidationError):
            st.error(
                "Birth years are years of the last 18 years (e.g. 2019, 2021); seniors count among the adults. / "
                "出生年份须为近 18 年内的年份(如 2019, 2021);老人计入成人人数。"
            )
        else:
            try:
                planner.memory.set_family(user, family)
            except SQLAlchemyError:
                st.error("The memory cannot be reached right now. / 记忆暂时无法访问。")
                return
            st.session_state[NOTICE] = "Saved the family profile / 家庭档案已保存"
            st.session_state.pop(LOADED, None)
            st.rerun()
    s2.button(
        "Reset the memory / 清除记忆", key="hd_memory_reset", icon=":material/delete:", on_click=_forget,
        args=(planner, user),
    )  # fmt: skip
