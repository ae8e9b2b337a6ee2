"""Stage 1 through an LLM (optional): the same ``DecomposedGoal`` asked of an OpenAI-compatible model.

The model is asked for JSON with the contract's fields and closed vocabularies (core/models/halfday/goal.py); its answer is
validated against the model (``parser="llm"``) and its window checked against now by the rules' own rule
(``goal.settle_start``). An answer that is not valid JSON of the contract, or a call that fails, is asked once more
with the reason; after two failures the rules answer (``decompose_goal``), so stage 1 always returns a valid goal.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, time
from typing import Any

from pydantic import ValidationError

from core.agent.llm import LLMClient, LLMError
from core.halfday.goal import check_length, decompose_goal, settle_start
from core.halfday.goal_lexicon import PART_HOURS
from core.models.common import Lang
from core.models.halfday.goal import (
    DIET_CODES,
    MOBILITY_CODES,
    PREFERENCE_CODES,
    WEATHER_CODES,
    DecomposedGoal,
    TimeWindow,
)

log = logging.getLogger(__name__)
ATTEMPTS = 2
MAX_TOKENS = 700


def system_prompt(now: datetime) -> str:
    hours = ", ".join(f"{part} {a:%H:%M}-{b:%H:%M}" for part, (a, b) in PART_HOURS.items())
    return (
        "You read one half-day outing goal (Chinese or English) into JSON. Answer with one JSON object only, "
        "with exactly these keys: "
        '"language" ("zh"|"en"); "window" (null or {"date": "YYYY-MM-DD", "start": "HH:MM", "end": "HH:MM", '
        '"phrase": the words it came from}); "party" ({"adults": int, "children": int, "children_ages": [int], '
        '"seniors": int}, seniors counted among adults); "constraints" ({"budget_per_person": number|null, '
        '"budget_total": number|null, "diet": [...], "mobility": [...], "weather": [...], '
        '"transport": "walking"|"driving"|"cycling"|"transit"|null, "max_leg_minutes": int|null}); '
        '"preferences": [...]; "avoid": [...]; "named_places": [place names as written]; "assumed": [...]; '
        '"missing": [...]. '
        f"Codes: preferences and avoid from {list(PREFERENCE_CODES)}; diet from {list(DIET_CODES)}; "
        f"mobility from {list(MOBILITY_CODES)}; weather from {list(WEATHER_CODES)}. "
        'assumed from ["date_today", "date_next_weekday", "part_of_day_default_hours", "end_from_duration", '
        '"end_default_half_day", "party_default_one_adult", "child_age_unknown", "start_moved_to_now"]; '
        'missing from ["time_window", "time_window_past", "time_window_invalid"]. '
        f"Now is {now.isoformat()} ({now:%A}); resolve relative dates against it. Default hours: {hours}. "
        "A start without an end lasts 4 hours. No day part and no hours: window null and missing "
        '["time_window"]. Only what the goal says; never invent places, prices or ages.'
    )


def decompose_goal_llm(text: str, *, now: datetime, client: LLMClient, lang: Lang | None = None) -> DecomposedGoal:
    """The LLM's reading of the goal, validated; the rules' reading after two invalid answers or failed calls.
    ``lang``, when the caller says it, is the goal's language (not the model's guess)."""
    check_length(text)
    messages = [{"role": "system", "content": system_prompt(now)}, {"role": "user", "content": text}]
    for attempt in range(1, ATTEMPTS + 1):
        try:
            answer = client.chat(messages, json_mode=True, max_tokens=MAX_TOKENS, purpose="halfday_goal")
        except LLMError as exc:
            log.warning("halfday goal: LLM call failed (attempt %d): %s", attempt, exc)
            continue
        try:
            goal = _settled(_validated(answer, text), now)
            if not goal.wishes:  # the model listed none: every wish is still accounted for, as the rules read it
                goal = goal.model_copy(update={"wishes": decompose_goal(text, now=now).wishes})
            return goal.model_copy(update={"language": lang}) if lang else goal
        except (ValueError, ValidationError) as exc:  # json.JSONDecodeError is a ValueError
            reason = str(exc)[:500]
            log.warning("halfday goal: LLM answer invalid (attempt %d): %s", attempt, reason)
            messages += [
                {"role": "assistant", "content": answer[:4000]},
                {"role": "user", "content": f"That answer is invalid: {reason}. Answer again with valid JSON only."},
            ]
    return decompose_goal(text, now=now, lang=lang)


def _validated(answer: str, text: str) -> DecomposedGoal:
    data: Any = json.loads(answer)
    if not isinstance(data, dict):
        raise ValueError("the answer is not a JSON object")
    return DecomposedGoal.model_validate({**data, "text": text, "parser": "llm"})


def _settled(goal: DecomposedGoal, now: datetime) -> DecomposedGoal:
    """The window against now, as the rules do it: over → time_window_past; begun → it starts now (quarter hour)."""
    w = goal.window
    if w is None:
        return goal
    start = settle_start(w.date, w.start.hour * 60 + w.start.minute, w.end.hour * 60 + w.end.minute, now=now)
    if start is None:
        return goal.model_copy(update={"window": None, "missing": ["time_window_past"]})
    if start == w.start.hour * 60 + w.start.minute:
        return goal
    moved = TimeWindow(date=w.date, start=time(start // 60, start % 60), end=w.end, phrase=w.phrase)
    assumed = [*goal.assumed, "start_moved_to_now"] if "start_moved_to_now" not in goal.assumed else goal.assumed
    return goal.model_copy(update={"window": moved, "assumed": assumed})
