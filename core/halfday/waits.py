"""Level 2's waits (half_day_planner.md §4.1): a plan stream that asks the person whether to go on with local data
waits for the answer in a store the composition root provides, not in the process that holds the stream.

A wait is keyed by the plan's id (its stream's trace id) and belongs to one owner (the user who asked for the plan).
Only plain data goes in and out: ``WaitAnswer`` and ``WaitingPlan``, never a lock or an event one process holds, so a
store shared between processes (issue 33: Redis) lets any worker deliver the answer while another holds the stream,
which takes it by polling or blocking on the store with a timeout. ``InProcessWaits`` is the one-process store.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from core.models.halfday.facts import DegradedChoice

__all__ = ["HalfDayWaits", "InProcessWaits", "WaitAnswer", "WaitingPlan"]


class WaitAnswer(BaseModel):
    """The person's answer to a plan's level-2 question."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    plan_id: str = Field(description="the plan stream's trace id")
    owner: str = Field(description="who answers: only the plan's owner may")
    choice: DegradedChoice


class WaitingPlan(BaseModel):
    """A plan stream open for an answer: whose it is, and whether the answer was given."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    plan_id: str
    owner: str
    answered: bool


class HalfDayWaits(Protocol):
    """Where plan streams wait for the person's level-2 answer. Thread-safe; one per process or shared."""

    def register(self, plan_id: str, *, owner: str) -> None:
        """Open a wait for ``plan_id``'s answer, ``owner``'s to give (an open one of that id starts again)."""
        ...

    def deliver(self, answer: WaitAnswer) -> bool:
        """Hand the answer to its plan's wait; False when no wait of that id is open, it is another owner's, or it
        was answered already (an answer is given once)."""
        ...

    def take(self, plan_id: str, *, timeout_s: float) -> WaitAnswer | None:
        """The answer delivered for ``plan_id``, waiting up to ``timeout_s`` for it; None when none came in time or
        no wait of that id is open. Taking it leaves the wait answered (a second answer is still refused)."""
        ...

    def expire(self, plan_id: str) -> None:
        """Close ``plan_id``'s wait (its stream ended): later answers are refused. Closing none is no error."""
        ...

    def waiting(self) -> list[WaitingPlan]:
        """The open waits, by plan id."""
        ...


@dataclass
class _Wait:
    owner: str
    answered: bool = False
    answer: WaitAnswer | None = None  # delivered and not yet taken


class InProcessWaits:
    """``HalfDayWaits`` for one process: the waits in a dict, a condition to wake the stream that waits."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._waits: dict[str, _Wait] = {}

    def register(self, plan_id: str, *, owner: str) -> None:
        with self._changed:
            self._waits[plan_id] = _Wait(owner=owner)
            self._changed.notify_all()

    def deliver(self, answer: WaitAnswer) -> bool:
        with self._changed:
            wait = self._waits.get(answer.plan_id)
            if wait is None or wait.owner != answer.owner or wait.answered:
                return False
            wait.answered, wait.answer = True, answer
            self._changed.notify_all()
            return True

    def take(self, plan_id: str, *, timeout_s: float) -> WaitAnswer | None:
        with self._changed:
            # wakes on an answer, or on the wait closed meanwhile (nothing left to wait for)
            self._changed.wait_for(lambda: self._settled(plan_id), timeout=max(timeout_s, 0.0))
            wait = self._waits.get(plan_id)
            if wait is None or wait.answer is None:
                return None
            answer, wait.answer = wait.answer, None
            return answer

    def expire(self, plan_id: str) -> None:
        with self._changed:
            self._waits.pop(plan_id, None)
            self._changed.notify_all()

    def waiting(self) -> list[WaitingPlan]:
        with self._changed:
            return [
                WaitingPlan(plan_id=plan_id, owner=w.owner, answered=w.answered)
                for plan_id, w in sorted(self._waits.items())
            ]

    def _settled(self, plan_id: str) -> bool:
        wait = self._waits.get(plan_id)
        return wait is None or wait.answer is not None
