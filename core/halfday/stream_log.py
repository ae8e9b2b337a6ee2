"""What a half-day stream has sent, kept where any worker can read it (issue 33): a client whose connection dropped
reconnects with ``Last-Event-ID`` (GET /halfday/plan/{trace_id}/events) and gets the events after that one, then
the rest as they come, from whichever worker it reaches; a stream whose worker died mid-plan is ended for it with a
structured error (``STREAM_LOST``) once nothing has come for ``lost_after_s``.

Each stream is its owner's: another user reads nothing of it. Events are kept as their JSON (codes and facts, as the
planner made them); the reader words them in its own language. ``InProcessStreamLog`` serves one process,
``RedisStreamLog`` a team (a list of events and a hash of the owner, whether it ended and the last event's time, both
expiring after ``ttl_s``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.geo.redis_limits import RedisLink

PREFIX = "omni:halfday:stream"


@dataclass(frozen=True)
class StreamRead:
    """The events after the one asked for (their JSON, in order), whether the stream ended, and how long ago its
    last event came (seconds)."""

    events: list[str]
    ended: bool
    quiet_s: float


class StreamLog(Protocol):
    def append(self, trace_id: str, event_json: str, *, owner: str, seq: int, done: bool) -> None: ...

    def read(self, trace_id: str, *, owner: str, after: int) -> StreamRead | None:
        """None when no stream of that id is ``owner``'s (never opened, expired, or another user's)."""
        ...


@dataclass
class _Stream:
    owner: str
    events: list[tuple[int, str]] = field(default_factory=list)
    ended: bool = False
    last: float = 0.0


class InProcessStreamLog:
    """``StreamLog`` for one process: the last ``keep`` streams in memory."""

    def __init__(self, *, keep: int = 200, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._streams: dict[str, _Stream] = {}
        self._keep = keep
        self._clock = clock

    def append(self, trace_id: str, event_json: str, *, owner: str, seq: int, done: bool) -> None:
        with self._lock:
            stream = self._streams.get(trace_id)
            if stream is None:
                stream = self._streams[trace_id] = _Stream(owner=owner)
                while len(self._streams) > self._keep:
                    self._streams.pop(next(iter(self._streams)))
            stream.events.append((seq, event_json))
            stream.ended = stream.ended or done
            stream.last = self._clock()

    def read(self, trace_id: str, *, owner: str, after: int) -> StreamRead | None:
        with self._lock:
            stream = self._streams.get(trace_id)
            if stream is None or stream.owner != owner:
                return None
            return StreamRead(
                [e for s, e in stream.events if s > after], stream.ended, max(0.0, self._clock() - stream.last)
            )


class RedisStreamLog:
    """``StreamLog`` shared by every worker on the team's Redis; this worker's own while Redis does not answer."""

    def __init__(self, link: RedisLink, *, ttl_s: int = 3600) -> None:
        self.link = link
        self.ttl_s = ttl_s
        self.local = InProcessStreamLog()

    def _keys(self, trace_id: str) -> tuple[str, str]:
        return f"{PREFIX}:meta:{trace_id}", f"{PREFIX}:events:{trace_id}"

    def append(self, trace_id: str, event_json: str, *, owner: str, seq: int, done: bool) -> None:
        self.local.append(trace_id, event_json, owner=owner, seq=seq, done=done)
        meta, events = self._keys(trace_id)

        def write(client: Any) -> None:
            now = client.time()
            pipe = client.pipeline()
            pipe.hsetnx(meta, "owner", owner)
            pipe.hset(meta, mapping={"last": f"{now[0] + now[1] / 1e6:.3f}", **({"ended": "1"} if done else {})})
            pipe.rpush(events, f"{seq}\t{event_json}")
            pipe.expire(meta, self.ttl_s)
            pipe.expire(events, self.ttl_s)
            pipe.execute()

        self.link.call(write)

    def read(self, trace_id: str, *, owner: str, after: int) -> StreamRead | None:
        meta, events = self._keys(trace_id)

        def fetch(client: Any) -> tuple[dict[bytes, bytes], list[bytes], tuple[int, int]]:
            pipe = client.pipeline()
            pipe.hgetall(meta)
            pipe.lrange(events, 0, -1)
            pipe.time()
            found, items, now = pipe.execute()
            return found, items, now

        ok, got = self.link.call(fetch)
        if not ok or got is None:
            return self.local.read(trace_id, owner=owner, after=after)
        found, items, now = got
        if not found:
            return self.local.read(trace_id, owner=owner, after=after)
        if found.get(b"owner", b"").decode() != owner:
            return None
        kept = []
        for item in items:
            seq, _, body = item.decode().partition("\t")
            if int(seq) > after:
                kept.append(body)
        quiet = now[0] + now[1] / 1e6 - float(found.get(b"last", b"0"))
        return StreamRead(kept, found.get(b"ended") == b"1", max(0.0, quiet))


def shared_stream_log(redis_url: str | None) -> StreamLog:
    """The half-day streams' log for a root: shared through Redis when one is configured, else this process's."""
    if not redis_url:
        return InProcessStreamLog()
    from core.geo.redis_limits import redis_link

    return RedisStreamLog(redis_link(redis_url))
