"""The plans the dashboard keeps behind its share links, so that a reload shows the plan on screen at once
(docs/ARCHITECTURE.md, "Share links"; "Per-user state and where it lives").

A plan is kept under the key of what made it (``components/share.py`` ``plan_key``: the canonical request, the
provider, the pack and its data date, the settings planning reads) for ``ttl_s``. One dashboard process alone keeps
them in memory (``InProcessPlans``, at most ``entries``). A team runs several dashboard processes behind one
address, and a reload may reach another one than the plan was made on: with ``OMNI_REDIS_URL`` the plans are kept
in Redis (``RedisPlans``), so every process finds them; this process's memory keeps them too and answers while Redis
does not.

A plan is kept pickled, so no reader shares an object with another. A plan's JSON would not come back equal (the
itinerary's decision log keys facts by day number, which JSON makes strings). Only the team's own processes write
these keys, on the team's Redis, which is as trusted as its database (Django's Redis cache keeps pickles the same
way); a client's bytes never reach ``pickle.loads``.
"""

from __future__ import annotations

import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

from core.clock import monotonic
from core.geo.redis_limits import RedisLink, redis_link

__all__ = ["InProcessPlans", "KeptPlans", "PREFIX", "RedisPlans", "kept_plans"]

#: the plans' layout version: a release that changes a plan model's fields or modules bumps it, so a process of
#: another release (a rolling deploy) never reads the other's pickles
PLAN_LAYOUT = 1
PREFIX = f"omni:dashboard:plan:v{PLAN_LAYOUT}"
ENTRIES = 64
TTL_S = 6 * 3600


class KeptPlans(Protocol):
    def get(self, key: str) -> Any | None:
        """The plan kept under ``key`` (a copy of its own), or None."""
        ...

    def put(self, key: str, plan: Any) -> None:
        """Keep ``plan`` under ``key``, replacing what was kept there (a plan made again is the one a reload shows)."""
        ...


class InProcessPlans:
    """Plans kept in this process, newest last: at most ``entries``, each for ``ttl_s``; a read keeps a plan young."""

    def __init__(self, *, entries: int = ENTRIES, ttl_s: float = TTL_S, clock: Callable[[], float] = monotonic) -> None:
        self.entries = entries
        self.ttl_s = ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        self._items: OrderedDict[str, tuple[float, bytes]] = OrderedDict()

    def get(self, key: str) -> Any | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            if self._clock() - item[0] > self.ttl_s:
                del self._items[key]
                return None
            self._items.move_to_end(key)
            data = item[1]
        return pickle.loads(data)  # noqa: S301 - bytes this process pickled itself

    def put(self, key: str, plan: Any) -> None:
        self.put_bytes(key, pickle.dumps(plan))

    def put_bytes(self, key: str, data: bytes) -> None:
        with self._lock:
            self._items[key] = (self._clock(), data)
            self._items.move_to_end(key)
            while len(self._items) > self.entries:
                self._items.popitem(last=False)


class RedisPlans:
    """Plans kept in the team's Redis for ``ttl_s`` (every dashboard process reads them), and in this process's
    ``local`` memory, which answers while Redis does not."""

    def __init__(self, link: RedisLink, *, ttl_s: float = TTL_S, local: InProcessPlans | None = None) -> None:
        self.link = link
        self.ttl_s = ttl_s
        self.local = local or InProcessPlans(ttl_s=ttl_s)

    def get(self, key: str) -> Any | None:
        ok, data = self.link.call(lambda client: client.get(f"{PREFIX}:{key}"))
        if not ok or data is None:  # Redis did not answer, or lacks it (expired, or kept here while it was down)
            return self.local.get(key)
        try:
            return pickle.loads(data)  # noqa: S301 - written by the team's own processes (module docstring)
        except (pickle.UnpicklingError, AttributeError, ImportError, EOFError, TypeError, ValueError):
            # a plan another release kept: not this release's plan; the page plans again
            self.link.call(lambda client: client.delete(f"{PREFIX}:{key}"))
            return self.local.get(key)

    def put(self, key: str, plan: Any) -> None:
        data = pickle.dumps(plan)
        self.local.put_bytes(key, data)
        self.link.call(lambda client: client.set(f"{PREFIX}:{key}", data, ex=max(1, round(self.ttl_s))))


def kept_plans(redis_url: str | None) -> KeptPlans:
    """The dashboard's kept plans: the team's on the Redis at ``redis_url``, else this process's own."""
    if not redis_url:
        return InProcessPlans()
    return RedisPlans(redis_link(redis_url))
