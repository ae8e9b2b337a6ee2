"""The retry policy of a remote provider's calls: which failures are asked again, how long to wait, when to stop.

Per kind of failure (issue 21 §2): a person waits on every attempt, so a failure is asked again
only when a second attempt within a fraction of a second can plausibly succeed:

- **timeout** (the service accepted the call and did not answer in time): never asked again, and the request
  remembers it (``CallScope.remember_failure``): the request's later calls to that provider, every service of it,
  go to the fallback at once instead of each waiting its own timeout. A host that did not answer in 8 s will not in
  the next 8.
- **malformed** (an answer that breaks the service's schema, or is not JSON at all: a maintenance page, a changed
  API): never asked again, and the request's later calls to that service go to the fallback. The same server gives
  the same answer 200 ms later.
- **server error** (HTTP 5xx, 408/425, a refused or reset connection): asked again ``server_error_retries`` times
  (1) after ``server_error_pause_s`` (0.25 s); if that fails too, the request's later calls to that service go to
  the fallback. One retry covers a restarted worker or a dropped keep-alive connection; an outage longer than that
  is the breaker's business (across requests), not the person's wait. Other services of the provider are still
  asked: one failing endpoint does not make the others' figures estimates.
- **rate-limited** (too fast): asked again up to ``retries`` times with exponential backoff, and AMap's QPS
  refusals through the shared bucket (core.geo.amap ``rate_limit_retries``): the limit lifts within a second.
- **key refused / quota spent / held** (the minute's volume, the day's quota): never; they open the service's
  breaker at once (or hold the key), so further calls go straight to the fallback until the hold or
  ``reset_timeout`` is over.

What counts against a service's breaker (``is_breaker_failure``): an attempt that found the remote unavailable,
not a rate refusal, not a business answer. ``ResilientProvider`` (core/geo/resilience.py) applies the policy.
"""

from __future__ import annotations

from typing import Literal

import httpx
import pybreaker
import tenacity

from core.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderMalformed,
    ProviderNotRequested,
    ProviderQuotaExceeded,
    ProviderRateLimited,
    ProviderTimeout,
    ProviderUnavailable,
)
from core.geo.daily_quota import QUOTA_REACHED
from core.geo.scope import CallScope

__all__ = [
    "BudgetSpent",
    "BudgetedWait",
    "FailureKind",
    "RetryByKind",
    "cause_code",
    "default_wait",
    "failure_kind",
    "is_breaker_failure",
    "is_retryable",
]


FailureKind = Literal["timeout", "malformed", "server_error", "rate_limited", "final"]


def failure_kind(exc: BaseException) -> FailureKind:
    """Which retry rule a failure falls under (this module's docstring); ``final``: never asked again."""
    if isinstance(exc, ProviderNotRequested):
        return "final"  # no call was made: the budget is spent
    details = exc.details if isinstance(exc, ProviderError) and isinstance(exc.details, dict) else {}
    if details.get("not_sent"):
        return "final"  # the key is held (the minute's volume, the day's quota): asking again is refused unsent too
    if isinstance(exc, (ProviderTimeout, httpx.TimeoutException)):
        return "timeout"
    if isinstance(exc, ProviderMalformed):
        return "malformed"
    if isinstance(exc, ProviderRateLimited):
        # the provider may already have asked again at its paced rate (AMapProvider.rate_limit_retries)
        return "final" if details.get("paced_retries") else "rate_limited"
    if isinstance(exc, (ProviderUnavailable, httpx.TransportError)):
        return "server_error"
    return "final"


def is_retryable(exc: BaseException) -> bool:
    """Whether a failure may be asked again at all (how often: ``ResilientProvider``'s retry limits)."""
    return failure_kind(exc) in ("server_error", "rate_limited")


def cause_code(exc: BaseException) -> str:
    """How a remote call failed, as a code the words name (issue 21: a warning says how, not only that)."""
    if isinstance(exc, (ProviderTimeout, httpx.TimeoutException)):
        return "timeout"
    if isinstance(exc, ProviderMalformed):
        return "malformed"
    if isinstance(exc, ProviderRateLimited):
        return "rate_limited"
    if isinstance(exc, ProviderQuotaExceeded):
        details = exc.details if isinstance(exc.details, dict) else {}
        daily = details.get("reason") == QUOTA_REACHED or details.get("infocode") in ("10003", "10044")
        return "daily_quota" if daily else "quota"  # the day's: it resets at AMap's midnight, which the words say
    if isinstance(exc, ProviderAuthError):
        return "key_refused"
    if isinstance(exc, pybreaker.CircuitBreakerError):
        return "circuit_open"
    if isinstance(exc, (ProviderUnavailable, httpx.TransportError)):
        return "unavailable"
    return "failed"


def is_breaker_failure(exc: BaseException) -> bool:
    """What counts against a breaker: the remote side being unavailable, not a business answer, not a call that was
    never made, and not a refusal for going too fast (the shared rate limiter slows every caller instead)."""
    return isinstance(exc, (ProviderUnavailable, httpx.TransportError)) and not isinstance(
        exc, (ProviderNotRequested, ProviderRateLimited)
    )


def default_wait() -> tenacity.wait.wait_base:
    """Exponential backoff with jitter: ~0.5 s, 1 s, 2 s, ... capped at 8 s."""
    return tenacity.wait_exponential_jitter(multiplier=0.5, max=8.0, jitter=0.25)


class BudgetedWait(tenacity.wait.wait_base):
    """The pause before the next attempt, by the last failure's kind (a server error: a short fixed pause; a rate
    refusal: the backoff), never outlasting the plan's provider budget."""

    def __init__(self, rate_limited: tenacity.wait.wait_base, *, server_error_pause_s: float, scope: CallScope) -> None:
        self.rate_limited = rate_limited
        self.server_error_pause_s = server_error_pause_s
        self.scope = scope

    def __call__(self, retry_state: tenacity.RetryCallState) -> float:
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        if exc is not None and failure_kind(exc) == "server_error":
            pause = self.server_error_pause_s
        else:
            pause = float(self.rate_limited(retry_state))
        left = self.scope.budget_left()
        return pause if left is None else max(0.0, min(pause, left))


class RetryByKind(tenacity.retry_base):
    """Ask again while the last failure's kind has attempts left (``limits``: retries per kind)."""

    def __init__(self, limits: dict[FailureKind, int]) -> None:
        self.limits = limits

    def __call__(self, retry_state: tenacity.RetryCallState) -> bool:
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        if exc is None:
            return False
        return retry_state.attempt_number <= self.limits.get(failure_kind(exc), 0)


class BudgetSpent(tenacity.stop.stop_base):
    """Stop retrying once the plan's provider budget (its request's ``CallScope``) is spent."""

    def __init__(self, scope: CallScope) -> None:
        self.scope = scope

    def __call__(self, retry_state: tenacity.RetryCallState) -> bool:
        remaining = self.scope.budget_left()
        return remaining is not None and remaining <= 0
