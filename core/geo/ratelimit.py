"""One rate limiter per remote service and key, shared by every request of the process (issue 20 §2).

``TokenBucket`` paces calls at ``rate`` per second with a burst of ``burst`` calls: each caller reserves the next
free slot under a lock and sleeps outside it, so threads queue in order and never exceed the rate together. A
refusal for going too fast (AMap's QPS infocodes) pushes every later slot back (``penalize``): the whole process
backs off, not only the thread that was refused. ``shared_bucket`` hands every service of one name and key the
same bucket (AMap's geocode, distance, directions and weather count against one QPS).

The seconds a caller waits here are pacing, not waiting for an answer: the HTTP base excludes them from the plan's
provider budget (core.geo.base.exclude_from_budget).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class BucketStats:
    """What a bucket has done: calls let through, seconds callers waited for their turn, penalties taken."""

    acquired: int
    waited_s: float
    penalties: int


class TokenBucket:
    """``rate`` calls per second (0 or less: no pacing), at most ``burst`` at once. Thread-safe."""

    def __init__(
        self,
        rate: float,
        *,
        burst: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self._sleep = sleep
        self.rate = float(rate)
        self.burst = max(1.0, float(burst))
        self._tat: float | None = None  # the theoretical time the next call is due (GCRA)
        self._acquired = 0
        self._waited_s = 0.0
        self._penalties = 0

    def __repr__(self) -> str:
        return f"TokenBucket(rate={self.rate:g}, burst={self.burst:g})"

    def configure(self, rate: float, burst: float = 1.0) -> None:
        with self._lock:
            self.rate = float(rate)
            self.burst = max(1.0, float(burst))

    def _reserve(self) -> float:
        """The seconds until this caller's slot (its slot is taken)."""
        with self._lock:
            self._acquired += 1
            now = self._clock()
            if self.rate <= 0:
                return 0.0
            interval = 1.0 / self.rate
            tat = now if self._tat is None else max(self._tat, now)
            wait = tat - (self.burst - 1.0) * interval - now
            wait = wait if wait > 1e-9 else 0.0  # float noise of the slot arithmetic is no wait
            self._tat = tat + interval
            self._waited_s += wait
            return wait

    def acquire(self) -> float:
        """Wait for a slot; the seconds waited."""
        wait = self._reserve()
        if wait > 0:
            self._sleep(wait)
        return wait

    def penalize(self, seconds: float) -> None:
        """The service refused a call for going too fast: no slot is given before ``seconds`` from now."""
        with self._lock:
            self._penalties += 1
            due = self._clock() + max(0.0, seconds)
            self._tat = due if self._tat is None else max(self._tat, due)

    def stats(self) -> BucketStats:
        with self._lock:
            return BucketStats(self._acquired, round(self._waited_s, 3), self._penalties)


_BUCKETS: dict[tuple[str, str], TokenBucket] = {}
_BUCKETS_LOCK = threading.Lock()


def shared_bucket(service: str, key: str | None, *, rate: float, burst: float = 1.0) -> TokenBucket:
    """The process's one bucket for ``service`` and ``key`` (the key is kept only as a digest), set to ``rate``."""
    digest = hashlib.sha256((key or "").encode("utf-8")).hexdigest()[:16]
    with _BUCKETS_LOCK:
        bucket = _BUCKETS.get((service, digest))
        if bucket is None:
            bucket = _BUCKETS[(service, digest)] = TokenBucket(rate, burst=burst)
        elif bucket.rate != rate or bucket.burst != max(1.0, burst):
            bucket.configure(rate, burst)
        return bucket
