"""AgentState helpers and the per-request runtime context.

``AgentState`` (core/models/agent.py) is the only working memory: every action reads and writes
it, and it holds the request's decisions (consent, the booking follow-up) and intermediate facts. ``AgentContext``
holds the *dependencies* of one request (settings, provider, database, stores, the reservation service, clock,
telemetry, budgets), handed in by the composition root, and the request itself: never a decision or a result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.clock import monotonic
from core.config import Settings
from core.geo.composite import MapServices
from core.i18n import Lang, guess_lang
from core.models.agent import MAX_FACT_TEXT, AgentOptions, AgentRequest, AgentState, DecisionLogEntry, TripState
from core.reservations.provider import ReservationsAt
from core.stores.db import Database


@dataclass
class AgentContext:
    settings: Settings
    request: AgentRequest
    now: datetime  # the request's moment in the person's zone: every calendar decision and stored stamp reads it
    provider: MapServices  # the request's view of the process's map services
    database: Database  # the one the flows open their stores on (the memory, the conversations)
    reservations: ReservationsAt  # the region's reservation service, on a clock the action gives
    store: Any = None
    memory: Any = None  # the person's memory (core.memory.store.UserMemory), opened at first use
    telemetry: Any = None
    llm: Any = None
    browser: Any = None
    clock: Callable[[], float] = monotonic  # durations and the request's deadline only
    started: float = 0.0
    progress: Callable[[str, str], None] | None = None  # (ui status, short message)
    lang: Lang | None = None  # the language the face gave (None: an API call without a locale; the message decides)
    llm_start: int = 0  # the model client's calls before this request (the client may be shared)
    map_requests_start: int = 0  # the map view's remote requests before this request

    def reply_lang(self, text: str | None = None) -> Lang:
        """The language of the answer: the face's, else the language ``text`` (default: the message) is in."""
        return self.lang or guess_lang(self.request.message if text is None else text)

    @property
    def options(self) -> AgentOptions:
        return self.request.options

    def now_s(self) -> float:
        """The request's moment as seconds since the epoch (dry-run and consent expiries)."""
        return self.now.timestamp()

    def elapsed_s(self) -> float:
        return self.clock() - self.started

    def remaining_s(self) -> float:
        return self.options.max_seconds - self.elapsed_s()

    def report(self, status: str, message: str = "") -> None:
        if self.progress is not None:
            try:
                self.progress(status, message)
            except Exception:  # a UI callback must never break the agent
                pass


def new_state(request: AgentRequest, *, region: str | None = None, lang: Lang | None = None) -> AgentState:
    """A fresh state for ``request``; ``lang`` is the reply language a face chose (None: guessed from the text)."""
    state = AgentState(request_id=request.request_id, user_input=request.message, lang=lang)
    state.trip = TripState(trip_id=request.trip_id, region=region)
    state.react.max_steps = request.options.max_steps
    return state


def log_decision(
    state: AgentState, *, action: str, reason_code: str, policy_id: str, facts: dict[str, Any] | None = None
) -> DecisionLogEntry:
    """Append one structured decision (validated: codes and flat facts only, no prose).

    Values that come from the user (a place name, a search term, a domain) are clipped to one line of
    ``MAX_FACT_TEXT`` characters, so a long message can never turn the log into free text, nor crash it."""
    entry = DecisionLogEntry(
        step=state.react.step,
        chosen_action=action,
        reason_code=reason_code,
        facts=_clip_facts(facts or {}),
        policy_id=policy_id,
    )
    state.react.decision_log.append(entry)
    return entry


def _clip(value: Any) -> Any:
    if isinstance(value, str):
        value = " ".join(value.split())
        return value if len(value) <= MAX_FACT_TEXT else value[: MAX_FACT_TEXT - 1] + "…"
    if isinstance(value, list | tuple):
        return [_clip(v) for v in list(value)[:50]]
    return value


def _clip_facts(facts: dict[str, Any]) -> dict[str, Any]:
    return {k: _clip(v) for k, v in facts.items()}


def get_path(obj: Any, path: str) -> Any:
    """``get_path(state, "memory.semantic_facts.pois")`` (attributes, then dict keys)."""
    cur = obj
    for part in path.split("."):
        if cur is None:
            return None
        cur = cur.get(part) if isinstance(cur, dict) else getattr(cur, part, None)
    return cur


def is_present(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, list | dict | tuple | str):
        return len(value) > 0
    return True
