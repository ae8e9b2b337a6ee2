"""The breakers of half_day_planner.md §4.2: one per outside service (map, weather, payment) with its own threshold
and cool-down, through Closed → Open → Half-Open → Closed, and a failed probe that starts the cool-down again. The
clock is a counter the test moves: nothing waits."""

from __future__ import annotations

import pytest

from core.config import Settings
from core.errors import InputError, ProviderUnavailable
from core.halfday.breaker import Breaker, BreakerOpen, HalfDayBreakers


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _fail(breaker: Breaker) -> None:
    with pytest.raises(ProviderUnavailable), breaker.calling():
        raise ProviderUnavailable("service down")


def _succeed(breaker: Breaker) -> str:
    with breaker.calling():
        return "answered"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def test_closed_open_half_open_closed(clock):
    b = Breaker("map@test", fail_max=3, reset_s=60, counts=(ProviderUnavailable,), clock=clock)
    _fail(b)
    _fail(b)
    assert b.state == "closed" and b.failures == 2
    _fail(b)
    assert b.state == "open"
    ran = []
    with pytest.raises(BreakerOpen), b.calling():
        ran.append("call")  # refused before the call
    assert ran == []
    clock.now += 59.9
    assert b.state == "open"
    clock.now += 0.1
    assert b.state == "half_open"
    assert _succeed(b) == "answered"
    assert b.state == "closed" and b.failures == 0
    _fail(b)
    assert b.state == "closed"  # one failure after recovery is not three


def test_a_failed_probe_opens_it_again_with_a_fresh_cool_down(clock):
    b = Breaker("weather@test", fail_max=2, reset_s=30, counts=(ProviderUnavailable,), clock=clock)
    _fail(b)
    _fail(b)
    clock.now += 30
    assert b.state == "half_open"
    _fail(b)  # the probe
    assert b.state == "open"
    clock.now += 29  # counted from the failed probe, not from the first opening
    with pytest.raises(BreakerOpen), b.calling():
        pass
    clock.now += 1
    assert b.state == "half_open" and _succeed(b) == "answered" and b.state == "closed"


def test_one_probe_at_a_time_the_others_keep_to_the_fallback(clock):
    b = Breaker("payment@test", fail_max=1, reset_s=10, counts=(ProviderUnavailable,), clock=clock)
    _fail(b)
    clock.now += 10
    with b.calling():  # the probe is under way
        with pytest.raises(BreakerOpen), b.calling():
            pass
    assert b.state == "closed"


def test_a_refusal_of_the_persons_request_does_not_count_against_the_service(clock):
    b = Breaker("payment@test", fail_max=1, reset_s=10, counts=(ProviderUnavailable,), clock=clock)
    with pytest.raises(InputError), b.calling():
        raise InputError("that slot is full", code="SLOT_FULL")
    assert b.state == "closed" and b.failures == 0


def test_each_service_has_its_own_threshold_and_cool_down(clock):
    breakers = HalfDayBreakers(clock=clock)
    settings = Settings(
        halfday_breaker_map_fail_max=4,
        halfday_breaker_map_reset_s=50,
        halfday_breaker_weather_fail_max=2,
        halfday_breaker_weather_reset_s=300,
        halfday_breaker_payment_fail_max=1,
        halfday_breaker_payment_reset_s=5,
    )
    got = {s: breakers.breaker(s, "shanghai", settings=settings) for s in ("map", "weather", "payment")}
    assert {s: (b.fail_max, b.reset_s) for s, b in got.items()} == {
        "map": (4, 50),
        "weather": (2, 300),
        "payment": (1, 5),
    }
    _fail(got["payment"])
    assert got["payment"].state == "open"
    assert got["map"].state == "closed" and got["weather"].state == "closed"  # one service's outage is its own
    assert breakers.breaker("payment", "shanghai", settings=settings) is got["payment"]  # shared by later requests
    assert breakers.breaker("payment", "helsinki", settings=settings).state == "closed"  # and by region


def test_the_reservation_side_goes_through_its_breaker(planner):
    from datetime import date, time

    from core.halfday.tools import Trace
    from core.models.halfday.plans import ReserveInput

    class DownReservations:
        calls = 0

        def dry_run(self, user_id, request):
            DownReservations.calls += 1
            raise ProviderUnavailable("reservation database unreachable")

    planner._reservations = DownReservations()
    fail_max = planner.settings.halfday_breaker_payment_fail_max
    inp = ReserveInput(
        user_id="u1", region="shanghai", place_id="sh-any", date=date(2026, 11, 28), time=time(14, 0), party_size=2
    )
    # the registry retries a service that did not answer; the breaker opens after fail_max failures in a row
    with pytest.raises(BreakerOpen):
        planner.registry.call("mock_reserve", inp, trace=Trace())
    assert DownReservations.calls == fail_max
    with pytest.raises(BreakerOpen):
        planner.registry.call("mock_reserve", inp, trace=Trace())
    assert DownReservations.calls == fail_max  # refused at once: the service was not asked again


def test_each_root_keeps_its_own_breakers(tmp_path):
    """Breakers outlive a request in the root that holds them: the next request of that root meets the open breaker;
    another root in the same process (a second AppServices) has its own, closed."""
    from datetime import date, time

    from core.app import halfday as halfday_app
    from core.app.context import AppServices
    from core.halfday.tools import Trace
    from core.models.halfday.plans import ReserveInput

    settings = Settings(provider="offline", region="shanghai", db_url=f"sqlite:///{tmp_path / 'roots.db'}")
    first, second = AppServices(settings), AppServices(settings)
    asked: list[str] = []

    class DownReservations:
        def dry_run(self, user_id, request):
            asked.append(user_id)
            raise ProviderUnavailable("reservation database unreachable")

    def reserve(services: AppServices, user: str) -> None:
        planner = halfday_app.planner(services.context(user=user))
        planner._reservations = DownReservations()
        inp = ReserveInput(
            user_id=user, region="shanghai", place_id="sh-any", date=date(2026, 11, 28), time=time(14, 0), party_size=2
        )
        with pytest.raises(BreakerOpen):
            planner.registry.call("mock_reserve", inp, trace=Trace())

    fail_max = settings.halfday_breaker_payment_fail_max
    reserve(first, "alice")
    assert asked == ["alice"] * fail_max  # the failures that opened the first root's breaker
    reserve(first, "bob")
    assert asked == ["alice"] * fail_max  # its next request: refused at once
    reserve(second, "carol")
    assert asked == ["alice"] * fail_max + ["carol"] * fail_max  # the second root asked: its breaker was closed
    assert first.halfday_breakers is not second.halfday_breakers
