"""A key's pacing and holds kept in Redis (core/geo/redis_limits.py), on a real Redis of the test's own: links of
different "processes" (each its own connection and its own local bucket) queue in one order; a refusal one of them
met holds the others; Redis down means each goes on alone, and Redis back means they share again."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.geo.ratelimit import ServiceHold, TokenBucket
from core.geo.redis_limits import RedisBucket, RedisHold, RedisLink, link_state
from tests.support.redis_server import RedisServer


@pytest.fixture
def redis_server(tmp_path) -> Iterator[RedisServer]:
    with RedisServer(tmp_path / "redis") as server:
        yield server


class Process:
    """What one process holds of a key: its own link to Redis, its own local bucket and hold. Sleeping is recorded,
    not done, so the waits Redis hands out are read as values."""

    def __init__(self, url: str, *, rate: float, now: float = 1_000_000.0) -> None:
        self.slept: list[float] = []
        self.clock = [now]
        self.mono = [0.0]  # the link's clock: when Redis may be asked again after a failure
        self.link = RedisLink(url, retry_s=5.0, clock=lambda: self.mono[0])
        self.bucket = RedisBucket(
            self.link, "amap:k1", TokenBucket(rate, sleep=self.slept.append), sleep=self.slept.append
        )
        self.hold = RedisHold(self.link, "amap:k1", ServiceHold(clock=lambda: self.clock[0]))


def test_three_processes_on_one_key_get_one_queue_of_slots_at_the_keys_rate(redis_server):
    a, b, c = (Process(redis_server.url, rate=1.0) for _ in range(3))
    waits = [p.bucket.acquire() for p in (a, b, c, a, b, c)]
    # one slot a second for the key, whichever process asks: the n-th caller waits about n-1 seconds (less the
    # moments the calls themselves took); a process's own bucket would have let each of them through at once
    for n, wait in enumerate(waits):
        assert n - 0.5 < wait <= n, waits
    assert waits == sorted(waits)
    assert sum(p.bucket.stats().acquired for p in (a, b, c)) == 6
    assert [p.bucket.local.stats().acquired for p in (a, b, c)] == [0, 0, 0]  # no local pacing was used


def test_a_penalty_one_process_takes_pushes_back_every_process(redis_server):
    a, b = Process(redis_server.url, rate=10.0), Process(redis_server.url, rate=10.0)
    assert a.bucket.acquire() == 0.0
    a.bucket.penalize(30.0)  # AMap refused a's call for going too fast
    assert 29.0 < b.bucket.acquire() <= 30.0  # b, which was refused nothing, waits too


def test_a_hold_one_process_met_holds_the_others_until_its_time(redis_server):
    a, b = Process(redis_server.url, rate=1.0), Process(redis_server.url, rate=1.0)
    now = a.clock[0]
    a.hold.hold(now + 60, "10004")  # the minute's volume, met by a
    held = b.hold.current()
    assert held is not None and (held.until, held.code) == (now + 60, "10004")
    b.hold.hold(now + 30, "10004")  # an earlier end does not shorten it
    assert a.hold.current().until == now + 60
    b.clock[0] = now + 61
    assert b.hold.current() is None  # over for b's clock too


def test_redis_down_each_process_paces_alone_and_says_so_then_shares_again(redis_server):
    a = Process(redis_server.url, rate=1.0)
    assert link_state(redis_server.url) == "up"
    redis_server.stop()
    assert a.bucket.acquire() == 0.0  # its own bucket: first call free
    assert a.bucket.acquire() == pytest.approx(1.0, abs=0.5)  # and paced by it, without Redis
    assert a.link.state == "down" and a.link.failures >= 1
    assert link_state(redis_server.url) == "down"
    a.hold.hold(a.clock[0] + 60, "10003")  # met while Redis is down: this process holds itself
    assert a.hold.current().code == "10003"
    redis_server.start()
    assert a.bucket.acquire() == pytest.approx(2.0, abs=0.5)  # within retry_s, Redis is not asked: still alone
    a.mono[0] += 5.0
    b = Process(redis_server.url, rate=1.0)
    first = a.bucket.acquire()  # after retry_s: the shared queue again
    assert a.link.state == "up" and first == 0.0
    assert 0.5 < b.bucket.acquire() <= 1.0
    assert a.hold.current().code == "10003"  # what it met alone still holds it


def test_the_teams_cache_shares_remote_answers_only_and_serves_from_memory_when_redis_is_down(redis_server):
    from core.geo.cache import ResponseCache, SharedResponseCache

    mine = SharedResponseCache(ResponseCache(), RedisLink(redis_server.url), persist=["amap"])
    theirs = SharedResponseCache(ResponseCache(), RedisLink(redis_server.url), persist=["amap"])
    mine.put(("geocode", "amap", "外滩", "上海"), ["a place"])
    mine.put(("geocode", "pack", "外滩", "上海"), ["a local answer"])  # cheap to recompute: not shared
    assert theirs.get(("geocode", "amap", "外滩", "上海")) == (True, ["a place"])
    assert theirs.get(("geocode", "pack", "外滩", "上海")) == (False, None)
    redis_server.stop()
    mine.put(("route", "amap", 1), "a leg")  # no error: kept in memory
    assert mine.get(("route", "amap", 1)) == (True, "a leg")
    assert theirs.get(("route", "amap", 2)) == (False, None)
