"""The memory panel: what the planner learned of the user (tag and category affinities from chosen plans, places
visited and disliked), the family profile they can edit (adults, children's birth years, seniors, diet, mobility)
and a Reset that forgets everything (core/halfday/memory.py)."""

from __future__ import annotations

import re
from datetime import date

import streamlit as st
from pydantic import ValidationError
from sqlalchemy.exc import SQLAlchemyError

from components import choices as C
from components.frame import region_today
from components.halfday.choices import HALFDAY
from components.language import t
from core.app import RequestContext
from core.app import halfday as halfday_app
from core.errors import OmniError
from core.i18n import Lang
from core.models.halfday.goal import DIET_CODES, MOBILITY_CODES
from core.models.halfday.plans import FamilyProfile, Memory
from core.models.region import RegionPack
from core.words import halfday as w

FAMILY_KEYS = ("hd_fam_adults", "hd_fam_children", "hd_fam_seniors", "hd_fam_diet", "hd_fam_mobility")
NOTICE = "hd_memory_notice"  # the last save / reset, in words
LOADED = "hd_fam_loaded"  # whose family profile the widgets hold


def affinity_words(tag: str, lang: Lang) -> str:
    """A learned tag (pack tag or category) in words."""
    return w.word(w.TAGS, tag, lang, fallback=w.word(w.CATEGORIES, tag, lang))


def _load_family(memory: Memory) -> None:
    fam = memory.family
    state = st.session_state
    state["hd_fam_adults"] = int(fam.adults or 0)
    state["hd_fam_children"] = ", ".join(str(y) for y in fam.children_birth_years)
    state["hd_fam_seniors"] = int(fam.seniors or 0)
    HALFDAY.set(
        state,
        hd_fam_diet=[d for d in fam.diet if d in DIET_CODES],
        hd_fam_mobility=[m for m in fam.mobility if m in MOBILITY_CODES],
    )
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


def _forget(ctx: RequestContext) -> None:
    try:
        n = halfday_app.forget(ctx)
    except SQLAlchemyError:
        st.session_state[NOTICE] = t("halfday.memory.unreachable")
        return
    for key in (*FAMILY_KEYS, LOADED):
        st.session_state.pop(key, None)
    st.session_state[NOTICE] = t("halfday.memory.forgotten", n=n)


def render_memory_panel(ctx: RequestContext, *, user: str, lang: Lang) -> None:
    try:
        memory = halfday_app.remembered(ctx)
    except OmniError as exc:
        st.warning(w.word(w.ERRORS, exc.code, lang, fallback=w.word(w.ERRORS, "OMNI_ERROR", lang)))
        return
    except SQLAlchemyError:  # an unreachable database must not take the page down
        st.warning(w.word(w.ERRORS, "DATABASE_UNREACHABLE", lang))
        return
    if st.session_state.get(LOADED) != user:
        _load_family(memory)
    if notice := st.session_state.pop(NOTICE, None):
        st.success(notice)
    _render_learned(memory, ctx.region, lang)
    _render_family_inputs(lang)
    s1, s2 = st.columns(2)
    if s1.button(t("halfday.memory.save", lang), key="hd_fam_save", icon=":material/save:"):
        if not _save_family(ctx, lang):
            return  # the database cannot be reached: the error ends the panel
    s2.button(
        t("halfday.memory.reset", lang), key="hd_memory_reset", icon=":material/delete:", on_click=_forget,
        args=(ctx,),
    )  # fmt: skip


def _render_learned(memory: Memory, pack: RegionPack, lang: Lang) -> None:
    """What the planner learned: the liked and disliked tags with their weights, the places visited and disliked
    (their names in ``lang``) and how many events it learned from."""
    st.markdown(t("halfday.memory.learned", lang))
    likes = sorted(((t, v) for t, v in memory.preferences.items() if v > 0), key=lambda tv: -tv[1])
    dislikes = sorted(((t, v) for t, v in memory.preferences.items() if v < 0), key=lambda tv: tv[1])
    if not likes and not dislikes:
        st.caption(t("halfday.memory.nothing_yet", lang))
    sep = t("halfday.list.separator", lang)
    if likes:
        items = sep.join(f"{affinity_words(tag, lang)} (+{v:.2f})" for tag, v in likes[:10])
        st.markdown(t("halfday.memory.likes", lang, items=items))
    if dislikes:
        items = sep.join(f"{affinity_words(tag, lang)} ({v:.2f})" for tag, v in dislikes[:10])
        st.markdown(t("halfday.memory.dislikes", lang, items=items))

    def names(ids: list[str]) -> str:
        out = []
        for pid in ids:
            place = pack.place_by_id(pid)
            if place is not None:
                out.append(place.name_en if lang == "en" and place.name_en else place.name_zh)
        return sep.join(out)

    if visited := names(memory.visited[:10]):
        st.caption(t("halfday.memory.visited", lang, places=visited))
    if disliked := names(memory.disliked[:10]):
        st.caption(t("halfday.memory.disliked", lang, places=disliked))
    st.caption(t("halfday.memory.events", lang, n=memory.events))


def _render_family_inputs(lang: Lang) -> None:
    """The family profile's inputs: adults, children's birth years and seniors, then diet and mobility."""
    st.markdown(t("halfday.memory.family", lang))
    c1, c2, c3 = st.columns(3)
    c1.number_input(
        t("halfday.memory.adults", lang),
        0,
        30,
        key="hd_fam_adults",
        help=t("halfday.memory.adults_help", lang),
        persist_state="session",
    )
    c2.text_input(
        t("halfday.memory.children", lang), key="hd_fam_children", placeholder="2019, 2021", persist_state="session"
    )
    c3.number_input(t("halfday.memory.seniors", lang), 0, 30, key="hd_fam_seniors", persist_state="session")
    d1, d2 = st.columns(2)
    C.multiselect(
        d1, HALFDAY, "hd_fam_diet", t("halfday.memory.diet", lang), list(DIET_CODES),
        format_func=lambda c: w.word(w.DIET, c, lang),
    )  # fmt: skip
    C.multiselect(
        d2, HALFDAY, "hd_fam_mobility", t("halfday.memory.mobility", lang), list(MOBILITY_CODES),
        format_func=lambda c: w.word(w.MOBILITY, c, lang),
    )  # fmt: skip


def _save_family(ctx: RequestContext, lang: Lang) -> bool:
    """Save the family profile the inputs hold and draw the page again (a birth year out of range or more seniors
    than adults: an error under the inputs). False when the database cannot be reached."""
    state = st.session_state
    try:
        adults = int(state["hd_fam_adults"]) or None
        family = FamilyProfile(
            adults=adults,
            children_birth_years=birth_years(str(state["hd_fam_children"]), today=region_today()),
            seniors=int(state["hd_fam_seniors"]) or None,
            diet=list(state["hd_fam_diet"]),
            mobility=list(state["hd_fam_mobility"]),
        )
        if family.seniors and (family.adults or 0) < family.seniors:
            raise ValueError("seniors")
    except (ValueError, ValidationError):
        st.error(t("halfday.memory.bad_years", lang))
        return True
    try:
        halfday_app.keep_family(ctx, family)
    except SQLAlchemyError:
        st.error(t("halfday.memory.unreachable", lang))
        return False
    st.session_state[NOTICE] = t("halfday.memory.saved", lang)
    st.session_state.pop(LOADED, None)
    st.rerun()
