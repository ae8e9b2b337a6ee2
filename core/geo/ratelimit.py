"""One rate limiter per remote service and key, shared by every request of the process (issue 20 §2).

``TokenBucket`` paces calls at ``rate`` per second with a burst of ``burst`` calls: each caller reserves the next
free slot under a lock and sleeps outside it, so threads queue in order and never exceed the rate together. A
refusal for going too fast (AMap's QPS infocodes) pushes every later slot back (``penalize``): the whole process
backs off, not only the thread that was refused. ``shared_bucket`` hands every service of one name and key the
same bucket (AMap's geocode, distance, directions and weather count against one QPS).

The seconds a caller waits here are pacing, not waiting for an answer: the HTTP base excludes them from the plan's
provider budget (``CallScope.exclude_from_budget``).
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

from core.clock import real_epoch_s


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


class RateLimiter(Protocol):
    """Paces a key's calls: this process's ``TokenBucket``, or one shared through Redis (``RedisBucket``)."""

    @property
    def rate(self) -> float: ...

    @property
    def burst(self) -> float: ...

    def acquire(self) -> float: ...

    def penalize(self, seconds: float) -> None: ...

    def stats(self) -> BucketStats: ...

    def configure(self, rate: float, burst: float = 1.0) -> None: ...


class KeyHold(Protocol):
    """Holds a key's calls until a wall-clock time: this process's ``ServiceHold``, or one shared through Redis."""

    def hold(self, until: float, code: str) -> None: ...

    def current(self) -> Held | None: ...

    def now(self) -> float: ...


@dataclass(frozen=True)
class Held:
    """Calls held back until ``until`` (epoch seconds) because the service answered ``code``."""

    until: float
    code: str
    now: float = 0.0  # when it was read (the hold's clock)

    def local_time(self, zone: str) -> str:
        """When the hold ends, as the zone's wall-clock time (HH:MM:SS, with the date when it is not that day's)."""
        end = datetime.fromtimestamp(self.until, ZoneInfo(zone))
        today = datetime.fromtimestamp(self.now, ZoneInfo(zone)).date()
        return end.strftime("%H:%M:%S") if end.date() == today else end.isoformat()


class ServiceHold:
    """A key's calls held back until a wall-clock time. A service that refuses a key for the rest of the minute (AMap
    10004) or of the day (10003/10044, until 00:00 Asia/Shanghai) refuses every call until then, and each refused
    request still counts against the key's quota: asking again early only spends it. Thread-safe; ``clock`` is the
    wall clock (epoch seconds)."""

    def __init__(self, *, clock: Callable[[], float] = real_epoch_s) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self._held: Held | None = None

    def hold(self, until: float, code: str) -> None:
        with self._lock:
            if self._held is None or until > self._held.until or self._clock() >= self._held.until:
                self._held = Held(until, code)

    def current(self) -> Held | None:
        """The hold in force now, or None."""
        with self._lock:
            held, now = self._held, self._clock()
            return Held(held.until, held.code, now) if held is not None and now < held.until else None

    def now(self) -> float:
        return self._clock()


def next_minute(now: float) -> float:
    """The start of the next calendar minute (a per-minute limit is lifted then)."""
    return (math.floor(now / 60) + 1) * 60.0


def next_midnight(now: float, zone: str) -> float:
    """00:00 of the next day in ``zone`` (a daily quota is reset then)."""
    local = datetime.fromtimestamp(now, ZoneInfo(zone))
    midnight = datetime(local.year, local.month, local.day, tzinfo=ZoneInfo(zone)) + timedelta(days=1)
    return midnight.timestamp()


_BUCKETS: dict[tuple[str, str], TokenBucket] = {}
_HOLDS: dict[tuple[str, str], ServiceHold] = {}
_BUCKETS_LOCK = threading.Lock()


def _digest(key: str | None) -> str:
    return hashlib.sha256((key or "").encode("utf-8")).hexdigest()[:16]


def shared_hold(service: str, key: str | None) -> ServiceHold:
    """The process's one hold for ``service`` and ``key`` (the key kept only as a digest)."""
    with _BUCKETS_LOCK:
        return _HOLDS.setdefault((service, _digest(key)), ServiceHold())


def shared_bucket(service: str, key: str | None, *, rate: float, burst: float = 1.0) -> TokenBucket:
    """The process's one bucket for ``service`` and ``key`` (the key is kept only as a digest), set to ``rate``."""
    digest = _digest(key)
    with _BUCKETS_LOCK:
        bucket = _BUCKETS.get((service, digest))
        if bucket is None:
            bucket = _BUCKETS[(service, digest)] = TokenBucket(rate, burst=burst)
        elif bucket.rate != rate or bucket.burst != max(1.0, burst):
            bucket.configure(rate, burst)
        return bucket


def key_digest(key: str | None) -> str:
    """How a key is named in shared state: a digest, never the key."""
    return _digest(key)
