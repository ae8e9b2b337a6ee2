"""The key's daily count on the team's Redis (issue 33 §2): every process counts into one number per service and day,
the quota holds for all of them together, the day's counter expires after AMap's midnight (Asia/Shanghai), a
Redis that stops answering leaves each process its own count, and GET /health shows the calls used today of the
quota. AMap's moment is fixed in every test (tests/support/clock.py)."""

from __future__ import annotations

from datetime import datetime

from core.geo.daily_quota import DailyCounter, RedisDailyCounter
from core.geo.redis_limits import RedisLink
from tests.support.api_client import api_test_client
from tests.support.clock import SHANGHAI, SUITE_NOW
from tests.support.paths import ROOT
from tests.support.redis_server import RedisServer

ZONE = "Asia/Shanghai"
MORNING = SUITE_NOW.timestamp()  # 09:00 in Shanghai: 15 hours before AMap's midnight
MIDNIGHT = datetime(2026, 11, 28, 0, 0, tzinfo=SHANGHAI).timestamp()


def _process(url: str, quotas: dict[str, int], at: float) -> RedisDailyCounter:
    """One process's counter of the key: its own connection to Redis, its own count beneath it."""
    return RedisDailyCounter(RedisLink(url), "amap:team-key", DailyCounter(quotas, zone=ZONE, clock=lambda: at))


def test_processes_on_one_redis_share_one_count_per_service_and_day_and_it_expires_after_midnight(tmp_path):
    with RedisServer(tmp_path / "redis") as redis:
        one, two, three = (_process(redis.url, {"geocode": 5}, MORNING) for _ in range(3))
        spent = [p.spend("geocode") for p in (one, two, three, one, two)]
        assert [u.used for u in spent] == [1, 2, 3, 4, 5] and all(u.allowed for u in spent)
        refused = three.spend("geocode")  # the sixth call of the day, whichever process makes it
        assert (refused.allowed, refused.used, refused.quota) == (False, 5, 5)
        assert not one.spend("geocode").allowed
        assert {(u.service, u.used, u.quota) for u in two.today()} == {("geocode", 5, 5)}
        ttl = one.link.client.ttl("omni:limits:daily:amap:team-key:geocode:2026-11-27")
        assert MIDNIGHT - MORNING < ttl <= MIDNIGHT - MORNING + 300  # kept until just after AMap's midnight

        tomorrow = _process(redis.url, {"geocode": 5}, MIDNIGHT)  # 00:00 in Shanghai: a new day, a new count
        assert tomorrow.spend("geocode").used == 1

        redis.stop()
        alone = one.spend("geocode")  # Redis gone: this process decides on its own count (2 calls made here)
        assert (alone.allowed, alone.used) == (True, 3)


def test_health_shows_each_services_calls_today_of_its_quota(tmp_path, monkeypatch):
    from core.config import get_settings
    from core.geo.resilience import amap_daily

    clients = api_test_client(tmp_path, monkeypatch, data_dir=ROOT / "data", region="shanghai",
                              OMNI_AMAP_KEY="health-key-42", OMNI_AMAP_DAILY_QUOTA='{"geocode": 40, "search": 7}')  # fmt: skip
    api = next(clients)
    counter = amap_daily(get_settings(), "health-key-42")
    assert isinstance(counter, DailyCounter)  # no Redis configured: this process's count
    counter.clock = lambda: MORNING
    for _ in range(3):
        counter.spend("geocode")
    answer = api.get("/health")
    assert answer.status_code == 200
    calls = {c["service"]: c for c in answer.json()["amap_calls_today"]}
    assert calls["geocode"] == {"service": "geocode", "used": 3, "quota": 40, "resets_at": "2026-11-28T00:00:00+08:00"}
    assert (calls["search"]["used"], calls["search"]["quota"]) == (0, 7)
