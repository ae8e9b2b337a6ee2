"""The half-day page's session keys, its planner, the run that consumes the planner's events live, and the
callbacks of its buttons. The page holds no planning state of its own: it keeps the events and the result the core
sent (``st.session_state``) and renders from them."""

from __future__ import annotations

from typing import Any

import streamlit as st
from pydantic import ValidationError

from components import halfday_text as text
from components import halfday_words as words
from components.frame import active_provider
from components.identity import dashboard_user
from core.config import get_settings
from core.geo.composite import MapServices
from core.halfday.models import DEFAULT_WEIGHTS, DIMENSIONS, HalfDayEvent, HalfDayRequest, HalfDayResult, ScoreWeights
from core.halfday.service import HalfDayPlanner

GOAL = "hd_goal"  # the goal box
ORIGIN = "hd_origin"  # the optional start place
RUN = "hd_run"  # the last run: goal, origin, region, events, done (dict), lang
RESULT = "hd_result"  # the HalfDayResult of the last run that ended with plans
PENDING = "hd_pending"  # a quick choice or Retry asked for a run on this script run
GOAL_ERROR = "hd_goal_error"  # why the goal box could not be planned (words)
CHOSEN = "hd_chosen"  # plan id recorded with "Choose this plan"
WEIGHT = "hd_w_{}"  # one slider per dimension

EXAMPLES: tuple[tuple[str, str], ...] = (
    ("hd_example_kids", "明天下午带6岁的孩子去博物馆,再吃点本帮菜"),
    ("hd_example_rain", "周六下午下雨,两个人想去室内看看展,预算每人200"),
    ("hd_example_en", "Tomorrow afternoon, two adults, a museum and local food"),
    ("hd_example_vague", "想找个安静的地方喝咖啡"),
)


def init_state() -> None:
    state = st.session_state
    state.setdefault(GOAL, "")
    state.setdefault(ORIGIN, "")
    for d in DIMENSIONS:
        state.setdefault(WEIGHT.format(d), DEFAULT_WEIGHTS[d])


def make_planner(provider: MapServices) -> HalfDayPlanner:
    """The planner of the region in use, on the settings' database (tests swap this to mock a tool)."""
    return HalfDayPlanner(provider=provider, settings=get_settings())


def planner_for(region: str | None = None) -> HalfDayPlanner:
    """The planner of ``region`` (the sidebar's provider when it serves that region, else offline)."""
    from components.frame import cached_provider

    provider, name = active_provider()
    if region is not None and provider.region.name != region:
        provider = cached_provider("offline", region)
    return make_planner(provider)


# ---- callbacks ----------------------------------------------------------------------------------------------
def fill_example(goal: str) -> None:
    st.session_state[GOAL] = goal


def choose_time(choice: str) -> None:
    """A quick answer to "when?": the goal completed with it, then planned again."""
    run = st.session_state.get(RUN) or {}
    st.session_state[GOAL] = text.completed_goal(run.get("goal") or st.session_state.get(GOAL, ""), choice)
    st.session_state[PENDING] = True


def retry() -> None:
    run = st.session_state.get(RUN) or {}
    if run.get("goal"):
        st.session_state[GOAL] = run["goal"]
        st.session_state[ORIGIN] = run.get("origin") or ""
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
    lang = text.guess_language(goal)
    if not goal:
        state[GOAL_ERROR] = "Write what you would like to do first. / 请先写下你想做什么。"
        return None
    try:
        return HalfDayRequest(
            goal=goal,
            user_id=dashboard_user(),
            region=active_provider()[0].region.name,
            origin=str(state.get(ORIGIN, "")).strip() or None,
            weights=weights() or ScoreWeights(),
        )
    except ValidationError as exc:
        fields = {str(e["loc"][0]) for e in exc.errors() if e.get("loc")}
        if "origin" in fields:
            msg = ("出发地太长了(最多 300 字)。", "The start place is too long (300 characters at most).")
        else:
            msg = ("目标太长或含有无法使用的字符,请改短一些。", "The goal is too long or has unusable characters.")
        state[GOAL_ERROR] = words.pick(msg, lang)
        return None


def run_plan(request: HalfDayRequest) -> dict[str, Any]:
    """Consume the planner's events, showing each stage as it happens; keep the run (and the result) in state."""
    state = st.session_state
    planner = planner_for()
    lang = text.guess_language(request.goal)
    events: list[HalfDayEvent] = []
    label = "Planning / 规划中"
    with st.status(f"{label}…", expanded=True) as box:
        bar = st.progress(0.0, text=words.bilingual(words.STAGES, "started"))
        for event in planner.events(request):
            events.append(event)
            if event.type == "intent" and event.data.get("goal"):
                lang = str(event.data["goal"].get("language") or lang)
            line = text.event_line(event, lang)
            if line:
                st.markdown(line)
            if event.type == "status":
                stage = int(event.data.get("stage", 0))
                name = words.bilingual(words.STAGES, str(event.data.get("name", "")))
                bar.progress(min(stage / text.STAGE_COUNT, 1.0), text=f"{stage}/{text.STAGE_COUNT} · {name}")
                box.update(label=f"{label} · {name}")
        done = events[-1].data if events and events[-1].type == "done" else {"type": "error", "error": {}}
        kind = done.get("type")
        final = {"plans": "Plans ready / 规划完成", "clarify": "A question first / 需要补充信息"}
        box.update(
            label=final.get(str(kind), "Planning stopped / 规划停止"),
            state="error" if kind == "error" else "complete",
            expanded=False,
        )
    run = {
        "goal": request.goal,
        "origin": request.origin or "",
        "region": request.region,
        "events": events,
        "done": done,
        "lang": lang,
        "live": True,
    }
    state[RUN] = run
    state.pop(CHOSEN, None)
    if kind == "plans":
        state[RESULT] = HalfDayResult.model_validate(done["result"])
    else:
        state.pop(RESULT, None)
    return run


def render_stage_log(run: dict[str, Any]) -> None:
    """The stages of the last run, from state (collapsed; the live run drew them as they happened)."""
    if run.get("live"):
        run["live"] = False  # drawn live on this script run
        return
    kind = run["done"].get("type")
    label = {"plans": "How it was planned / 规划过程", "clarify": "A question first / 需要补充信息"}
    state = "error" if kind == "error" else "complete"
    with st.status(label.get(str(kind), "Planning stopped / 规划停止"), expanded=False, state=state):
        for event in run["events"]:
            line = text.event_line(event, run["lang"])
            if line:
                st.markdown(line)


def is_stale(run: dict[str, Any]) -> bool:
    """The goal box (or the region) no longer matches the plans shown."""
    goal = str(st.session_state.get(GOAL, "")).strip()
    return goal != run.get("goal") or active_provider()[0].region.name != run.get("region")
