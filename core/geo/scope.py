"""One request's provider calls, carried by the calls themselves (docs/ARCHITECTURE.md, "Providers").

The services are shared by every request of a process (their clients, rate limiters, holds, breakers and cache).
What belongs to one request travels with its calls as a ``CallScope``:

- where the services' warnings go (the request's ``WarningLog``);
- how many remote requests were sent on its behalf (``RequestTally``);
- the time it may still spend waiting on providers, and what already failed in it (``ProviderBudget``);
- per call, whether the answer degraded to a fallback's estimate (no cache may keep such an answer);
- what a caller watches over a block of its calls (``CallWatch``: how many fell back or degraded), so a breaker
  above the provider counts a failure the provider answered from its fallback (the half-day map breaker).

A request's view of the providers (``MapServices.for_request``) holds its scope and binds the shared services to it
for each call (``bind``): a bound service is a twin that shares every part of the original and carries the scope.
Nothing is looked up beside the call chain, so a call made in a worker thread carries its request's scope too.
"""

from __future__ import annotations

import copy
import threading
import time
from typing import ClassVar, Self, TypeVar

from core.geo.base import WarningLog

S = TypeVar("S")


class RequestTally:
    """Remote requests made on one request's behalf (thread-safe: a request's calls may run in worker threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0

    def add(self) -> None:
        with self._lock:
            self.count += 1


class ProviderBudget:
    """One plan's provider budget: a deadline that pacing pushes back (``extend``); a nested budget pushes its outer
    one back by the same time, so the pause counts against neither.

    It is also the request's memory of what failed (``remember_failure``): a provider that timed out, a service that
    failed after its retry. The budget lives exactly as long as the request's provider calls, in whichever threads
    they run, so the same request does not wait on them again, and the next request asks them afresh."""

    __slots__ = ("_lock", "call_wait_s", "deadline", "excluded_s", "failed", "parent")

    def __init__(self, deadline: float, parent: ProviderBudget | None, *, call_wait_s: float | None = None) -> None:
        self.deadline = deadline
        self.parent = parent
        self.excluded_s = 0.0
        #: the most one call may wait for its answer (None: up to the deadline)
        inherited: float | None = parent.call_wait_s if parent is not None else None
        self.call_wait_s: float | None = call_wait_s if call_wait_s is not None else inherited
        self.failed: dict[str, str] = {}  # what failed in this request ("amap", "amap/geocode") -> how, first time
        self._lock = threading.Lock()

    @classmethod
    def starting_now(
        cls, seconds: float, *, call_wait_s: float | None = None, inside: ProviderBudget | None = None
    ) -> ProviderBudget:
        """A budget of ``seconds`` from now; ``inside`` an outer budget, it keeps the earlier deadline of the two."""
        deadline = time.monotonic() + max(0.0, seconds)
        if inside is not None:
            deadline = min(inside.deadline, deadline)
        return cls(deadline, inside, call_wait_s=call_wait_s)

    def extend(self, seconds: float) -> None:
        with self._lock:
            self.deadline += seconds
            self.excluded_s += seconds
        if self.parent is not None:
            self.parent.extend(seconds)

    def remember_failure(self, key: str, how: str) -> None:
        with self._lock:
            self.failed.setdefault(key, how)
        if self.parent is not None:
            self.parent.remember_failure(key, how)

    def failed_earlier(self, key: str) -> str | None:
        budget: ProviderBudget | None = self
        while budget is not None:
            with budget._lock:
                how = budget.failed.get(key)
            if how is not None:
                return how
            budget = budget.parent
        return None


class CallWatch:
    """What the calls of one block reported (``MapServices.watching``): how many were answered whole by the
    provider's fallback (its service failed or was not asked) and how many degraded at all (a fallback, or some pairs
    of a matrix estimated). Thread-safe: a block's calls may run in worker threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.fallbacks = 0
        self.degraded = 0

    def note(self, *, fallback: bool) -> None:
        with self._lock:
            self.degraded += 1
            self.fallbacks += int(fallback)


class CallScope:
    """What one request's calls to the shared services carry: its warning log, its tally of remote requests, its
    provider budget (None: unbounded, and nothing failed is remembered), the block's watch (None: nobody watches)
    and, per call, the degraded flag."""

    __slots__ = ("budget", "degraded", "tally", "warnings", "watch")

    def __init__(
        self,
        *,
        warnings: WarningLog,
        tally: RequestTally,
        budget: ProviderBudget | None = None,
        watch: CallWatch | None = None,
    ) -> None:
        self.warnings = warnings
        self.tally = tally
        self.budget = budget
        self.watch = watch
        self.degraded = False

    @classmethod
    def detached(cls, warnings: WarningLog | None = None) -> CallScope:
        """The scope of a service called outside any request's view (a test, a warm-up): its own log (``warnings``,
        or a new one), its own tally, no budget."""
        return cls(warnings=warnings if warnings is not None else WarningLog(), tally=RequestTally())

    def for_call(self) -> CallScope:
        """The same request's scope for one call: its own degraded flag, so concurrent calls never see each other's."""
        return CallScope(warnings=self.warnings, tally=self.tally, budget=self.budget, watch=self.watch)

    def watched_by(self, watch: CallWatch) -> CallScope:
        """This scope whose calls report to ``watch`` too (the budget and the log are the same)."""
        return CallScope(warnings=self.warnings, tally=self.tally, budget=self.budget, watch=watch)

    def with_budget(self, seconds: float, *, call_wait_s: float | None = None) -> CallScope:
        """This scope with a budget of ``seconds`` from now, nested in the current one (the earlier deadline holds;
        time excluded from it is excluded from the outer one too)."""
        budget = ProviderBudget.starting_now(seconds, call_wait_s=call_wait_s, inside=self.budget)
        return CallScope(warnings=self.warnings, tally=self.tally, budget=budget, watch=self.watch)

    def entering(self, budget: ProviderBudget) -> CallScope:
        """This scope with ``budget``, started earlier (a stream's steps, each entering the same deadline); an outer
        budget with an earlier deadline is kept."""
        outer = self.budget
        inner = budget if outer is None or outer.deadline >= budget.deadline else outer
        return CallScope(warnings=self.warnings, tally=self.tally, budget=inner, watch=self.watch)

    # ---- what a call reports --------------------------------------------------------------------------
    def note_request(self) -> None:
        """One remote request sent (the HTTP base and the MCP client call it for each request they send)."""
        self.tally.add()

    def note_degraded(self) -> None:
        """The call's answer is partly a fallback's estimate (pairs no road joins): no cache may keep it."""
        self.degraded = True
        if self.watch is not None:
            self.watch.note(fallback=False)

    def note_fallback(self) -> None:
        """The call's service failed (or was not asked) and its fallback answered it whole: a failure to whoever
        watches, and no cache may keep the answer."""
        self.degraded = True
        if self.watch is not None:
            self.watch.note(fallback=True)

    def remember_failure(self, key: str, how: str) -> None:
        """``key`` (a provider, or one of its services) failed in this request, ``how``: the request's later calls
        to it go to the fallback at once (no budget: nothing is remembered, each call is asked on its own)."""
        if self.budget is not None:
            self.budget.remember_failure(key, how)

    def exclude_from_budget(self, seconds: float) -> None:
        """``seconds`` spent pacing (not waiting for an answer): the budget's deadline moves back by them."""
        if self.budget is not None and seconds > 0:
            self.budget.extend(seconds)

    # ---- what a call reads ----------------------------------------------------------------------------
    def failed_earlier(self, key: str) -> str | None:
        """How ``key`` failed earlier in this request (None: it has not)."""
        return None if self.budget is None else self.budget.failed_earlier(key)

    def budget_left(self) -> float | None:
        """Seconds left of the provider budget (None: no budget is set)."""
        return None if self.budget is None else self.budget.deadline - time.monotonic()

    def call_wait_left(self) -> float | None:
        """The most the next remote call may wait for its answer: the budget's time left, at most its
        ``call_wait_s`` (None: no budget is set; the service's own timeout applies)."""
        budget = self.budget
        if budget is None:
            return None
        left = budget.deadline - time.monotonic()
        return left if budget.call_wait_s is None else min(left, budget.call_wait_s)

    def budget_excluded_s(self) -> float:
        """Seconds of pacing the budget has excluded so far (0 without a budget)."""
        return 0.0 if self.budget is None else self.budget.excluded_s


class ScopedService:
    """A shared service whose calls carry a request's scope. ``bound(scope)`` is a twin that shares every part of
    this service (client, limiter, hold, breakers) and makes its calls with ``scope``; the inner services named in
    ``SCOPED_PARTS`` are bound with it. A subclass sets ``self.scope`` (its calls outside any request) in its
    ``__init__`` and keeps whatever its calls change in shared objects, never in its own attributes: a twin's
    attribute would change the twin only."""

    SCOPED_PARTS: ClassVar[tuple[str, ...]] = ()
    scope: CallScope

    def bound(self, scope: CallScope) -> Self:
        twin = copy.copy(self)
        twin.scope = scope
        for name in self.SCOPED_PARTS:
            setattr(twin, name, bind(getattr(self, name), scope))
        return twin


def bind(service: S, scope: CallScope) -> S:
    """``service`` making its calls with ``scope`` (itself when it has nothing a request's scope changes: the
    region pack's gazetteer, a test's fake)."""
    return service.bound(scope) if isinstance(service, ScopedService) else service
