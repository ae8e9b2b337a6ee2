"""The half-day plans as cards side by side: the intro sentence, score and feasibility, the score breakdown chart,
the steps as a timeline (with a reservation flow per bookable step), the risks, the map and "Choose this plan";
plus the weight sliders that re-rank the cards from state (no re-planning). Words in the page's language (``lang``),
place names too, with the other language's name in a tooltip."""

from __future__ import annotations

from functools import partial

import altair as alt
import pandas as pd
import streamlit as st
from sqlalchemy.exc import SQLAlchemyError

from components.frame import request_context
from components.halfday import text
from components.halfday.map import render_plan_map
from components.halfday.state import CHOSEN, WEIGHT, reset_weights
from components.reservations import note_words, offer_for, reserve_controls, service_for
from core.app import RequestContext
from core.app import halfday as halfday_app
from core.errors import OmniError
from core.i18n import Lang, t
from core.models.halfday.events import HalfDayResult
from core.models.halfday.plans import DIMENSIONS, OriginPoint, Plan, PlanStep, ReserveInput, ScoreWeights
from core.models.reservations import DryRun, ReservationRequest
from core.words import halfday as halfday_words
from core.words import halfday as w


def origin_name(ctx: RequestContext, origin: OriginPoint, lang: Lang) -> tuple[str, str]:
    """(shown, other): the start place in ``lang`` when it is one of the pack's places (the other language for the
    tooltip), else the name the geocoder gave."""
    for place in ctx.region.places:
        if origin.name in (place.name_zh, place.name_en):
            shown = place.name_en if lang == "en" and place.name_en else place.name_zh
            other = place.name_zh if lang == "en" else place.name_en
            return shown, other if other and other != shown else ""
    return origin.name, ""


def score_frame(plan: Plan, weights: ScoreWeights, lang: Lang) -> pd.DataFrame:
    """One row per dimension: its name and meaning in words, its value (0–100) and its weight (%)."""
    norm = weights.normalised()
    rows = []
    for d in DIMENSIONS:
        value = float(getattr(plan.score, d)) if plan.score is not None else 0.0
        rows.append(
            {
                "dimension": w.word(w.DIMENSIONS, d, lang),
                "meaning": w.word(w.DIMENSION_HELP, d, lang),
                "score": round(value * 100),
                "weight": round(norm[d] * 100),
            }
        )
    return pd.DataFrame(rows, columns=["dimension", "meaning", "score", "weight"])


def score_chart(plan: Plan, weights: ScoreWeights, lang: Lang) -> alt.Chart:
    data = score_frame(plan, weights, lang)
    order = list(data["dimension"])
    chart: alt.Chart = (  # annotated: altair's mark_* methods are typed as returning Any
        alt.Chart(data)
        .mark_bar(color="#1f77b4")
        .encode(
            x=alt.X("score:Q", title=t("halfday.chart.score", lang), scale=alt.Scale(domain=[0, 100])),
            y=alt.Y("dimension:N", title=None, sort=order, axis=alt.Axis(labelOverlap=False, labelLimit=120)),
            tooltip=[
                alt.Tooltip("dimension:N", title=t("halfday.chart.dimension", lang)),
                alt.Tooltip("meaning:N", title=t("halfday.chart.meaning", lang)),
                alt.Tooltip("score:Q", title=t("halfday.chart.score", lang)),
                alt.Tooltip("weight:Q", title=t("halfday.chart.weight", lang)),
            ],
        )
        .properties(height=alt.Step(24))
    )
    return chart


def render_weights(lang: Lang) -> ScoreWeights:
    """Five sliders; moving one re-ranks the plans on this run. Returns the weights in use."""
    from components.halfday.state import weights

    with st.container(border=True, key="hd_weights_box"):
        st.markdown(t("halfday.weights.title", lang))
        cols = st.columns(len(DIMENSIONS) + 1, vertical_alignment="bottom")
        for col, d in zip(cols, DIMENSIONS, strict=False):
            col.slider(
                w.word(w.DIMENSIONS, d, lang),
                0.0,
                1.0,
                step=0.05,
                key=WEIGHT.format(d),
                help=w.word(w.DIMENSION_HELP, d, lang),
                persist_state="session",
            )
        cols[-1].button(t("halfday.weights.reset", lang), key="hd_weights_reset", on_click=reset_weights)
        chosen = weights()
        if chosen is None:
            st.warning(t("halfday.weights.all_zero", lang))
            return ScoreWeights()
        return chosen


def step_key(result: HalfDayResult, plan: Plan, step: PlanStep) -> str:
    """The session keys of one step's widgets and its reservation (form, dry run, receipt): the run (trace id), the
    plan and the place, so that a new plan never shows a receipt another plan's step made (plan ids repeat, p1…)."""
    return f"hd_{result.trace_id}_{plan.plan_id}_{step.place_id}"


def _step_block(
    ctx: RequestContext,
    result: HalfDayResult,
    plan: Plan,
    index: int,
    *,
    user: str,
    lang: Lang,
    stale: bool,
) -> None:
    step = plan.steps[index]
    _step_lines(plan, index, lang)
    key = step_key(result, plan, step)
    _feedback(ctx, step, lang=lang, key=key)
    if not step.bookable:
        return
    if stale:
        st.caption(t("halfday.card.plan_again_to_reserve", lang))
        return
    try:
        offer = offer_for(
            service_for(result.region), step.place_id, key=key, label="", day=result.slots.date, at=step.start
        )
    except (OmniError, SQLAlchemyError):
        st.caption(w.word(w.ERRORS, "DATABASE_UNREACHABLE", lang))
        return
    if offer is None:
        return
    state = st.session_state
    active = any(state.get(f"{key}_{name}") is not None for name in ("dry", "error", "receipt"))
    label = t("halfday.card.reserve", lang, place=text.place_name(step, lang))
    with st.expander(label, expanded=active, icon=":material/event:"):
        if offer.moved_from is not None:
            st.caption(note_words(offer, lang))
        reserve_controls(
            step.place_id,
            default_date=offer.default_date,
            default_time=offer.default_time,
            party_size=result.profile.party.size,
            key_prefix=key,
            region=result.region,
            dry_run=partial(_stage7_dry_run, result.region, result.trace_id),
        )


def _step_lines(plan: Plan, index: int, lang: Lang) -> None:
    """A step's time, place and why, travel, queue and price (the card's own and the live card's)."""
    step = plan.steps[index]
    meal = " :material/restaurant:" if step.kind == "meal" else ""
    other = text.other_name(step, lang)
    st.markdown(
        f"**{index + 1}. {halfday_words.clock(step.start)}–{halfday_words.clock(step.end)}** · {text.place_name(step, lang)}{meal}",
        help=t("halfday.step.other_name", lang, name=other) if other else None,
    )
    lines = [text.why_line(step, lang)]
    for line in (text.travel_line(step, lang), text.queue_line(step, plan.risks, lang), text.price_line(step, lang)):
        if line:
            lines.append(line)
    st.caption(" · ".join(lines))


def _stage7_dry_run(region: str, trace_id: str, user: str, request: ReservationRequest) -> DryRun:
    """A plan's step is reserved through the planner's stage 7 (the registered mock_reserve tool: schema-checked,
    logged under the plan's trace id); consent and confirmation then follow through the service's gates."""
    inp = ReserveInput(
        user_id=user,
        region=region,
        place_id=request.item_id,
        date=request.date,
        time=request.time,
        party_size=request.party_size,
        contact=request.contact,
    )
    return halfday_app.reserve_step(request_context(region), inp, trace_id=trace_id)


def _feedback(ctx: RequestContext, step: PlanStep, *, lang: Lang, key: str) -> None:
    """Explicit feedback on a place: the memory learns from it, and a "not again" place is never planned again."""
    said = st.session_state.get(f"{key}_feedback")
    if said is not None:
        st.caption(t("halfday.feedback.thanks_like" if said else "halfday.feedback.thanks_dislike", lang))
        return
    # one row sized to the words (columns cut them to "Mor…" / "Not…" in a card a third of the page wide)
    row = st.container(horizontal=True, gap="small")
    for liked, label in ((True, "halfday.feedback.like"), (False, "halfday.feedback.dislike")):
        if row.button(t(label, lang), key=f"{key}_{'like' if liked else 'dislike'}", type="tertiary", width="content"):
            halfday_app.feedback(ctx, step.place_id, liked=liked)
            st.session_state[f"{key}_feedback"] = liked
            st.rerun()


def _summary(plan: Plan, n: int, weights: ScoreWeights | None, lang: Lang) -> None:
    """A card's head: its option number, intro, the wishes it meets, its score (when scored) and feasibility."""
    st.markdown("#### " + t("halfday.card.option", lang, n=n))
    st.markdown(text.intro(plan, lang))
    if plan.wishes:  # every wish of the goal, met or not, and the ones not understood (never counted as met)
        st.markdown(t("halfday.wishes.heading", lang), help=None)
        for line in text.wish_lines(plan, lang):
            st.text(line)
    m1, m2 = st.columns(2)
    if plan.total is not None or plan.score is not None:
        total = (
            plan.total
            if plan.total is not None
            else (plan.score.total(weights or ScoreWeights()) if plan.score else 0.0)
        )
        m1.metric(t("halfday.card.score", lang), text.score_words(total, lang))
    m2.metric(t("halfday.card.feasibility", lang), text.percent(plan.feasibility))
    st.caption(text.feasibility_words(plan.feasibility, lang))


def _risks(plan: Plan, lang: Lang) -> None:
    if plan.risks:
        st.markdown(t("halfday.card.risks", lang))
        for risk in plan.risks:
            mark = "⚠" if risk.severity == "warning" else "ℹ"
            st.markdown(f"{mark} {text.risk_sentence(risk, plan, lang)}")


def render_live_card(plan: Plan, n: int, *, key: str, lang: Lang) -> None:
    """A plan's card the moment the planner has made it, while the next is composed (issue 32): its head, steps and
    risks as the final card shows them; the chart, map, feedback, booking and "Choose" come with the ranked cards."""
    with st.container(border=True, key=key):
        _summary(plan, n, None, lang)
        for i in range(len(plan.steps)):
            _step_lines(plan, i, lang)
        _risks(plan, lang)


def render_card(
    ctx: RequestContext,
    result: HalfDayResult,
    plan: Plan,
    rank: int,
    weights: ScoreWeights,
    *,
    user: str,
    provider_name: str,
    stale: bool,
    lang: Lang,
) -> None:
    with st.container(border=True, key=f"hd_card_{plan.plan_id}"):
        _summary(plan, rank, weights, lang)
        st.altair_chart(score_chart(plan, weights, lang), key=f"hd_chart_{plan.plan_id}", width="stretch")
        for i in range(len(plan.steps)):
            _step_block(ctx, result, plan, i, user=user, lang=lang, stale=stale)
        _risks(plan, lang)
        render_plan_map(
            plan,
            lang=lang,
            region=result.region,
            origin=result.origin,
            provider=provider_name,
            key=f"hd_map_{plan.plan_id}",
        )
        if st.session_state.get(CHOSEN) == plan.plan_id:
            st.success(t("halfday.card.chosen", lang))
        elif st.button(
            t("halfday.card.choose", lang),
            key=f"hd_choose_{plan.plan_id}",
            type="primary",
            icon=":material/check:",
            disabled=stale,
            width="stretch",
        ):
            try:
                halfday_app.remember_plan(ctx, result, plan.plan_id)
            except OmniError as exc:
                st.warning(w.word(w.ERRORS, exc.code, lang, fallback=w.word(w.ERRORS, "OMNI_ERROR", lang)))
            except SQLAlchemyError:
                st.warning(w.word(w.ERRORS, "DATABASE_UNREACHABLE", lang))
            else:
                st.session_state[CHOSEN] = plan.plan_id
                st.rerun()


def render_plans(
    ctx: RequestContext,
    result: HalfDayResult,
    ranked: list[Plan],
    weights: ScoreWeights,
    *,
    user: str,
    provider_name: str,
    stale: bool,
    lang: Lang,
) -> None:
    cols = st.columns(len(ranked))
    for rank, (col, plan) in enumerate(zip(cols, ranked, strict=True), start=1):
        with col:
            render_card(
                ctx, result, plan, rank, weights, user=user, provider_name=provider_name, stale=stale, lang=lang
            )
