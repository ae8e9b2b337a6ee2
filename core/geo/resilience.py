"""Resilience around a remote provider: retries, circuit breakers, degradation to a fallback.

``ResilientProvider`` is itself a Geocoder and a Router (and a WeatherService when the remote has one).
Answers are cached one level up, in MapServices (core/geo/composite.py), which never keeps a fallback's
answer. For each call it

1. calls the remote provider through a per-service circuit breaker (pybreaker), asking again only where
   another attempt can help (core/geo/retry_policy.py). The waits and the sleep function are injectable so tests
   never sleep;
2. when the remote service stays unavailable, the breaker is open, or the key is refused /
   out of quota, falls back to the injected ``fallback`` provider (the offline estimate) and
   records a human-readable warning in its WarningLog for the planner.

The retry policy, per kind of failure (issue 21 §2), is core/geo/retry_policy.py's: ``ResilientProvider`` builds
it for each call, bounded by the request's budget.

Every attempt counts against the breaker as before (a rate refusal does not). ``RouteNotFound`` and client-bug
``ProviderError``s are real answers and propagate unchanged.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import pybreaker
import tenacity

from core.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderMalformed,
    ProviderNotRequested,
    ProviderQuotaExceeded,
    ProviderRateLimited,
    ProviderTimeout,
    ProviderUnavailable,
    RouteNotFound,
)
from core.geo.amap import AMapProvider
from core.geo.amap_envelope import AMAP_ZONE
from core.geo.base import (
    BatchGeocoder,
    ColumnRouter,
    DayForecast,
    Leg,
    LonLat,
    MapService,
    Place,
    TravelMatrix,
    TravelMode,
    WarningLog,
    WeatherService,
)
from core.geo.daily_quota import DailyCount, team_daily
from core.geo.http import redact_secret
from core.geo.redis_limits import team_bucket, team_hold
from core.geo.retry_policy import (
    BudgetedWait,
    BudgetSpent,
    RetryByKind,
    cause_code,
    default_wait,
    failure_kind,
    is_breaker_failure,
)
from core.geo.scope import CallScope, ScopedService

__all__ = ["ResilienceStats", "ResilientProvider", "amap_daily", "make_amap_provider", "resilient"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

SERVICES = ("geocode", "search", "detail", "matrix", "route", "weather")
_DISPLAY_NAMES = {"amap": "AMap", "valhalla": "Valhalla", "osrm": "OSRM", "nominatim": "Nominatim"}


@dataclass
class ResilienceStats:
    calls: int = 0
    retries: int = 0
    fallbacks: int = 0

    def __getitem__(self, name: str) -> int:
        return int(getattr(self, name))


class _Degrade(Exception):
    """Internal: the remote call failed in a way that allows degradation (or was never made: ``not_requested``)."""

    def __init__(self, cause: str, original: BaseException, *, not_requested: bool = False):
        super().__init__(cause)
        self.cause = cause
        self.original = original
        self.not_requested = not_requested


NOT_REQUESTED = "not requested: the time for providers ran out"


@dataclass
class _Tries:
    """One guarded call's attempts, and the last failure of an attempt that reached the service."""

    count: int = 0
    asked: BaseException | None = None


class ResilientProvider(ScopedService):
    """Wraps a remote Geocoder/Router with retries, breakers and an offline fallback."""

    SCOPED_PARTS = ("inner", "fallback")

    def __init__(
        self,
        inner: MapService,
        *,
        fallback: MapService | None = None,
        retries: int = 3,
        server_error_retries: int = 1,
        server_error_pause_s: float = 0.25,
        fail_max: int = 5,
        reset_timeout_s: float = 60.0,
        wait: tenacity.wait.wait_base | None = None,
        sleep: Callable[[float], None] = time.sleep,
        warnings: WarningLog | None = None,
    ) -> None:
        self.inner = inner
        self.fallback = fallback
        self.name = f"{inner.name}"
        #: the most one call is asked again, whatever the failure; ``server_error_retries`` of those for a 5xx or a
        #: dropped connection (core.geo.retry_policy's docstring)
        self.retries = max(0, int(retries))
        self.server_error_retries = min(self.retries, max(0, int(server_error_retries)))
        self.server_error_pause_s = max(0.0, float(server_error_pause_s))
        self._wait = wait if wait is not None else default_wait()
        self._sleep = sleep
        self._lock = threading.RLock()
        self.warnings = warnings if warnings is not None else WarningLog()
        self.scope = CallScope.detached(self.warnings)  # a request's view binds its own (core.geo.scope)
        self.stats = ResilienceStats()
        self.breakers: dict[str, pybreaker.CircuitBreaker] = {
            service: pybreaker.CircuitBreaker(
                fail_max=fail_max,
                reset_timeout=reset_timeout_s,
                exclude=[lambda exc: not is_breaker_failure(exc)],
                name=f"{inner.name}.{service}",
            )
            for service in SERVICES
        }
        self._open_cause: dict[str, str] = {}

    def __repr__(self) -> str:
        fb = self.fallback.name if self.fallback is not None else None
        return f"ResilientProvider(inner={self.inner!r}, fallback={fb!r})"

    # ---- warnings ---------------------------------------------------------------------------------

    @property
    def _label(self) -> str:
        return _DISPLAY_NAMES.get(self.inner.name, str(self.inner.name))

    def _warn(self, message: str, *, code: str, params: dict[str, str | int | float]) -> None:
        """Record a warning: its code and facts for the planner's notices, the English sentence for the logs."""
        message = self._redact(message)
        logger.warning("%s", message)
        self.scope.warnings.add(message, code=code, params=params)

    def drain_warnings(self) -> list[str]:
        """The warnings recorded since the last drain (and forget them)."""
        return self.warnings.drain()

    def _redact(self, text: str) -> str:
        secret = getattr(self.inner, "secret", None)
        return redact_secret(text, secret)

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
        scope = self.scope
        self._refuse_unasked(service, scope)
        breaker = self.breakers[service]
        tries = _Tries()

        def attempt() -> T:
            tries.count += 1
            left = scope.budget_left()
            if left is not None and left <= 0:  # decided outside the breaker: pybreaker counts whatever passes
                raise ProviderNotRequested("provider budget spent")  # through it, an excluded error as a success
            try:
                # calling(), not call(): call() holds the breaker's lock for the whole remote call, which would
                # let one request's call to a service at a time through in the whole process
                with breaker.calling():
                    return fn(*args, **kwargs)
            except ProviderNotRequested:
                raise
            except BaseException as exc:
                tries.asked = exc
                raise

        try:
            return self._retrying(scope)(attempt)
        except Exception as exc:
            degrade = self._degrade(exc, service=service, breaker=breaker, tries=tries, scope=scope)
            if degrade is None:
                raise
            raise degrade from exc

    def _refuse_unasked(self, service: str, scope: CallScope) -> None:
        """``_Degrade`` without asking: the provider (or this service of it) already failed in this request, or the
        budget is spent. The earlier failure is named first: a wait on a service that never answered is what spent
        the budget (a half-day's weather call on a black hole), and the legs estimated after it are its doing."""
        if (timed_out := scope.failed_earlier(self.name)) is not None:
            # it timed out earlier in this request: one full wait is all a person is asked to spend on it
            earlier: ProviderError = ProviderTimeout(
                f"{self._label} did not answer {timed_out} earlier in this request"
            )
            raise _Degrade(f"timed out earlier in this request ({timed_out}); not asked again", earlier)
        if (how := scope.failed_earlier(f"{self.name}/{service}")) is not None:
            # it failed after its retry (or broke its schema) earlier in this request: it will not heal in a second
            failed_as = ProviderMalformed if how == "malformed" else ProviderUnavailable
            earlier = failed_as(f"{self._label} {service} failed earlier in this request ({how})")
            raise _Degrade(f"failed earlier in this request ({how}); not asked again", earlier)
        left = scope.budget_left()
        if left is not None and left <= 0:
            raise _Degrade(NOT_REQUESTED, ProviderNotRequested("provider budget spent"), not_requested=True)

    def _retrying(self, scope: CallScope) -> tenacity.Retrying:
        """The retry policy (core.geo.retry_policy's docstring), bounded by the request's budget."""
        return tenacity.Retrying(
            stop=tenacity.stop_any(tenacity.stop_after_attempt(self.retries + 1), BudgetSpent(scope)),
            wait=BudgetedWait(self._wait, server_error_pause_s=self.server_error_pause_s, scope=scope),
            retry=RetryByKind({"server_error": self.server_error_retries, "rate_limited": self.retries}),
            sleep=self._sleep,
            before_sleep=self._on_retry,
            reraise=True,
        )

    def _degrade(
        self,
        exc: Exception,
        *,
        service: str,
        breaker: pybreaker.CircuitBreaker,
        tries: _Tries,
        scope: CallScope,
    ) -> _Degrade | None:
        """How a failed call degrades, with what the request remembers of it (None: not degradable, raise it)."""
        asked, attempts = tries.asked, tries.count
        if isinstance(exc, ProviderNotRequested):
            if asked is None:  # no attempt reached the service: it was never asked, it did not fail
                return _Degrade(NOT_REQUESTED, exc, not_requested=True)
            cause = "timed out" if isinstance(asked, (ProviderTimeout, httpx.TimeoutException)) else "failed"
            return _Degrade(f"{cause}: {self._redact(str(asked))}; then {NOT_REQUESTED}", asked)
        if isinstance(exc, pybreaker.CircuitBreakerError):
            if asked is not None and failure_kind(asked) == "timeout":  # the timeout that tripped the breaker
                scope.remember_failure(self.name, service)
            cause = "circuit open"
            if service in self._open_cause:
                cause += f" after: {self._open_cause[service]}"
            return _Degrade(cause, exc)
        if isinstance(exc, (ProviderAuthError, ProviderQuotaExceeded)):
            kind = "key refused" if isinstance(exc, ProviderAuthError) else "quota exhausted"
            cause = f"{kind}: {self._redact(exc.message)}"
            self._open_cause[service] = cause
            breaker.open()  # fatal for now: stop calling this service until reset_timeout
            return _Degrade(cause, exc)
        if isinstance(exc, ProviderRateLimited):
            if isinstance(exc.details, dict) and exc.details.get("not_sent"):  # held: the minute's calls are spent
                return _Degrade(f"rate-limited: {self._redact(exc.message)}", exc)
            return _Degrade(f"rate-limited after {attempts} attempt(s)", exc)
        if isinstance(exc, (ProviderTimeout, httpx.TimeoutException)):
            scope.remember_failure(self.name, service)
            return _Degrade(f"timed out after {attempts} attempt(s)", exc)
        if isinstance(exc, (ProviderUnavailable, httpx.TransportError)):
            scope.remember_failure(f"{self.name}/{service}", cause_code(exc))
            return _Degrade(f"unavailable after {attempts} attempt(s): {self._redact(str(exc))}", exc)
        if isinstance(exc, RouteNotFound) and service == "route":
            return None  # a real answer for one leg (no road joins the points): the planner draws it straight
        if isinstance(exc, ProviderError):  # HTTP 4xx/3xx, an answer we cannot read, a refused parameter: degrade
            return _Degrade(f"failed: {self._redact(exc.message)}", exc)
        return None

    def _guarded(self, service: str, remote: Callable[[], T], fallback: Callable[[MapService], T] | None) -> T:
        with self._lock:
            self.stats.calls += 1
        try:
            result = self._remote(service, remote)
        except _Degrade as deg:
            if fallback is None or self.fallback is None:
                original = deg.original
                if isinstance(original, ProviderError):
                    raise original from None
                raise ProviderUnavailable(
                    f"{self._label} {service} is unavailable ({self._redact(deg.cause)}).", details={"service": service}
                ) from original
            result = fallback(self.fallback)
            self.scope.note_fallback()
            # matrix/route answers name their source ("offline_estimate"); places name the provider
            used = getattr(result, "source", None) or self.fallback.name
            if deg.not_requested:
                self._warn(
                    f"{self._label} {service} {NOT_REQUESTED}; used {used} instead",
                    code="PROVIDER_NOT_REQUESTED",
                    params={"provider": self._label, "service": service, "used": str(used)},
                )
                with self._lock:
                    self.stats.fallbacks += 1
                return result
            self._warn(
                f"{self._label} {service} unavailable ({deg.cause}); used {used} instead",
                code="PROVIDER_FALLBACK",
                params={
                    "provider": self._label,
                    "service": service,
                    "used": str(used),
                    "cause": cause_code(deg.original),
                },
            )
            with self._lock:
                self.stats.fallbacks += 1
            return result
        else:
            self._open_cause.pop(service, None)
            return result

    # ---- Geocoder, Router, WeatherService ------------------------------------------------------

    def geocode(self, address: str, *, city: str | None = None) -> list[Place]:
        result = self._guarded(
            "geocode",
            lambda: self.inner.geocode(address, city=city),
            lambda fb: fb.geocode(address, city=city),
        )
        return list(result)

    @property
    def batch_size(self) -> int:
        """Addresses one geocode call of the remote answers (1: it has no batch geocode)."""
        return int(getattr(self.inner, "batch_size", 1)) if isinstance(self.inner, BatchGeocoder) else 1

    def geocode_batch(self, addresses: Sequence[str], *, city: str | None = None) -> list[list[Place]]:
        """The remote's batch geocode (one call per ``batch_size`` addresses) behind the breaker and retries; when it
        degrades, each address from the fallback."""
        inner = self.inner
        if not isinstance(inner, BatchGeocoder):
            return [self.geocode(a, city=city) for a in addresses]
        items = list(addresses)
        result = self._guarded(
            "geocode",
            lambda: inner.geocode_batch(items, city=city),
            lambda fb: [fb.geocode(a, city=city) for a in items],
        )
        return [list(places) for places in result]

    def search(
        self, keywords: str, *, city: str | None = None, near: LonLat | None = None, limit: int = 10
    ) -> list[Place]:
        result = self._guarded(
            "search",
            lambda: self.inner.search(keywords, city=city, near=near, limit=limit),
            lambda fb: fb.search(keywords, city=city, near=near, limit=limit),
        )
        return list(result)

    def detail(self, poi_id: str) -> Place | None:
        return self._guarded("detail", lambda: self.inner.detail(poi_id), lambda fb: fb.detail(poi_id))

    def matrix(self, points: Sequence[LonLat], *, mode: TravelMode) -> TravelMatrix:
        pts = [LonLat(float(p[0]), float(p[1])) for p in points]
        result = self._guarded(
            "matrix",
            lambda: self.inner.matrix(pts, mode=mode),
            lambda fb: fb.matrix(pts, mode=mode),
        )
        result = result.model_copy(deep=True)
        if result.source == self.inner.name:
            result = self._patch_unreachable(result, pts, mode)
        return result

    def matrix_to(self, points: Sequence[LonLat], destinations: Sequence[int], *, mode: TravelMode) -> TravelMatrix:
        """Only the columns ``destinations`` from a remote that pays per destination (AMap), the same guard as
        :meth:`matrix`; a remote without columns, or the fallback, answers the whole matrix."""
        inner = self.inner
        if not isinstance(inner, ColumnRouter):
            return self.matrix(points, mode=mode)
        pts = [LonLat(float(p[0]), float(p[1])) for p in points]
        wanted = sorted(set(destinations))
        result = self._guarded(
            "matrix",
            lambda: inner.matrix_to(pts, wanted, mode=mode),
            lambda fb: fb.matrix(pts, mode=mode),
        )
        result = result.model_copy(deep=True)
        if result.source == self.inner.name:
            result = self._patch_unreachable(result, pts, mode, columns=result.destinations)
        return result

    def route(self, origin: LonLat, destination: LonLat, *, mode: TravelMode) -> Leg:
        o = LonLat(float(origin[0]), float(origin[1]))
        d = LonLat(float(destination[0]), float(destination[1]))
        result = self._guarded(
            "route",
            lambda: self.inner.route(o, d, mode=mode),
            lambda fb: fb.route(o, d, mode=mode),
        )
        return result.model_copy(deep=True)

    def weather_forecast(self, city: str) -> list[DayForecast]:
        """The remote forecast with retries and the breaker. There is no fallback: weather cannot be estimated
        offline, so a failure raises."""
        inner = self.inner
        if not isinstance(inner, WeatherService):
            raise ProviderUnavailable(f"{self._label} has no weather service", details={"service": "weather"})
        return self._guarded("weather", lambda: inner.weather_forecast(city), None)

    def _patch_unreachable(
        self, m: TravelMatrix, pts: list[LonLat], mode: TravelMode, *, columns: list[int] | None = None
    ) -> TravelMatrix:
        """Fill pairs the remote could not answer (non-finite cells of the columns asked: ``columns``, None for
        all) from the fallback's estimate."""
        n = len(pts)
        bad = [
            (i, j)
            for i in range(n)
            for j in (range(n) if columns is None else columns)
            if not (math.isfinite(m.distances_m[i][j]) and math.isfinite(m.durations_s[i][j]))
        ]
        if not bad:
            return m
        if self.fallback is None:
            self._warn(
                f"{self._label} could not answer {len(bad)} of {n * (n - 1)} {mode} matrix pairs; "
                "they stay unreachable (no fallback provider configured)",
                code="PROVIDER_PAIRS_UNREACHABLE",
                params={"provider": self._label, "count": len(bad), "total": n * (n - 1), "mode": mode},
            )
            return m
        estimate = self.fallback.matrix(pts, mode=mode)
        for i, j in bad:
            m.distances_m[i][j] = float(estimate.distances_m[i][j])
            m.durations_s[i][j] = float(estimate.durations_s[i][j])
        pairs = ", ".join(f"{i}->{j}" for i, j in bad[:10]) + (" ..." if len(bad) > 10 else "")
        m.notes.append(f"{len(bad)} pair(s) estimated by {estimate.source}: {pairs}")
        m.source = "mixed"  # some figures are the estimate's: never presented (or cached) as the remote's
        self.scope.note_degraded()
        m.estimated_pairs = bad
        self._warn(
            f"{self._label} could not answer {len(bad)} of {n * (n - 1)} {mode} matrix pairs; "
            f"used {estimate.source} for those",
            code="PROVIDER_PAIRS_ESTIMATED",
            params={"provider": self._label, "count": len(bad), "total": n * (n - 1), "mode": mode},
        )
        with self._lock:
            self.stats.fallbacks += 1
        return m

    def close(self) -> None:
        self.inner.close()


def make_amap_provider(
    settings: Any,
    *,
    fallback: MapService | None,
    warnings: WarningLog | None = None,
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
        city_default=city_default,
        sleep=sleep,
        # one bucket for every AMap service of this key in the process (geocode, distance, directions, weather)
        limiter=team_bucket("amap", key, rate=settings.amap_qps, redis_url=settings.redis_url),
        # the minute's limit and the day's quota, for every service of the key
        hold=team_hold("amap", key, redis_url=settings.redis_url),
        # each service's calls of the day, counted before they are sent (shared through Redis when configured)
        daily=amap_daily(settings, key),
        rate_limit_retries=settings.http_retries,
    )
    return resilient(inner, settings, fallback=fallback, warnings=warnings, wait=wait, sleep=sleep)


def amap_daily(settings: Any, key: str) -> DailyCount:
    """The key's one daily counter (per process, or the team's in Redis), on the settings' quotas and AMap's day."""
    return team_daily("amap", key, quotas=settings.amap_daily_quota, zone=AMAP_ZONE, redis_url=settings.redis_url)


def resilient(
    inner: Any,
    settings: Any,
    *,
    fallback: MapService | None,
    warnings: WarningLog | None = None,
    wait: tenacity.wait.wait_base | None = None,
    sleep: Callable[[float], None] = time.sleep,
    retries: int | None = None,
) -> ResilientProvider:
    """A remote service behind retries, breakers and the fallback, as ``core.config.Settings`` configure them."""
    return ResilientProvider(
        inner,
        fallback=fallback,
        retries=settings.http_retries if retries is None else retries,
        server_error_retries=settings.http_server_error_retries,
        server_error_pause_s=settings.http_server_error_pause_s,
        fail_max=settings.breaker_fail_max,
        reset_timeout_s=settings.breaker_reset_s,
        wait=wait,
        sleep=sleep,
        warnings=warnings,
    )
