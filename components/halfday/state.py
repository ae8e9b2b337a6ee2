"""The half-day page's session keys, its planner, the run that consumes the planner's events live, and the
callbacks of its buttons. The page holds no planning state of its own: it keeps the events and the result the core
sent (``st.session_state``) and renders from them."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any, Literal

import streamlit as st
from pydantic import ValidationError

from components.frame import active_provider, request_context
from components.halfday import text
from components.identity import dashboard_user
from components.language import current_lang, t
from core.app import halfday as halfday_app
from core.app.halfday import offered_windows
from core.models.halfday.events import (
    Done,
    DoneError,
    DoneEvent,
    DonePlans,
    ErrorFacts,
    HalfDayEvent,
    ObservationEvent,
    PlanObservation,
    StatusEvent,
    WarningObservation,
)
from core.models.halfday.facts import DegradedChoice
from core.models.halfday.goal import NamedWindow, WindowChoice
from core.models.halfday.plans import DEFAULT_WEIGHTS, DIMENSIONS, HalfDayRequest, ScoreWeights

GOAL = "hd_goal"  # the goal box
ORIGIN = "hd_origin"  # the optional start place
RUN = "hd_run"  # the last run: goal, origin, region, window, events, done (typed), lang (the goal's language)
RESULT = "hd_result"  # the HalfDayResult of the last run that ended with plans
PENDING = "hd_pending"  # a quick choice or Retry asked for a run on this script run
GOAL_ERROR = "hd_goal_error"  # why the goal box could not be planned (words)
CHOSEN = "hd_chosen"  # plan id recorded with "Choose this plan"
WEIGHT = "hd_w_{}"  # one slider per dimension
WINDOW = "hd_window"  # the window the next run sends beside the goal (a quick answer, a link's window)
PAUSED = "hd_paused"  # a run paused at a level-2 question: its stream, request, events and the answer list
RESUME = "hd_resume"  # a level-2 button was pressed: resume the paused run on this script run
FALLBACK = "hd_fallback"  # level 3: the conversation with the agent instead of plans (components/halfday/fallback.py)

#: example goals (button key, catalog key), written in the page's language
EXAMPLES: tuple[tuple[str, str], ...] = (
    ("hd_example_kids", "halfday.example.kids"),
    ("hd_example_rain", "halfday.example.rain"),
    ("hd_example_pair", "halfday.example.pair"),
    ("hd_example_vague", "halfday.example.vague"),
)


def init_state() -> None:
    state = st.session_state
    state.setdefault(GOAL, "")
    state.setdefault(ORIGIN, "")
    for d in DIMENSIONS:
        state.setdefault(WEIGHT.format(d), DEFAULT_WEIGHTS[d])


# ---- callbacks ----------------------------------------------------------------------------------------------
def fill_example(key: str) -> None:
    """An example's goal, in the page's language."""
    st.session_state[GOAL] = t(key)


def page_now() -> datetime:
    """This script run's now, in the region's zone (the moment the quick answers are offered at)."""
    return request_context().now()


def quick_choices() -> list[WindowChoice]:
    """The quick answers to "when?" still ahead now (at 20:00, "this afternoon" is not one)."""
    return offered_windows(page_now())


def choose_time(choice: WindowChoice) -> None:
    """A quick answer to "when?": planned again with the choice beside the goal; the goal box keeps its words."""
    st.session_state[WINDOW] = NamedWindow(choice=choice)
    st.session_state[PENDING] = True


def retry() -> None:
    run = st.session_state.get(RUN) or {}
    if run.get("goal"):
        st.session_state[GOAL] = run["goal"]
        st.session_state[ORIGIN] = run.get("origin") or ""
        if run.get("window") is not None:
            st.session_state[WINDOW] = run["window"]
    st.session_state[PENDING] = True


def reset_weights() -> None:
    for d in DIMENSIONS:
        st.session_state[WEIGHT.format(d)] = DEFAULT_WEIGHTS[d]


def weights() -> ScoreWeights | None:
    """The sliders' weights; None when every slider is at zero."""
    raw = {d: float(st.session_state.get(WEIGHT.format(d), DEFAULT_WEIGHTS[d])) for d in DIMENSIONS}
    try:
        return ScoreWeights(**raw)
    except ValidationError:
        return None


# ---- planning -----------------------------------------------------------------------------------------------
def request_from_state() -> HalfDayRequest | None:
    """The request of the goal box; on bad input the words go to ``GOAL_ERROR`` and None comes back."""
    state = st.session_state
    goal = str(state.get(GOAL, "")).strip()
    if not goal:
        state[GOAL_ERROR] = t("halfday.goal_error.empty")
        return None
    try:
        return HalfDayRequest(
            goal=goal,
            user_id=dashboard_user(),
            region=active_provider()[0].region.name,
            origin=str(state.get(ORIGIN, "")).strip() or None,
            weights=weights() or ScoreWeights(),
            now=page_now(),  # the moment the quick answers were offered at, too
            window=state.pop(WINDOW, None),
        )
    except ValidationError as exc:
        fields = {str(e["loc"][0]) for e in exc.errors() if e.get("loc")}
        key = "halfday.goal_error.origin_too_long" if "origin" in fields else "halfday.goal_error.goal_invalid"
        state[GOAL_ERROR] = t(key)
        return None


def run_plan(request: HalfDayRequest) -> dict[str, Any]:
    """Consume the planner's events, showing each stage as it happens; keep the run (and the result) in state. At a
    level-2 question (part of the plan on local data) the stream is kept, paused, until a button answers it."""
    ctx = request_context()
    answer: list[DegradedChoice] = []  # the buttons' answer, read when the stream resumes

    def decide(_trace_id: str, _wait_s: float) -> DegradedChoice | None:
        return answer[0] if answer else None

    stream = halfday_app.plan_half_day(ctx, request, decide=decide)
    return _consume(stream, request, answer=answer, events=[], trace_id=ctx.trace_id)


def answer_degraded(choice: DegradedChoice) -> None:
    """A level-2 button: the paused stream goes on (or stops) on the next script run."""
    paused = st.session_state.get(PAUSED)
    if paused is not None:
        paused["answer"].append(choice)
        st.session_state[RESUME] = True


def resume_plan() -> dict[str, Any] | None:
    """The paused stream, answered, consumed to its end (None when there is none: a stale button)."""
    paused = st.session_state.pop(PAUSED, None)
    if paused is None or not paused["answer"]:
        return None
    return _consume(paused["stream"], paused["request"], answer=paused["answer"], events=paused["events"], trace_id="")


def _asks(event: HalfDayEvent) -> bool:
    return (
        isinstance(event, ObservationEvent) and isinstance(event.data, WarningObservation) and bool(event.data.choice)
    )


def _consume(
    stream: Iterator[HalfDayEvent],
    request: HalfDayRequest,
    *,
    answer: list[DegradedChoice],
    events: list[HalfDayEvent],
    trace_id: str,
) -> dict[str, Any]:
    state = st.session_state
    lang = current_lang()  # the page's language: the log and the plans are worded in it, whatever the goal's
    label = t("halfday.run.planning", lang)
    asking: HalfDayEvent | None = None
    from components.halfday.live import LivePlans  # it draws cards, whose module reads this one's keys

    box = st.status(f"{label}…", expanded=True)
    live = LivePlans(st.empty(), lang=lang)  # under the stage log: each plan's card as soon as it is made
    with box:
        bar = st.progress(0.0, text=text.stage_name("started", lang))
        for event in events:  # a resumed run: what came before the question
            line = text.event_line(event, lang)
            if line:
                st.markdown(line)
        for event in stream:
            events.append(event)
            line = text.event_line(event, lang)
            if line:
                st.markdown(line)
            if isinstance(event, StatusEvent):
                stage = event.data.stage
                name = text.stage_name(event.data.name, lang)
                bar.progress(min(stage / text.STAGE_COUNT, 1.0), text=f"{stage}/{text.STAGE_COUNT} · {name}")
                box.update(label=f"{label} · {name}")
            if isinstance(event, ObservationEvent) and isinstance(event.data, PlanObservation):
                live.show(event.data)
            if _asks(event) and not answer:
                asking = event
                break  # the stream waits here, kept in state, until a button answers
        last = events[-1] if events else None
        done: Done | None = None
        if asking is None:
            done = last.data if isinstance(last, DoneEvent) else _stopped(last.trace_id if last else trace_id)
        kind = "waiting" if done is None else done.type
        box.update(label=text.done_label(kind, lang), state="error" if kind == "error" else "complete", expanded=False)
    live.clear()
    run = {
        "goal": request.goal,
        "origin": request.origin or "",
        "region": request.region,
        "window": request.window,
        "events": events,
        "done": done,
        "asking": asking.data if isinstance(asking, ObservationEvent) else None,
        "live": True,
    }
    state[RUN] = run
    state.pop(CHOSEN, None)
    state.pop(FALLBACK, None)
    if asking is not None:
        state[PAUSED] = {"stream": stream, "request": request, "answer": answer, "events": events}
    else:
        state.pop(PAUSED, None)
    if isinstance(done, DonePlans):
        state[RESULT] = done.result
    else:
        state.pop(RESULT, None)
    return run


def _stopped(trace_id: str) -> DoneError:
    """How a stream that ended without its ``done`` is shown (it never does: the core's last guard sends one)."""
    return DoneError(error=ErrorFacts(code="INTERNAL_ERROR", trace_id=trace_id))


def render_stage_log(run: dict[str, Any]) -> None:
    """The stages of the last run, from state (collapsed; the live run drew them as they happened)."""
    if run.get("live"):
        run["live"] = False  # drawn live on this script run
        return
    lang = current_lang()
    kind = "waiting" if run["done"] is None else run["done"].type
    label = t("halfday.run.how", lang) if kind == "plans" else text.done_label(kind, lang)
    shown: Literal["error", "complete"] = "error" if kind == "error" else "complete"
    with st.status(label, expanded=False, state=shown):
        for event in run["events"]:
            line = text.event_line(event, lang)
            if line:
                st.markdown(line)


def is_stale(run: dict[str, Any]) -> bool:
    """The goal box (or the region) no longer matches the plans shown."""
    goal = str(st.session_state.get(GOAL, "")).strip()
    return goal != run.get("goal") or active_provider()[0].region.name != run.get("region")
