"""A key's calls counted per service and day against the configured quota (issue 33 §2): the call that would pass
the quota is not sent, and its refusal says the count, the quota and when it resets: 00:00 Asia/Shanghai, AMap's
day, whatever the machine's zone. Every moment here is fixed (tests/support/clock.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from core.errors import ProviderQuotaExceeded
from core.geo.amap import AMapProvider
from core.geo.daily_quota import QUOTA_REACHED, DailyCounter, quota_reached_error
from core.geo.retry_policy import cause_code
from core.words.halfday import CAUSES, word
from tests.support.clock import SHANGHAI, SUITE_NOW

ZONE = "Asia/Shanghai"
#: the suite's moment (Friday 27 Nov 2026, 09:00 in Shanghai) and the midnight that ends AMap's day of it
MORNING = SUITE_NOW.timestamp()
MIDNIGHT = datetime(2026, 11, 28, 0, 0, tzinfo=SHANGHAI).timestamp()


class Moment:
    """AMap's moment as the test moves it (epoch seconds)."""

    def __init__(self, at: float) -> None:
        self.at = at

    def __call__(self) -> float:
        return self.at


def test_the_call_past_the_quota_is_refused_and_the_count_says_when_it_starts_again():
    counter = DailyCounter({"geocode": 3, "search": 1}, zone=ZONE, clock=Moment(MORNING))
    assert [counter.spend("geocode").used for _ in range(3)] == [1, 2, 3]
    refused = counter.spend("geocode")
    assert (refused.allowed, refused.used, refused.quota, refused.day) == (False, 3, 3, "2026-11-27")
    assert refused.resets_at == MIDNIGHT
    assert counter.spend("search").allowed and not counter.spend("search").allowed  # each service its own quota
    weather = counter.spend("weather")  # no published quota: counted, never refused
    assert (weather.allowed, weather.used, weather.quota) == (True, 1, None)
    today = {u.service: (u.used, u.quota) for u in counter.today()}
    assert today == {"geocode": (3, 3), "search": (1, 1), "weather": (1, None)}


def test_the_day_ends_at_midnight_in_shanghai_not_in_utc():
    moment = Moment(MIDNIGHT - 1)  # 23:59:59 in Shanghai, 15:59:59 UTC
    counter = DailyCounter({"distance": 2}, zone=ZONE, clock=moment)
    counter.spend("distance")
    counter.spend("distance")
    assert not counter.spend("distance").allowed
    moment.at = MIDNIGHT  # 00:00 in Shanghai: AMap counts again, though it is still the 27th in UTC
    assert datetime.fromtimestamp(moment.at, UTC).date().isoformat() == "2026-11-27"
    fresh = counter.spend("distance")
    assert (fresh.allowed, fresh.used, fresh.day) == (True, 1, "2026-11-28")
    assert fresh.resets_at == MIDNIGHT + timedelta(days=1).total_seconds()
    moment.at = datetime(2026, 11, 28, 0, 1, tzinfo=UTC).timestamp()  # past UTC's midnight: 08:01 in Shanghai, same day
    assert counter.spend("distance").used == 2 and not counter.spend("distance").allowed


def _amap(counter: DailyCounter, answers: list[dict]) -> tuple[AMapProvider, list[httpx.Request]]:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json=answers[0])

    client = httpx.Client(transport=httpx.MockTransport(answer))
    return AMapProvider(key="test-key-0123456789", client=client, daily=counter), sent


def test_amap_sends_no_call_past_the_day_quota_and_its_refusal_is_structured():
    geocoded = {"status": "1", "info": "OK", "infocode": "10000", "count": "1",
                "geocodes": [{"formatted_address": "上海市黄浦区人民广场", "location": "121.475,31.228", "level": "兴趣点"}]}  # fmt: skip
    counter = DailyCounter({"geocode": 2}, zone=ZONE, clock=Moment(MORNING))
    amap, sent = _amap(counter, [geocoded])
    amap.geocode("人民广场")
    amap.geocode("人民广场")
    with pytest.raises(ProviderQuotaExceeded) as refused:
        amap.geocode("人民广场")
    assert len(sent) == 2  # the third call was never sent
    details = refused.value.details
    assert details["reason"] == QUOTA_REACHED and details["not_sent"] is True
    assert (details["service"], details["used"], details["quota"]) == ("geocode", 2, 2)
    assert details["resets_at"] == "2026-11-28T00:00:00+08:00"
    assert "2026-11-28T00:00:00+08:00" in refused.value.message


def test_a_quota_refusal_of_the_day_is_worded_with_its_reset_in_both_languages():
    counter = DailyCounter({"detail": 0}, zone=ZONE, clock=Moment(MORNING))
    refused = quota_reached_error(counter.spend("detail"), endpoint="/v3/place/detail", zone=ZONE)
    assert cause_code(refused) == "daily_quota"
    amap_said = ProviderQuotaExceeded("AMap quota", details={"infocode": "10044"})  # AMap's own refusal of the day
    assert cause_code(amap_said) == "daily_quota"
    assert cause_code(ProviderQuotaExceeded("balance", details={"infocode": "40000"})) == "quota"
    assert "00:00" in word(CAUSES, "daily_quota", "en") and "today" in word(CAUSES, "daily_quota", "en")
    assert "0:00" in word(CAUSES, "daily_quota", "zh") and "今日" in word(CAUSES, "daily_quota", "zh")


def test_the_configured_quota_stops_a_built_provider_which_falls_back_and_says_why():
    """Through make_amap_provider (the settings' quota, the key's one counter): past the quota the answer comes from
    the fallback, with the cause that words the reset, and AMap is not asked."""
    from core.config import Settings
    from core.geo.base import WarningLog
    from core.geo.resilience import amap_daily, make_amap_provider
    from tests.geo.test_resilience import FakeOffline

    settings = Settings(amap_key="built-key-0123456789", amap_daily_quota={"geocode": 1}, amap_qps=0)
    counter = amap_daily(settings, "built-key-0123456789")
    assert isinstance(counter, DailyCounter)
    counter.clock = Moment(MORNING)
    sent: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.path)
        return httpx.Response(
            200, json={"status": "1", "info": "OK", "infocode": "10000", "count": "0", "geocodes": []}
        )

    warnings = WarningLog()
    provider = make_amap_provider(settings, fallback=FakeOffline(), warnings=warnings,
                                  client=httpx.Client(transport=httpx.MockTransport(answer)))  # fmt: skip
    provider.geocode("人民广场", city="上海")
    [place] = provider.geocode("外滩", city="上海")
    assert sent == ["/v3/geocode/geo"] and place.source == "offline"
    (entry,) = warnings.entries()
    assert entry.code == "PROVIDER_FALLBACK" and entry.params["cause"] == "daily_quota"
    assert [(u.service, u.used, u.quota) for u in counter.today()] == [("geocode", 1, 1)]
