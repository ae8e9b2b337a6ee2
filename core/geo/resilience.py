"""Resilience around a remote ``MapProvider``: retries, circuit breakers, a cache, degradation.

``ResilientProvider`` is itself a ``MapProvider``. For each call it

1. answers from an in-memory LRU cache of earlier *successful* remote answers (keyed by
   method + arguments; failures and degraded answers are never cached);
2. otherwise calls the remote provider through a per-service circuit breaker (pybreaker),
   retrying retryable failures (``ProviderUnavailable`` incl. rate limiting and timeouts,
   ``httpx.TransportError``) with exponential backoff (tenacity). The wait strategy and the
   sleep function are injectable so tests never sleep;
3. when the remote service stays unavailable, the breaker is open, or the key is refused /
   out of quota, falls back to the injected ``fallback`` provider (the offline estimate) and
   records a human-readable warning for the planner (``drain_warnings()``).

Auth and quota errors are not retried; they open that service's breaker at once, so further
calls go straight to the fallback until ``reset_timeout`` has passed. ``RouteNotFound`` and
client-bug ``ProviderError``s are real answers and propagate unchanged.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any, TypeVar

import httpx
import pybreaker
import tenacity

from core.errors import ProviderAuthError, ProviderError, ProviderQuotaExceeded, ProviderUnavailable
from core.geo.amap import AMapProvider, ProviderRateLimited, ProviderTimeout, pick_forecast, redact_key
from core.geo.base import DayForecast, Leg, LonLat, MapProvider, Place, TravelMatrix, TravelMode

__all__ = ["ResilienceStats", "ResilientProvider", "default_wait", "is_retryable", "make_amap_provider"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

SERVICES = ("geocode", "search", "detail", "matrix", "route", "weather")
#: Forecasts are reissued several times a day: a cached one is kept at most this long.
WEATHER_CACHE_S = 1800
_DISPLAY_NAMES = {"amap": "AMap"}


def is_retryable(exc: BaseException) -> bool:
    """Transient failures worth another attempt (never auth/quota/client bugs/open breakers)."""
    return isinstance(exc, (ProviderUnavailable, httpx.TransportError))


def _is_breaker_failure(exc: BaseException) -> bool:
    """What counts against a breaker: the remote side being unavailable, not a business answer."""
    return is_retryable(exc)


def default_wait() -> tenacity.wait.wait_base:
    """Exponential backoff with jitter: ~0.5 s, 1 s, 2 s, ... capped at 8 s."""
    return tenacity.wait_exponential_jitter(initial=0.5, max=8.0, jitter=0.25)


@dataclass
class ResilienceStats:
    calls: int = 0
    retries: int = 0
    fallbacks: int = 0
    cache_hits: int = 0

    def __getitem__(self, name: str) -> int:
        return getattr(self, name)

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


class _Degrade(Exception):
    """Internal: the remote call failed in a way that allows degradation."""

    def __init__(self, cause: str, original: BaseException):
        super().__init__(cause)
        self.cause = cause
        self.original = original


class ResilientProvider:
    """Wraps a remote ``MapProvider`` with retries, breakers, a cache and an offline fallback."""

    def __init__(
        self,
        inner: MapProvider,
        *,
        fallback: MapProvider | None = None,
        retries: int = 3,
        fail_max: int = 5,
        reset_timeout_s: float = 60.0,
        wait: tenacity.wait.wait_base | None = None,
        sleep: Callable[[float], None] = time.sleep,
        cache_size: int = 1024,
    ) -> None:
        self.inner = inner
        self.fallback = fallback
        self.name = f"{inner.name}"
        self.retries = max(0, int(retries))
        self._wait = wait if wait is not None else default_wait()
        self._sleep = sleep
        self._cache_size = max(0, int(cache_size))
        self._cache: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.RLock()
        self.warnings: list[str] = []
        self.stats = ResilienceStats()
        self.breakers: dict[str, pybreaker.CircuitBreaker] = {
            service: pybreaker.CircuitBreaker(
                fail_max=fail_max,
                reset_timeout=reset_timeout_s,
                exclude=[lambda exc: not _is_breaker_failure(exc)],
                name=f"{inner.name}.{service}",
            )
            for service in SERVICES
        }
        self._open_cause: dict[str, str] = {}

    @property
    def region(self):
        """The region pack of the wrapped providers (AMap has none; the offline fallback carries the bundled
        pack: timezone, opening hours and the knowledge base the agent and itinerary read)."""
        for provider in (self.inner, self.fallback):
            pack = getattr(provider, "region", None)
            if pack is not None:
                return pack
        raise AttributeError("region")

    def __repr__(self) -> str:
        fb = self.fallback.name if self.fallback is not None else None
        return f"ResilientProvider(inner={self.inner!r}, fallback={fb!r})"

    # ---- warnings, cache ------------------------------------------------------------------------

    @property
    def _label(self) -> str:
        return _DISPLAY_NAMES.get(self.inner.name, self.inner.name)

    def _warn(self, message: str) -> None:
        message = self._redact(message)
        logger.warning("%s", message)
        with self._lock:
            if message not in self.warnings:
                self.warnings.append(message)

    def drain_warnings(self) -> list[str]:
        """Return the warnings recorded since the last drain and forget them."""
        with self._lock:
            out, self.warnings = list(self.warnings), []
        return out

    def clear_cache(self) -> None:
        with self._lock:
            self._cache.clear()

    def _redact(self, text: str) -> str:
        key = getattr(self.inner, "_key", None)
        return redact_key(text, key if isinstance(key, str) else None)

    def _cache_get(self, key: Hashable) -> tuple[bool, Any]:
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                self.stats.cache_hits += 1
                return True, self._cache[key]
        return False, None

    def _cache_put(self, key: Hashable, value: Any) -> None:
        if self._cache_size == 0:
            return
        with self._lock:
            self._cache[key] = value
            self._cache.move_to_end(key)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    # ---- the guarded call -------------------------------------------------------------------------

    def _on_retry(self, state: tenacity.RetryCallState) -> None:
        with self._lock:
            self.stats.retries += 1
        exc = state.outcome.exception() if state.outcome else None
        logger.info(
            "%s call failed (attempt %d), retrying: %s", self._label, state.attempt_number, self._redact(str(exc))
        )

    def _remote(self, service: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Call the remote service with breaker + retries; raise ``_Degrade`` when degradable."""
        breaker = self.breakers[service]
        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.retries + 1),
            wait=self._wait,
            retry=tenacity.retry_if_exception(is_retryable),
            sleep=self._sleep,
            before_sleep=self._on_retry,
            reraise=True,
        )
        attempts = 0

        def attempt() -> T:
            nonlocal attempts
            attempts += 1
            return breaker.call(fn, *args, **kwargs)

        try:
            return retrying(attempt)
        except pybreaker.CircuitBreakerError as exc:
            cause = "circuit open"
            if service in self._open_cause:
                cause += f" after: {self._open_cause[service]}"
            raise _Degrade(cause, exc) from exc
        except (ProviderAuthError, ProviderQuotaExceeded) as exc:
            kind = "key refused" if isinstance(exc, ProviderAuthError) else "quota exhausted"
            cause = f"{kind}: {self._redact(exc.message)}"
            self._open_cause[service] = cause
            breaker.open()  # fatal for now: stop calling this service until reset_timeout
            raise _Degrade(cause, exc) from exc
        except ProviderRateLimited as exc:
            raise _Degrade(f"rate-limited after {attempts} attempt(s)", exc) from exc
        except (ProviderTimeout, httpx.TimeoutException) as exc:
            raise _Degrade(f"timed out after {attempts} attempt(s)", exc) from exc
        except (ProviderUnavailable, httpx.TransportError) as exc:
            raise _Degrade(f"unavailable after {attempts} attempt(s): {self._redact(str(exc))}", exc) from exc

    def _guarded(
        self,
        service: str,
        cache_key: Hashable,
        remote: Callable[[], T],
        fallback: Callable[[MapProvider], T] | None,
    ) -> T:
        with self._lock:
            self.stats.calls += 1
        hit, value = self._cache_get(cache_key)
        if hit:
            return value
        try:
            result = self._remote(service, remote)
        except _Degrade as deg:
            if fallback is None or self.fallback is None:
                original = deg.original
                if isinstance(original, ProviderError):
                    raise original
                raise ProviderUnavailable(
                    f"{self._label} {service} is unavailable ({self._redact(deg.cause)}).", details={"service": service}
                ) from original
            result = fallback(self.fallback)
            # matrix/route answers name their source ("offline_estimate"); places name the provider
            used = getattr(result, "source", None) or self.fallback.name
            self._warn(f"{self._label} {service} unavailable ({deg.cause}); used {used} instead")
            with self._lock:
                self.stats.fallbacks += 1
            return result
        else:
            self._open_cause.pop(service, None)
            self._cache_put(cache_key, result)
            return result

    # ---- MapProvider --------------------------------------------------------------------------------

    def geocode(self, address: str, *, city: str | None = None) -> list[Place]:
        result = self._guarded(
            "geocode",
            ("geocode", address, city),
            lambda: self.inner.geocode(address, city=city),
            lambda fb: fb.geocode(address, city=city),
        )
        return list(result)

    def search(
        self, keywords: str, *, city: str | None = None, near: LonLat | None = None, limit: int = 10
    ) -> list[Place]:
        near_key = None if near is None else (float(near[0]), float(near[1]))
        result = self._guarded(
            "search",
            ("search", keywords, city, near_key, int(limit)),
            lambda: self.inner.search(keywords, city=city, near=near, limit=limit),
            lambda fb: fb.search(keywords, city=city, near=near, limit=limit),
        )
        return list(result)

    def detail(self, poi_id: str) -> Place | None:
        return self._guarded(
            "detail", ("detail", poi_id), lambda: self.inner.detail(poi_id), lambda fb: fb.detail(poi_id)
        )

    def matrix(self, points: Sequence[LonLat], *, mode: TravelMode) -> TravelMatrix:
        pts = [LonLat(float(p[0]), float(p[1])) for p in points]
        result = self._guarded(
            "matrix",
            ("matrix", tuple(pts), mode),
            lambda: self.inner.matrix(pts, mode=mode),
            lambda fb: fb.matrix(pts, mode=mode),
        )
        result = result.model_copy(deep=True)
        if result.source == self.inner.name:
            result = self._patch_unreachable(result, pts, mode)
        return result

    def route(self, origin: LonLat, destination: LonLat, *, mode: TravelMode) -> Leg:
        o = LonLat(float(origin[0]), float(origin[1]))
        d = LonLat(float(destination[0]), float(destination[1]))
        result = self._guarded(
            "route",
            ("route", o, d, mode),
            lambda: self.inner.route(o, d, mode=mode),
            lambda fb: fb.route(o, d, mode=mode),
        )
        return result.model_copy(deep=True)

    def weather(self, city: str, *, day: date) -> DayForecast | None:
        """The remote forecast for ``day`` (None: not among the published days), with retries and the
        breaker. There is no fallback: weather cannot be estimated offline, so a failure raises."""
        fetch = getattr(self.inner, "weather_forecast", None)
        if not callable(fetch):
            raise ProviderUnavailable(f"{self._label} has no weather service", details={"service": "weather"})
        # one call answers four days: cache the whole forecast per city (briefly), then pick the day
        bucket = int(time.time() // WEATHER_CACHE_S)
        days = self._guarded("weather", ("weather", city, bucket), lambda: fetch(city), None)
        return pick_forecast(days, city, day)

    def _patch_unreachable(self, m: TravelMatrix, pts: list[LonLat], mode: TravelMode) -> TravelMatrix:
        """Fill pairs the remote could not answer (non-finite cells) from the fallback's estimate."""
        n = len(pts)
        bad = [
            (i, j)
            for i in range(n)
            for j in range(n)
            if not (math.isfinite(m.distances_m[i][j]) and math.isfinite(m.durations_s[i][j]))
        ]
        if not bad:
            return m
        if self.fallback is None:
            self._warn(
                f"{self._label} could not answer {len(bad)} of {n * (n - 1)} {mode} matrix pairs; "
                "they stay unreachable (no fallback provider configured)"
            )
            return m
        estimate = self.fallback.matrix(pts, mode=mode)
        for i, j in bad:
            m.distances_m[i][j] = float(estimate.distances_m[i][j])
            m.durations_s[i][j] = float(estimate.durations_s[i][j])
        pairs = ", ".join(f"{i}->{j}" for i, j in bad[:10]) + (" ..." if len(bad) > 10 else "")
        m.notes.append(f"{len(bad)} pair(s) estimated by {estimate.source}: {pairs}")
        self._warn(
            f"{self._label} could not answer {len(bad)} of {n * (n - 1)} {mode} matrix pairs; "
            f"used {estimate.source} for those"
        )
        with self._lock:
            self.stats.fallbacks += 1
        return m

    def is_degraded(self, value: Any) -> bool:
        """True when an answer came from the fallback: outer caches must not keep it."""
        primary = self.inner.name
        items = value if isinstance(value, list) else [value]
        return any(getattr(v, "source", primary) != primary for v in items if v is not None)

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if callable(close):
            close()


def make_amap_provider(
    settings: Any,
    *,
    fallback: MapProvider | None,
    client: httpx.Client | None = None,
    wait: tenacity.wait.wait_base | None = None,
    sleep: Callable[[float], None] = time.sleep,
    city_default: str | None = None,
) -> ResilientProvider:
    """Build ``ResilientProvider(AMapProvider(...))`` from ``core.config.Settings``."""
    secret = getattr(settings, "amap_key", None)
    key = secret.get_secret_value() if secret is not None else ""
    if not key or not key.strip():
        raise ProviderAuthError(
            "No AMap key is configured; set OMNI_AMAP_KEY to a Web服务 key or use the offline provider.",
            field="amap_key",
        )
    inner = AMapProvider(
        key=key,
        client=client,
        base_url=settings.amap_base_url,
        timeout_s=settings.http_timeout_s,
        min_interval_s=settings.amap_min_interval_s,
        city_default=city_default,
        sleep=sleep,
    )
    return ResilientProvider(
        inner,
        fallback=fallback,
        retries=settings.http_retries,
        fail_max=settings.breaker_fail_max,
        reset_timeout_s=settings.breaker_reset_s,
        wait=wait,
        sleep=sleep,
    )
