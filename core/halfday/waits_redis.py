"""Level 2's waits in Redis (issue 33): a half-day stream held by one worker is answered through any other.

A wait is a hash ``omni:halfday:wait:<plan id>`` (its owner, whether it was answered) and its answer goes to a list
``omni:halfday:answer:<plan id>`` that the stream's worker blocks on (BLPOP, in steps of at most a second, so an
outage or a closed wait is noticed). The check "open, this owner's, not answered yet" and the hand-over are one Lua
script: two workers answering at once give the answer once. Both keys expire after ``ttl_s`` (a stream whose worker
died leaves nothing behind for long).

While Redis does not answer, this worker's own ``InProcessWaits`` serves: a stream opened then is answered on this
worker only, as with one worker; an answer for a stream Redis holds is refused (``deliver`` False) rather than lost
without a word.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

from core.geo.redis_limits import RedisLink
from core.halfday.waits import HalfDayWaits, InProcessWaits, WaitAnswer, WaitingPlan

PREFIX = "omni:halfday"

# KEYS: the wait, the answer list; ARGV: owner, the answer (JSON), ttl (s). 1: handed over; 0: refused.
_DELIVER = """
local owner = redis.call('HGET', KEYS[1], 'owner')
if not owner or owner ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[1], 'answered') == '1' then return 0 end
redis.call('HSET', KEYS[1], 'answered', '1')
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[3]))
return 1
"""


class RedisWaits:
    """``HalfDayWaits`` shared by every worker on one Redis; this worker's own store while Redis does not answer."""

    def __init__(self, link: RedisLink, *, ttl_s: int = 3600, step_s: float = 1.0) -> None:
        self.link = link
        self.ttl_s = ttl_s
        self.step_s = step_s
        self.local = InProcessWaits()
        self._deliver = link.client.register_script(_DELIVER)
        self._blocking: Any = None  # a connection without a read timeout, for BLPOP (made on first wait)

    def _keys(self, plan_id: str) -> tuple[str, str]:
        return f"{PREFIX}:wait:{plan_id}", f"{PREFIX}:answer:{plan_id}"

    def register(self, plan_id: str, *, owner: str) -> None:
        wait, answer = self._keys(plan_id)

        def open_wait(client: Any) -> None:
            pipe = client.pipeline()
            pipe.delete(answer)
            pipe.hset(wait, mapping={"owner": owner, "answered": "0"})
            pipe.expire(wait, self.ttl_s)
            pipe.execute()

        ok, _ = self.link.call(open_wait)
        if not ok:
            self.local.register(plan_id, owner=owner)

    def deliver(self, answer: WaitAnswer) -> bool:
        if self.local.deliver(answer):  # a stream this worker opened while Redis was down
            return True
        wait, answers = self._keys(answer.plan_id)
        ok, handed = self.link.call(
            lambda _client: self._deliver(
                keys=[wait, answers], args=[answer.owner, answer.model_dump_json(), self.ttl_s]
            )
        )
        return bool(ok and int(handed or 0) == 1)

    def take(self, plan_id: str, *, timeout_s: float) -> WaitAnswer | None:
        if any(w.plan_id == plan_id for w in self.local.waiting()):
            return self.local.take(plan_id, timeout_s=timeout_s)
        wait, answers = self._keys(plan_id)
        deadline = time.monotonic() + max(timeout_s, 0.0)
        while True:
            left = deadline - time.monotonic()
            step = min(self.step_s, max(left, 0.0))
            ok, popped = self.link.call(partial(self._pop, answers, step))
            if not ok:
                return None  # Redis went away while waiting: the stream goes on by its default, and says so
            if popped is not None:
                return WaitAnswer.model_validate_json(popped[1])
            ok, still_open = self.link.call(lambda client: client.exists(wait))
            if not ok or not still_open or left <= 0:
                return None

    def _pop(self, key: str, step_s: float, _client: Any) -> Any:
        if self._blocking is None:
            import redis

            self._blocking = redis.Redis.from_url(self.link.url, socket_connect_timeout=1.0, socket_timeout=None)
        if step_s <= 0:
            value = self._blocking.lpop(key)
            return None if value is None else (key, value)
        return self._blocking.blpop([key], timeout=step_s)

    def expire(self, plan_id: str) -> None:
        self.local.expire(plan_id)
        self.link.call(lambda client: client.delete(*self._keys(plan_id)))

    def waiting(self) -> list[WaitingPlan]:
        found = {w.plan_id: w for w in self.local.waiting()}

        def read(client: Any) -> list[WaitingPlan]:
            plans = []
            for key in client.scan_iter(match=f"{PREFIX}:wait:*", count=200):
                fields = client.hgetall(key)
                if fields:
                    plan_id = (key.decode() if isinstance(key, bytes) else key).rsplit(":", 1)[1]
                    owner, answered = fields.get(b"owner", b""), fields.get(b"answered", b"0")
                    plans.append(WaitingPlan(plan_id=plan_id, owner=owner.decode(), answered=answered == b"1"))
            return plans

        ok, shared = self.link.call(read)
        for plan in shared or []:
            found.setdefault(plan.plan_id, plan)
        return [found[k] for k in sorted(found)]


def shared_waits(redis_url: str | None) -> HalfDayWaits:
    """The half-day waits for a root: shared through Redis when one is configured, else this process's own."""
    if not redis_url:
        return InProcessWaits()
    from core.geo.redis_limits import redis_link

    return RedisWaits(redis_link(redis_url))
