"""A key's limits kept in Redis, so every process on every machine shares them (issue 33 §1).

AMap counts a key's QPS, its per-minute volume and its daily quota across everyone who uses the key; a token bucket
per process lets three processes send three times the rate. Here the bucket and the hold of a key live in Redis:

- ``RedisBucket`` paces calls by GCRA (the "theoretical arrival time" of the next call) in one Lua script: Redis
  reserves each caller's slot atomically against its own clock (``TIME``), so callers of every process queue in the
  order they asked, and the caller sleeps outside Redis. ``penalize`` pushes the key's next slot back for everyone.
- ``RedisHold`` keeps "held until T for code C" (AMap's 10004 for the minute, 10003/10044 for the day) as a key that
  expires at T, so a refusal one worker met stops every worker until then.

Redis is a helper, never a dependency: each bucket and hold wraps the process's own (``core.geo.ratelimit``) and
uses it while Redis does not answer (down at the start or in the middle of a run). ``RedisLink`` marks Redis down
after a failed command, logs it once, and tries again after ``retry_s``: when Redis is back the processes use it
again. ``link_state`` tells the health answer which it is.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Literal, TypeVar, cast

from core.geo.ratelimit import (
    BucketStats,
    Held,
    KeyHold,
    RateLimiter,
    ServiceHold,
    TokenBucket,
    key_digest,
    shared_bucket,
    shared_hold,
)

logger = logging.getLogger(__name__)
T = TypeVar("T")
LinkState = Literal["up", "down"]

#: Redis keys of this module (one namespace per product; the service and the key's digest follow)
PREFIX = "omni:limits"

# KEYS[1] the bucket; ARGV interval (s), burst. Returns the seconds the caller waits for its slot (its slot taken).
_RESERVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local wait = tat - (burst - 1) * interval - now
if wait < 0 then wait = 0 end
local due = tat + interval
redis.call('SET', KEYS[1], tostring(due), 'PX', math.ceil((due - now) * 1000) + 1000)
return tostring(wait)
"""
# KEYS[1] the bucket; ARGV seconds. No slot before now + seconds, for every caller of the key.
_PENALIZE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local due = now + tonumber(ARGV[1])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat > due then due = tat end
redis.call('SET', KEYS[1], tostring(due), 'PX', math.ceil((due - now) * 1000) + 1000)
return 1
"""
# KEYS[1] the hold; ARGV until (epoch s), code, now (epoch s). Keeps the later of the two holds.
_HOLD = """
local old = redis.call('GET', KEYS[1])
if old then
  local held = cjson.decode(old)
  if tonumber(held['until']) >= tonumber(ARGV[1]) then return 0 end
end
local ms = math.ceil((tonumber(ARGV[1]) - tonumber(ARGV[3])) * 1000)
if ms <= 0 then return 0 end
redis.call('SET', KEYS[1], cjson.encode({['until'] = tonumber(ARGV[1]), code = ARGV[2]}), 'PX', ms)
return 1
"""


class RedisLink:
    """One Redis of the process, and whether it answers. ``call`` runs a command and returns ``(True, value)``, or
    ``(False, None)`` when Redis is down (marked for ``retry_s`` after a failure: meanwhile nobody waits on it)."""

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = 0.25,
        retry_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        client: Any = None,
    ) -> None:
        import redis

        self.url = url
        self.retry_s = retry_s
        self._clock = clock
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        self.client = client or redis.Redis.from_url(
            url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s, health_check_interval=30
        )
        self._scripts = {
            name: self.client.register_script(body)
            for name, body in (("reserve", _RESERVE), ("penalize", _PENALIZE), ("hold", _HOLD))
        }
        self._lock = threading.Lock()
        self._down_until: float | None = None
        self.failures = 0

    @property
    def state(self) -> LinkState:
        with self._lock:
            return "down" if self._down_until is not None and self._clock() < self._down_until else "up"

    def script(self, name: str, keys: list[str], args: list[Any]) -> tuple[bool, Any]:
        return self.call(lambda _client: self._scripts[name](keys=keys, args=args))

    def call(self, command: Callable[[Any], T]) -> tuple[bool, T | None]:
        with self._lock:
            if self._down_until is not None and self._clock() < self._down_until:
                return False, None
        try:
            value = command(self.client)
        except self._errors as exc:
            with self._lock:
                was_up = self._down_until is None
                self._down_until = self._clock() + self.retry_s
                self.failures += 1
            if was_up:
                logger.warning(
                    "Redis at %s does not answer (%s): each process keeps its own limits", self._safe_url(), exc
                )
            return False, None
        with self._lock:
            if self._down_until is not None:
                logger.warning("Redis at %s answers again: the shared limits are used again", self._safe_url())
            self._down_until = None
        return True, value

    def _safe_url(self) -> str:
        """The URL without its password (logs and health answers never carry it)."""
        head, sep, tail = self.url.rpartition("@")
        return f"{head.split('//')[0]}//…@{tail}" if sep else self.url


class RedisBucket:
    """A key's pacing in Redis; the process's own ``local`` bucket while Redis does not answer. Same interface as
    ``TokenBucket`` (acquire, penalize, stats, configure)."""

    def __init__(
        self, link: RedisLink, name: str, local: TokenBucket, *, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self.link = link
        self.key = f"{PREFIX}:bucket:{name}"
        self.local = local
        self._sleep = sleep
        self._lock = threading.Lock()
        self._acquired = 0
        self._waited_s = 0.0
        self._penalties = 0

    @property
    def rate(self) -> float:
        return self.local.rate

    @property
    def burst(self) -> float:
        return self.local.burst

    def __repr__(self) -> str:
        return f"RedisBucket({self.key}, rate={self.rate:g}, burst={self.burst:g})"

    def configure(self, rate: float, burst: float = 1.0) -> None:
        self.local.configure(rate, burst)

    def acquire(self) -> float:
        """Wait for this caller's slot among every process of the key; the seconds waited."""
        if self.rate <= 0:
            return self.local.acquire()
        ok, wait = self.link.script("reserve", [self.key], [1.0 / self.rate, self.burst])
        if not ok:
            return self.local.acquire()
        seconds = max(0.0, float(wait))
        if seconds > 1e-9:
            self._sleep(seconds)
        else:
            seconds = 0.0
        with self._lock:
            self._acquired += 1
            self._waited_s += seconds
        return seconds

    def penalize(self, seconds: float) -> None:
        """The service refused a call for going too fast: every process of the key waits ``seconds``."""
        self.local.penalize(seconds)
        self.link.script("penalize", [self.key], [max(0.0, seconds)])
        with self._lock:
            self._penalties += 1

    def stats(self) -> BucketStats:
        local = self.local.stats()
        with self._lock:
            return BucketStats(
                self._acquired + local.acquired, round(self._waited_s + local.waited_s, 3), self._penalties
            )


class RedisHold:
    """A key's hold in Redis (a refusal one process met holds every process); the process's own ``local`` hold is
    kept as well and answers while Redis does not. Same interface as ``ServiceHold`` (hold, current, now)."""

    def __init__(self, link: RedisLink, name: str, local: ServiceHold) -> None:
        self.link = link
        self.key = f"{PREFIX}:hold:{name}"
        self.local = local

    def hold(self, until: float, code: str) -> None:
        self.local.hold(until, code)
        self.link.script("hold", [self.key], [until, code, self.local.now()])

    def current(self) -> Held | None:
        ok, raw = self.link.call(lambda client: client.get(self.key))
        if not ok:
            return self.local.current()
        now = self.local.now()
        if raw is None:
            return self.local.current()  # a hold met while Redis was down still holds this process
        found = json.loads(raw)
        until, code = float(found["until"]), str(found["code"])
        shared = Held(until, code, now) if now < until else None
        mine = self.local.current()
        if shared is None or (mine is not None and mine.until > shared.until):
            return mine
        return shared

    def now(self) -> float:
        return self.local.now()


_LINKS: dict[str, RedisLink] = {}
_LINKS_LOCK = threading.Lock()


def redis_link(url: str) -> RedisLink:
    """The process's one link to the Redis at ``url``."""
    with _LINKS_LOCK:
        link = _LINKS.get(url)
        if link is None:
            link = _LINKS[url] = RedisLink(url)
        return link


def link_state(url: str | None) -> Literal["off", "up", "down"]:
    """For a health answer: no Redis configured, Redis answering, or Redis down (the processes work alone)."""
    if not url:
        return "off"
    link = redis_link(url)
    link.call(lambda client: client.ping())
    return link.state


_TEAM: dict[tuple[str, str, str, str], Any] = {}


def _team(kind: str, service: str, key: str | None, redis_url: str, make: Callable[[RedisLink, str], T]) -> T:
    """The one shared ``kind`` (a bucket, a hold) of ``service``'s ``key`` on the Redis at ``redis_url``."""
    found_key = (kind, service, key_digest(key), redis_url)
    with _LINKS_LOCK:
        found = _TEAM.get(found_key)
    if found is None:
        made = make(redis_link(redis_url), f"{service}:{key_digest(key)}")
        with _LINKS_LOCK:
            found = _TEAM.setdefault(found_key, made)
    return cast(T, found)


def team_bucket(
    service: str, key: str | None, *, rate: float, burst: float = 1.0, redis_url: str | None = None
) -> RateLimiter:
    """The key's pacing: the process's own bucket, or with ``redis_url`` the one every process on that Redis shares
    (the process's own kept beneath it for the moments Redis does not answer)."""
    local = shared_bucket(service, key, rate=rate, burst=burst)
    if not redis_url:
        return local
    return _team("bucket", service, key, redis_url, lambda link, name: RedisBucket(link, name, local))


def team_hold(service: str, key: str | None, *, redis_url: str | None = None) -> KeyHold:
    """The key's hold: the process's own, or with ``redis_url`` the one every process on that Redis shares."""
    local = shared_hold(service, key)
    if not redis_url:
        return local
    return _team("hold", service, key, redis_url, lambda link, name: RedisHold(link, name, local))
