"""Per-user request limits for the API (issue 33): a limit per API key (``api_user_limit``, e.g. ``120/minute``), one
moving window per user shared by every worker through the team's Redis (the ``limits`` library's Redis storage), so
one client cannot take all the workers. A request over the limit is refused with how long until one is free again
(the API answers 429 with ``Retry-After``). Without Redis, or while it does not answer, each worker counts alone
(its own memory), and nothing fails for it."""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import Any

from core.clock import real_epoch_s
from core.errors import OmniError

logger = logging.getLogger(__name__)
#: seconds a worker counts alone after the shared store failed, before asking it again
RETRY_S = 5.0


class TooManyRequests(OmniError):
    """The caller sent more requests than its limit allows; ``retry_after_s``: when the next one is free."""

    code = "TOO_MANY_REQUESTS"

    def __init__(self, message: str, *, retry_after_s: float) -> None:
        super().__init__(message, details={"retry_after_s": retry_after_s})
        self.retry_after_s = max(1.0, float(retry_after_s))


class RequestLimits:
    """One limit for every user, counted per user; ``check(user)`` raises ``TooManyRequests`` past it."""

    def __init__(self, limit: str | None, *, redis_url: str | None = None) -> None:
        from limits import parse
        from limits.storage import MemoryStorage
        from limits.strategies import MovingWindowRateLimiter

        self.limit = parse(limit) if limit else None
        self._local = MovingWindowRateLimiter(MemoryStorage())
        self._shared: Any = None
        if limit and redis_url:
            from limits.storage import RedisStorage

            storage = RedisStorage(redis_url, socket_timeout=0.25, socket_connect_timeout=0.25)
            self._shared = MovingWindowRateLimiter(storage)
        self._lock = threading.Lock()
        self._down_until: float | None = None

    def check(self, user: str) -> None:
        if self.limit is None:
            return
        limiter = self._limiter()
        try:
            allowed = limiter.hit(self.limit, "api", user)
            stats = None if allowed else limiter.get_window_stats(self.limit, "api", user)
        except Exception as exc:  # the storage's own errors (Redis down): count in this worker meanwhile
            self._mark_down(exc)
            limiter = self._local
            allowed = limiter.hit(self.limit, "api", user)
            stats = None if allowed else limiter.get_window_stats(self.limit, "api", user)
        else:
            with self._lock:
                if limiter is self._shared and self._down_until is not None:
                    logger.warning("the shared request limits answer again")
                    self._down_until = None
        if not allowed and stats is not None:
            wait = max(1, math.ceil(stats.reset_time - real_epoch_s()))
            raise TooManyRequests(
                f"more than {self.limit} requests for this key; the next is free in {wait} s", retry_after_s=wait
            )

    def _limiter(self) -> Any:
        with self._lock:
            if self._shared is None or (self._down_until is not None and time.monotonic() < self._down_until):
                return self._local
            return self._shared

    def _mark_down(self, exc: BaseException) -> None:
        with self._lock:
            if self._down_until is None:
                logger.warning("the shared request limits do not answer (%s): each worker counts alone", exc)
            self._down_until = time.monotonic() + RETRY_S  # then Redis is asked again
