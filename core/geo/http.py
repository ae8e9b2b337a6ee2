"""The HTTP base every remote provider stands on (docs/ARCHITECTURE.md, "Adding a provider").

``HttpService`` owns what is the same for every web service: the httpx client (injected, or its own,
closed on ``close()``), the timeout, pacing between calls, the map from transport failures and HTTP
status codes to our exceptions, and redaction of the secret (API key) from every message, detail and
log line. A provider subclass keeps only its params builders and its parsers.
"""

from __future__ import annotations

import logging
import re
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import httpcore
import httpx

from core.errors import (
    ProviderError,
    ProviderMalformed,
    ProviderNotRequested,
    ProviderRateLimited,
    ProviderTimeout,
    ProviderUnavailable,
)
from core.geo.ratelimit import RateLimiter
from core.geo.scope import CallScope, ScopedService

logger = logging.getLogger(__name__)

_KEY_QUERY_RE = re.compile(r"(?i)(\b(?:key|api_key|apikey|token|access_token)=)[^&\s'\"]*")
_KEY_JSON_RE = re.compile(r"(?i)([\"'](?:key|api_key|apikey|token|access_token)[\"']\s*:\s*[\"'])[^\"']*")
SECRET_BODY_FIELDS = frozenset({"key", "api_key", "apikey", "token", "access_token", "sec_code", "sec_code_debug"})


def redact_secret(text: str, secret: str | None = None) -> str:
    """``text`` without the secret: as ``key=...`` in a URL, ``"key": "..."`` in a body, or its literal value."""
    out = _KEY_QUERY_RE.sub(r"\1***", str(text))
    out = _KEY_JSON_RE.sub(r"\1***", out)
    if secret and len(secret) >= 4:
        out = out.replace(secret, "***")
    return out


def sanitize_body(data: Any, secret: str | None = None) -> Any:
    """A JSON body safe to keep in exception details: secret fields masked, the secret removed from strings."""
    if isinstance(data, Mapping):
        return {
            k: ("***" if str(k).lower() in SECRET_BODY_FIELDS else sanitize_body(v, secret)) for k, v in data.items()
        }
    if isinstance(data, list):
        return [sanitize_body(v, secret) for v in data]
    if isinstance(data, str):
        return redact_secret(data, secret)
    return data


#: The secrets of every HTTP service built in this process: log records never carry them, in any form.
_SECRETS: set[str] = set()

#: httpx logs every request URL at INFO; httpcore logs request and response headers (a redirect's Location can
#: carry the key) at DEBUG, each from its own child logger: a filter on a parent logger would not see them.
_HTTP_LOGGERS = (
    "httpx",
    "httpcore",
    "httpcore.connection",
    "httpcore.connection_pool",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
    # the MCP SDK (AMap's MCP server takes the key in its URL)
    "client",
    "mcp.client.streamable_http",
    "mcp.client.sse",
    "mcp.client.session",
    "mcp.shared.session",
)


class _RedactingFilter(logging.Filter):
    """Rewrites log records so no URL, header or body shows a secret."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # pragma: no cover - a broken record is not ours to fix
            return True
        redacted = redact_secret(message)
        for secret in tuple(_SECRETS):
            redacted = redact_secret(redacted, secret)
        if redacted != message:
            record.msg = redacted
            record.args = ()
        return True


_filter_lock = threading.Lock()


def install_http_log_redaction(secret: str | None = None) -> None:
    with _filter_lock:
        if secret and len(secret) >= 4:
            _SECRETS.add(secret)
        for name in _HTTP_LOGGERS:
            lg = logging.getLogger(name)
            if not any(isinstance(f, _RedactingFilter) for f in lg.filters):
                lg.addFilter(_RedactingFilter())


# ---- a whole-request deadline -----------------------------------------------------------------
# httpx's read timeout restarts on every byte, so a server that trickles a byte a second never times out. The
# request's timeout is a SocketDeadline: httpx hands it, unchanged, to every socket connect, write and read of the
# request (its timeout dict), and the deadline backend gives each at most the time left.
class SocketDeadline(float):
    """A timeout in seconds that also carries the moment its whole request must end by (``deadline``, monotonic)."""

    __slots__ = ("deadline",)

    deadline: float

    def __new__(cls, seconds: float) -> SocketDeadline:
        timeout = super().__new__(cls, max(0.0, seconds))
        timeout.deadline = time.monotonic() + float(timeout)
        return timeout


def _clamp(timeout: float | None) -> float | None:
    if not isinstance(timeout, SocketDeadline):
        return timeout
    left = timeout.deadline - time.monotonic()
    if left <= 0:
        raise httpcore.ReadTimeout("the request's deadline has passed")
    return min(float(timeout), left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _clamp(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _clamp(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, _clamp(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_tcp(host, port, _clamp(timeout), local_address, socket_options)
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        return _DeadlineStream(self._inner.connect_unix_socket(path, _clamp(timeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def deadline_client(*, timeout_s: float) -> httpx.Client:
    """An httpx client whose requests honour a ``SocketDeadline`` timeout (its own pool, the default TLS and limits)."""
    transport = httpx.HTTPTransport()
    pool = transport._pool  # httpx is pinned; its pool takes the network backend from this attribute
    if not isinstance(pool, httpcore.ConnectionPool) or not hasattr(pool, "_network_backend"):
        return httpx.Client(timeout=timeout_s)  # a proxy from the environment: plain timeouts only
    pool._network_backend = _DeadlineBackend()
    return httpx.Client(transport=transport, timeout=timeout_s)


class _LastCall:
    """When the service last sent a call (pacing by ``min_interval_s`` without a shared limiter)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.at: float | None = None


class HttpService(ScopedService):
    """One web service: ``get_json(path, params)`` with pacing, timeouts, status mapping and redaction."""

    #: how the service is named in messages ("AMap", "Nominatim", ...)
    label = "the service"

    def __init__(
        self,
        *,
        base_url: str,
        client: httpx.Client | None = None,
        timeout_s: float = 10.0,
        min_interval_s: float = 0.0,
        secret: str | None = None,
        headers: Mapping[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        limiter: RateLimiter | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout_s = float(timeout_s)
        self.min_interval_s = max(0.0, float(min_interval_s))
        self._secret = secret
        self._own_client = client is None
        self._client = client if client is not None else deadline_client(timeout_s=timeout_s)
        self._headers = dict(headers or {})
        self._sleep = sleep
        self._clock = clock
        self._last_call = _LastCall()  # shared by the service's bound twins (core.geo.scope)
        #: a rate limiter shared with the service's other clients (paces instead of ``min_interval_s``)
        self.limiter = limiter
        self.scope = CallScope.detached()
        install_http_log_redaction(secret)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r})"

    # ---- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        """Close the client this service opened itself; an injected client belongs to its owner."""
        if self._own_client:
            self._client.close()

    def __enter__(self) -> HttpService:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ---- secrets -----------------------------------------------------------------------------
    @property
    def secret(self) -> str | None:
        """The secret this service sends (an API key): what redaction removes."""
        return self._secret

    def redact(self, text: str) -> str:
        return redact_secret(text, self._secret)

    def sanitize(self, data: Any) -> Any:
        return sanitize_body(data, self._secret)

    # ---- the call ----------------------------------------------------------------------------
    def _pace(self) -> None:
        """Wait for this call's turn (the shared limiter, else ``min_interval_s`` after the last call). The wait
        is pacing, not waiting for an answer: it is excluded from the plan's provider budget."""
        waited = 0.0
        if self.limiter is not None:
            waited = self.limiter.acquire()
        elif self.min_interval_s > 0:
            with self._last_call.lock:
                now = self._clock()
                if self._last_call.at is not None:
                    wait = self.min_interval_s - (now - self._last_call.at)
                    if wait > 0:
                        self._sleep(wait)
                        waited = wait
                self._last_call.at = self._clock()
        self.scope.exclude_from_budget(waited)

    def _check_budget(self, path: str) -> None:
        left = self.scope.budget_left()
        if left is not None and left <= 0:
            raise ProviderNotRequested(
                f"{self.label} was not asked for {path}: the plan's time for providers ran out",
                details={"endpoint": path},
            )

    def get_json(self, path: str, params: Mapping[str, str]) -> Any:
        """GET ``base_url + path`` and decode JSON; failures become ProviderError subclasses, secret-free."""
        return self._send_json("GET", path, params=params)

    def post_json(self, path: str, body: Mapping[str, Any]) -> Any:
        """POST a JSON body to ``base_url + path`` and decode the JSON answer (same failures as ``get_json``)."""
        return self._send_json("POST", path, body=body)

    def _send_json(
        self, method: str, path: str, *, params: Mapping[str, str] | None = None, body: Mapping[str, Any] | None = None
    ) -> Any:
        url = f"{self.base_url}{path}"
        self._check_budget(path)
        self._pace()
        self.scope.note_request()
        left = self.scope.call_wait_left()
        timeout = SocketDeadline(self.timeout_s if left is None else max(0.05, min(self.timeout_s, left)))
        logger.debug("%s %s %s %s", self.label, method, path, self.redact(str(dict(params or {}))))
        try:
            response = self._client.request(
                method,
                url,
                params=dict(params) if params is not None else None,
                json=dict(body) if body is not None else None,
                headers=self._headers,
                timeout=timeout,
            )
        except httpx.TimeoutException:
            raise ProviderTimeout(
                f"{self.label} did not answer {path} within {timeout:g} s.",
                # the service by its name (none for the unnamed base) and the wait, for a reader's own words
                details={"endpoint": path, "timeout_s": float(timeout)}
                | ({"service": self.label} if self.label != HttpService.label else {}),
            ) from None
        except httpx.TransportError as exc:
            raise ProviderUnavailable(
                f"{self.label} could not be reached for {path} ({type(exc).__name__}: {self.redact(str(exc))}).",
                details={"endpoint": path},
            ) from None
        self.check_status(response, path)
        try:
            return response.json()
        except ValueError:  # a maintenance page, a proxy's error: an answer that breaks the schema, not an outage
            raise ProviderMalformed(
                f"{self.label} answered {path} with a body that is not JSON.", details={"endpoint": path}
            ) from None

    def check_status(self, response: httpx.Response, path: str) -> None:
        status = response.status_code
        if status == 200:
            return
        details = {"endpoint": path, "http_status": status}
        if status == 429:
            raise ProviderRateLimited(f"{self.label} is rate-limiting calls to {path} (HTTP 429).", details=details)
        if status >= 500 or status in (408, 425):
            raise ProviderUnavailable(f"{self.label} answered {path} with HTTP {status}.", details=details)
        raise ProviderError(f"{self.label} answered {path} with HTTP {status}.", details=details)
