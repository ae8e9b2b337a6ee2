"""A key's calls counted per service and per day, against the configured daily quota (issue 33 §2).

AMap counts each service's calls of a key per day and refuses past the quota (10003, 10044 for the account) until
00:00 Asia/Shanghai. Waiting for that refusal spends the last call and tells nobody in advance; here every call is
counted before it is sent, and the call that would pass the quota is not sent: a structured refusal
(``ProviderQuotaExceeded``, ``details["reason"] == "DAILY_QUOTA_REACHED"``) says the count, the quota and when it
resets. The day is AMap's (its midnight in Asia/Shanghai), read from the clock handed in: the machine's seconds in
production (``core.clock.real_epoch_s``: another party's day, which a demo's fixed moment does not move), a fixed
moment in tests.

``DailyCounter`` counts in this process; ``RedisDailyCounter`` counts in Redis, shared by every process on it (one
key per service and day, expiring just after that day's midnight), and falls back to this process's count while
Redis does not answer. ``team_daily`` hands out the one counter of a key.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from core.clock import real_epoch_s
from core.errors import ProviderQuotaExceeded
from core.geo.ratelimit import key_digest, next_midnight
from core.geo.redis_limits import PREFIX, RedisLink, redis_link

#: the reason of a call refused here, before AMap would have refused it
QUOTA_REACHED = "DAILY_QUOTA_REACHED"
#: a day's counter outlives its midnight by this much (a late caller of the old day still finds its count)
EXPIRY_MARGIN_S = 300

# KEYS[1] the service's counter of the day; ARGV quota (-1: none), seconds to keep it. Returns {counted, used}.
_SPEND = """
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local quota = tonumber(ARGV[1])
if quota >= 0 and used >= quota then return {0, used} end
used = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
return {1, used}
"""


@dataclass(frozen=True)
class DailyUse:
    """One service's calls of a key on the quota's day: ``used`` of ``quota`` (None: no quota is known, the calls
    are only counted), the day (YYYY-MM-DD in the quota's zone), when the count starts again (epoch seconds), and
    whether this call was counted (False: refused, not sent)."""

    service: str
    used: int
    quota: int | None
    day: str
    resets_at: float
    allowed: bool = True


class DailyCount(Protocol):
    def spend(self, service: str) -> DailyUse:
        """Count one call of ``service`` if the quota leaves room (``allowed``), else count nothing."""
        ...

    def today(self) -> list[DailyUse]:
        """Every service's count today: those with a quota, and any other counted today."""
        ...


class DailyCounter:
    """The calls of one key counted in this process, per service and day. Thread-safe."""

    def __init__(self, quotas: Mapping[str, int], *, zone: str, clock: Callable[[], float] = real_epoch_s) -> None:
        self.quotas = dict(quotas)
        self.zone = zone
        #: AMap's moment (epoch seconds): the machine's in production; a test fixes it
        self.clock = clock
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}
        self._counted_day = ""

    def moment(self) -> tuple[float, str, float]:
        """Now, the quota's day at it (its date in ``zone``) and that day's end."""
        now = self.clock()
        return now, datetime.fromtimestamp(now, ZoneInfo(self.zone)).date().isoformat(), next_midnight(now, self.zone)

    def _today(self, day: str) -> dict[str, int]:
        if day != self._counted_day:  # a new day: yesterday's counts are AMap's past, not today's
            self._counts, self._counted_day = {}, day
        return self._counts

    def spend(self, service: str, *, check: bool = True) -> DailyUse:
        """``check=False``: count the call whatever the quota (a call the team's count already let through)."""
        _, day, resets = self.moment()
        quota = self.quotas.get(service)
        with self._lock:
            counts = self._today(day)
            used = counts.get(service, 0)
            if check and quota is not None and used >= quota:
                return DailyUse(service, used, quota, day, resets, allowed=False)
            counts[service] = used + 1
        return DailyUse(service, used + 1, quota, day, resets)

    def today(self) -> list[DailyUse]:
        _, day, resets = self.moment()
        with self._lock:
            counts = dict(self._today(day))
        names = sorted(set(self.quotas) | set(counts))
        return [DailyUse(name, counts.get(name, 0), self.quotas.get(name), day, resets) for name in names]


class RedisDailyCounter:
    """The calls of one key counted in Redis, shared by every process on it; this process's ``local`` count (kept
    as well) decides while Redis does not answer."""

    def __init__(self, link: RedisLink, name: str, local: DailyCounter) -> None:
        self.link = link
        self.prefix = f"{PREFIX}:daily:{name}"
        self.local = local
        self._spend = link.client.register_script(_SPEND)

    def _key(self, service: str, day: str) -> str:
        return f"{self.prefix}:{service}:{day}"

    def spend(self, service: str) -> DailyUse:
        now, day, resets = self.local.moment()
        quota = self.local.quotas.get(service)
        keep_s = max(1, math.ceil(resets - now)) + EXPIRY_MARGIN_S
        key = self._key(service, day)
        ok, got = self.link.call(lambda _client: self._spend(keys=[key], args=[-1 if quota is None else quota, keep_s]))
        if not ok or got is None:
            return self.local.spend(service)
        counted, used = int(got[0]), int(got[1])
        if counted:
            self.local.spend(service, check=False)
        return DailyUse(service, used, quota, day, resets, allowed=bool(counted))

    def today(self) -> list[DailyUse]:
        _, day, resets = self.local.moment()
        mine = self.local.today()
        names = [u.service for u in mine]
        ok, got = self.link.call(lambda client: client.mget([self._key(n, day) for n in names]))
        if not ok or got is None:
            return mine
        return [
            DailyUse(name, int(raw or 0), self.local.quotas.get(name), day, resets)
            for name, raw in zip(names, got, strict=True)
        ]


def quota_reached_error(use: DailyUse, *, endpoint: str, zone: str) -> ProviderQuotaExceeded:
    """The refusal of a call the day's quota leaves no room for: not sent, with the count and when it resets."""
    resets = datetime.fromtimestamp(use.resets_at, ZoneInfo(zone)).isoformat()
    return ProviderQuotaExceeded(
        f"The key's daily quota for {use.service} ({use.quota} calls) is used up: {use.used} calls today. Not asked; "
        f"the count starts again at {resets} ({zone}).",
        details={"reason": QUOTA_REACHED, "service": use.service, "endpoint": endpoint, "used": use.used,
                 "quota": use.quota, "resets_at": resets, "not_sent": True},
    )  # fmt: skip


_TEAM: dict[tuple[str, str, str], Any] = {}
_TEAM_LOCK = threading.Lock()


def team_daily(
    service: str, key: str | None, *, quotas: Mapping[str, int], zone: str, redis_url: str | None = None
) -> DailyCount:
    """The one daily counter of ``service``'s ``key`` in this process: counted in this process, or with
    ``redis_url`` in that Redis for every process on it (the quotas are the settings' latest)."""
    found_key = (service, key_digest(key), redis_url or "")
    with _TEAM_LOCK:
        found = _TEAM.get(found_key)
        if found is None:
            local = DailyCounter(quotas, zone=zone)
            found = (
                local
                if not redis_url
                else RedisDailyCounter(redis_link(redis_url), f"{service}:{key_digest(key)}", local)
            )
            _TEAM[found_key] = found
        counter: DailyCounter = found if isinstance(found, DailyCounter) else found.local
        counter.quotas = dict(quotas)
        return found
