"""What keeps a database fault from becoming a hang or a bare 500 (core/stores/db.py uses it).

* ``classify``: which SQLAlchemy / driver failures mean the database cannot serve now (down, frozen, timed out, busy,
  refusing writes), as opposed to a business answer (a constraint, a bug).
* A circuit breaker per database URL (pybreaker, as the providers' in core/geo/resilience.py): after
  ``db_breaker_fail_max`` such failures in a row every call fails at once with ``DATABASE_UNREACHABLE`` for
  ``db_breaker_reset_s``; then one call is let through (half-open) and its success closes the breaker again.
* ``Deadlines``: a client-side deadline on a PostgreSQL transaction. A server that is frozen (SIGSTOP, a hung host)
  never enforces its own ``statement_timeout``, and the kernel still acknowledges on its behalf, so no socket option
  notices; when the deadline passes, the connection's socket is shut down, the driver's wait ends with a
  disconnect error and SQLAlchemy discards the connection (and the pool's older ones). The watcher holds its own
  duplicate of the socket from the moment it is armed: a descriptor number closed during the transaction (the
  driver dropping a broken connection) and handed by the kernel to another connection is never the one it cuts.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pybreaker
import sqlalchemy as sa

from core.errors import DatabaseUnreachable

logger = logging.getLogger(__name__)

#: SQLite result codes of a database that refuses writes (a read-only file, folder or medium): an outage for the
#: request, but reads may still work, so the breaker does not count them
_SQLITE_READ_ONLY = {"SQLITE_READONLY", "SQLITE_READONLY_DIRECTORY", "SQLITE_READONLY_DBMOVED", "SQLITE_CANTOPEN"}
#: PostgreSQL's "cannot execute ... in a read-only transaction" (a standby, default_transaction_read_only)
_PG_READ_ONLY = "25006"


def read_only(exc: BaseException) -> bool:
    orig = getattr(exc, "orig", None) or exc
    if isinstance(orig, sqlite3.Error):
        return getattr(orig, "sqlite_errorname", "") in _SQLITE_READ_ONLY or "readonly" in str(orig)
    return getattr(orig, "sqlstate", None) == _PG_READ_ONLY


def is_outage(exc: BaseException) -> bool:
    """The database cannot serve now (reach it, answer in time, take a write); not a business answer."""
    if isinstance(exc, DatabaseUnreachable):
        return True
    if isinstance(exc, sa.exc.TimeoutError):  # no pooled connection came free within db_pool_timeout_s
        return True
    if isinstance(exc, sa.exc.DBAPIError):
        return exc.connection_invalidated or isinstance(exc, (sa.exc.OperationalError, sa.exc.InterfaceError))
    return False


def counts_against_breaker(exc: BaseException) -> bool:
    return is_outage(exc) and not read_only(exc)


#: PostgreSQL's statement_timeout (57014) and lock_timeout (55P03)
_PG_TIMED_OUT = {"57014", "55P03"}


def reason(exc: BaseException) -> str:
    """The cause in a few words, for the message a client sees (no host, no driver text: those go to the log)."""
    if isinstance(exc, sa.exc.TimeoutError):
        return "no connection came free in time"
    if read_only(exc):
        return "it refuses writes"
    orig = getattr(exc, "orig", None) or exc
    if getattr(orig, "sqlstate", None) in _PG_TIMED_OUT or type(orig).__name__ == "ConnectionTimeout":
        return "it did not answer in time"
    if isinstance(exc, sa.exc.DBAPIError) and exc.connection_invalidated:
        return "the connection was lost or did not answer in time"
    if isinstance(orig, sqlite3.Error):
        return "its file could not be opened or written"
    return "it could not be reached"


def detail(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip().splitlines()[0] if str(orig).strip() else ""
    return f"{type(orig).__name__}: {text[:200]}"


class Breakers:
    """One breaker per database URL."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._breakers: dict[str, pybreaker.CircuitBreaker] = {}

    def get(self, url: str, *, fail_max: int, reset_s: float) -> pybreaker.CircuitBreaker:
        with self._lock:
            breaker = self._breakers.get(url)
            if breaker is None:
                breaker = self._breakers[url] = pybreaker.CircuitBreaker(
                    fail_max=fail_max,
                    reset_timeout=reset_s,
                    exclude=[lambda exc: not counts_against_breaker(exc)],
                    throw_new_error_on_trip=False,  # the failure itself is raised (and translated by the caller)
                    name="database",
                )
            return breaker

    def reset(self) -> None:
        """Forget every breaker (tests, and a process that changed its database)."""
        with self._lock:
            self._breakers.clear()


BREAKERS = Breakers()


@contextmanager
def guarded(breaker: pybreaker.CircuitBreaker, *, retry_after_s: float) -> Iterator[None]:
    """Run the block through ``breaker``; raise every database outage as ``DatabaseUnreachable``."""
    try:
        with breaker.calling():
            yield
    except pybreaker.CircuitBreakerError:
        raise DatabaseUnreachable(
            "the database is unavailable (it failed several times just now); try again shortly",
            retry_after_s=retry_after_s,
        ) from None
    except DatabaseUnreachable:
        raise
    except Exception as exc:
        if not is_outage(exc):
            raise
        logger.warning("database unavailable: %s", detail(exc))
        raise DatabaseUnreachable(
            f"the database is unavailable ({reason(exc)}); try again shortly", retry_after_s=retry_after_s
        ) from exc


class Armed:
    """One armed deadline: ``fired`` once it cut the connection."""

    fired = False


class Deadlines:
    """One thread that shuts down the socket of a connection whose transaction outlived its deadline."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int]] = []
        self._armed: dict[int, socket.socket] = {}  # token -> the watcher's own duplicate of the socket
        self._handles: dict[int, Armed] = {}
        self._tokens = itertools.count()
        self._thread: threading.Thread | None = None
        self.fired = 0  # how many transactions the deadline ended (for the fault suite and the benchmark)

    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._watch, name="omni-db-deadlines", daemon=True)
            self._thread.start()

    @contextmanager
    def arm(self, fd: int | None, seconds: float) -> Iterator[Armed]:
        """Cut the socket ``fd`` if the block is still running after ``seconds``; the handle tells whether it was."""
        armed = Armed()
        # a duplicate, not the number: if the driver closes ``fd`` while the block runs, the number may be handed to
        # another connection, and shutting it down by number would cut that one
        held = _duplicate(fd) if fd is not None and fd >= 0 else None
        if held is None:
            yield armed
            return
        with self._cond:
            token = next(self._tokens)
            self._armed[token] = held
            self._handles[token] = armed
            heapq.heappush(self._heap, (time.monotonic() + seconds, token))
            self._start()
            self._cond.notify()
        try:
            yield armed
        finally:
            with self._cond:  # the watcher shuts sockets under this lock: once disarmed, never touched again
                self._armed.pop(token, None)
                self._handles.pop(token, None)
            held.close()

    def _watch(self) -> None:
        while True:
            with self._cond:
                while not self._heap:
                    self._cond.wait()
                due, token = self._heap[0]
                wait = due - time.monotonic()
                if wait > 0:
                    self._cond.wait(timeout=wait)
                    continue
                heapq.heappop(self._heap)
                held = self._armed.pop(token, None)
                handle = self._handles.pop(token, None)
                if held is not None and handle is not None:
                    handle.fired = True
                    self.fired += 1
                    _shut(held)


def _duplicate(fd: int) -> socket.socket | None:
    """The watcher's own descriptor of the socket ``fd`` (it keeps the socket itself, whatever becomes of ``fd``)."""
    try:
        return socket.socket(fileno=os.dup(fd))
    except OSError:
        return None


def _shut(held: socket.socket) -> None:
    """End the connection for every descriptor of it (shutdown acts on the socket, not the descriptor); the arming
    block closes ``held`` itself when it ends."""
    try:
        held.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    logger.warning("a database transaction outlived its deadline; its connection was cut")


DEADLINES = Deadlines()


def socket_of(dbapi_connection: Any) -> int | None:
    """The socket of a psycopg connection (None for SQLite: a file, no socket)."""
    fileno = getattr(dbapi_connection, "fileno", None)
    if fileno is None:
        return None
    try:
        return int(fileno())
    except Exception:
        return None
