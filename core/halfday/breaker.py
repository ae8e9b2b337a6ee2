"""Circuit breakers of the half-day planner's outside services (half_day_planner.md §4.2): one per service (map,
weather, payment) and region, each with its own failure threshold and cool-down (core/config.py,
``halfday_breaker_<service>_*``).

Closed: calls go through; ``fail_max`` failures in a row open it. A failure is what the call raised, or what the
caller marks as one (``BreakerCall.failed``): a map call the provider answered from its own fallback raised nothing,
and still failed. Open: calls are refused at once (the caller
answers from its fallback) until the cool-down has passed. Half-open: one probe goes through (the others are
refused meanwhile); its success closes the breaker, its failure opens it again with a fresh cool-down.

Our own small breaker instead of pybreaker: its clock is injectable (the states are tested without waiting) and
``calling()`` holds the lock only to read and change the state, never for the call itself.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal

from core.config import Settings
from core.errors import OmniError

BreakerState = Literal["closed", "open", "half_open"]
Service = Literal["map", "weather", "payment"]
SERVICES: tuple[Service, ...] = ("map", "weather", "payment")


class BreakerOpen(OmniError):
    """The service's breaker is open (or its probe is under way): answer from the fallback."""

    code = "BREAKER_OPEN"


class BreakerCall:
    """One call through a breaker: the caller marks it failed when the service's answer was a fallback's (the
    provider's own breaker and retries hid the failure behind an estimate)."""

    __slots__ = ("failure",)

    def __init__(self) -> None:
        self.failure: str | None = None

    def failed(self, why: str) -> None:
        self.failure = why


class Breaker:
    """One service's breaker. ``counts``: the failures that count against the service (a person's bad input does
    not); anything else passes through without changing the state."""

    def __init__(
        self,
        name: str,
        *,
        fail_max: int,
        reset_s: float,
        counts: tuple[type[BaseException], ...] = (Exception,),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.fail_max = fail_max
        self.reset_s = reset_s
        self.counts = counts
        self.clock = clock
        self._state: BreakerState = "closed"
        self.failures = 0
        self.opened_at = 0.0
        self._probing = False
        self._lock = threading.Lock()

    @property
    def state(self) -> BreakerState:
        """The state a call made now would meet (an open breaker whose cool-down passed is half-open)."""
        with self._lock:
            if self._state == "open" and self.clock() - self.opened_at >= self.reset_s:
                return "half_open"
            return self._state

    @contextmanager
    def calling(self) -> Iterator[BreakerCall]:
        """Guard one call: raises ``BreakerOpen`` before it when the breaker refuses, records its outcome after (a
        raised failure of ``counts``, or one the caller marked on the ``BreakerCall``)."""
        with self._lock:
            if self._state == "open":
                if self.clock() - self.opened_at < self.reset_s:
                    raise BreakerOpen(f"{self.name}: breaker open", details={"breaker": self.name})
                self._state = "half_open"
            if self._state == "half_open":
                if self._probing:  # one probe at a time: the others keep to the fallback
                    raise BreakerOpen(f"{self.name}: probe under way", details={"breaker": self.name})
                self._probing = True
        call = BreakerCall()
        try:
            yield call
        except self.counts:
            self._failed()
            raise
        except BaseException:
            self._release()
            raise
        if call.failure is not None:
            self._failed()
        else:
            self._succeeded()

    def _failed(self) -> None:
        with self._lock:
            self._probing = False
            self.failures += 1
            if self._state == "half_open" or self.failures >= self.fail_max:
                self._state = "open"
                self.opened_at = self.clock()  # a failed probe starts the cool-down again

    def _succeeded(self) -> None:
        with self._lock:
            self._state = "closed"
            self.failures = 0
            self._probing = False

    def _release(self) -> None:
        with self._lock:
            self._probing = False


class HalfDayBreakers:
    """The half-day planner's breakers of one process, one per service and region (§4.2), each made on first use
    with its service's threshold and cool-down. Process-lifetime state: the composition root holds one
    (``AppServices.halfday_breakers``) and hands it to every planner it makes; two roots share none. Thread-safe."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock  # the breakers' cool-down clock (a test's, to see the states without waiting)
        self._breakers: dict[str, Breaker] = {}
        self._lock = threading.Lock()

    def breaker(
        self,
        service: Service,
        region: str,
        *,
        settings: Settings,
        counts: tuple[type[BaseException], ...] = (Exception,),
    ) -> Breaker:
        """The breaker of ``service`` in ``region`` (one region's outage does not stop the others), made on first
        use with the service's own threshold and cool-down from ``settings``."""
        key = f"{service}@{region}"
        with self._lock:
            found = self._breakers.get(key)
            if found is None:
                fail_max, reset_s = breaker_settings(settings, service)
                found = self._breakers[key] = Breaker(
                    key, fail_max=fail_max, reset_s=reset_s, counts=counts, clock=self._clock
                )
            return found


def breaker_settings(settings: Settings, service: Service) -> tuple[int, float]:
    """A service's failure threshold and cool-down (seconds)."""
    if service == "map":
        return settings.halfday_breaker_map_fail_max, settings.halfday_breaker_map_reset_s
    if service == "weather":
        return settings.halfday_breaker_weather_fail_max, settings.halfday_breaker_weather_reset_s
    return settings.halfday_breaker_payment_fail_max, settings.halfday_breaker_payment_reset_s
