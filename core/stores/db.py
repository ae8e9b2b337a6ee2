"""The one database behind ``OMNI_DB_URL``: SQLite by default, PostgreSQL when a team shares one. The
reservation service, the half-day memory and the agent's trip store all keep their tables in it, under one
Alembic history (``core/reservations/migrations``: 0001 reservations, 0002 the trip store, 0003 the half-day
planner's memory, 0004 the agent's pending bookings, 0005 reservation quotes: the dry runs, 0006 the user's
memory: rules, snippets, conversations; 0007 the agent's browse consents; 0008 the reply language of its
conversations and dry runs; 0009 the strategy lab page's memory per user).

One engine per URL and process, migrated to the newest schema when it is made. Every write is one
transaction; SQLite runs each transaction as ``BEGIN IMMEDIATE`` (writers wait for each other, up to
``db_sqlite_busy_timeout_s``, instead of failing), and an in-memory SQLite database is one connection that
transactions take in turn.

A database that is down, frozen or refusing writes is one error, ``DATABASE_UNREACHABLE``, raised within the
configured limits (``db_connect_timeout_s``, ``db_statement_timeout_s``, ``db_pool_timeout_s``), and after
``db_breaker_fail_max`` such failures at once, until a trial call succeeds (core/stores/guard.py).
"""

from __future__ import annotations

import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import StaticPool

from core.clock import Clock
from core.errors import DatabaseUnreachable, InputError, OmniError
from core.stores import guard

if TYPE_CHECKING:
    from core.config import Settings

MIGRATIONS = Path(__file__).resolve().parent.parent / "reservations" / "migrations"
#: any constant: PostgreSQL migrations hold this advisory lock, so two processes never migrate at once
_MIGRATION_LOCK_KEY = 4_227_011
#: Alembic keeps the running migration's context in module globals (alembic.context, alembic.op): two threads of one
#: process migrating at once (the warm-up's and a first request's) take each other's ("KeyError: 'config'")
_ALEMBIC_TURN = threading.Lock()


class SchemaMismatch(OmniError):
    """The database holds tables of these names in a shape this code does not know; nothing was changed."""

    code = "DB_SCHEMA_UNKNOWN"


__all__ = [
    "Database",
    "DatabaseUnreachable",
    "SchemaMismatch",
    "UtcDateTime",
    "engine_for",
    "open_engine",
    "transaction",
    "upgrade",
]


class UtcDateTime(sa.types.TypeDecorator[datetime]):
    """A moment stored in UTC and read back aware, on every database. SQLite keeps a ``DateTime(timezone=True)``
    as its wall-clock text with the offset dropped, so 09:00 in Shanghai came back as 09:00 UTC, eight hours off;
    PostgreSQL's timestamptz converts by itself. A naive moment is refused: its zone would be a guess."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"a naive moment cannot be stored: {value.isoformat()} (give it its offset)")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


@dataclass(frozen=True)
class Database:
    """Which database, and the limits it is used under: made from the settings by the composition root
    (``Database.from_settings``) and handed to the stores; the stores never read the settings themselves."""

    url: str
    connect_timeout_s: float
    statement_timeout_s: float
    pool_timeout_s: float
    migration_timeout_s: float
    sqlite_busy_timeout_s: float
    breaker_fail_max: int
    breaker_reset_s: float

    @classmethod
    def from_settings(cls, settings: Settings) -> Database:
        return cls(
            url=settings.db_url,
            connect_timeout_s=settings.db_connect_timeout_s,
            statement_timeout_s=settings.db_statement_timeout_s,
            pool_timeout_s=settings.db_pool_timeout_s,
            migration_timeout_s=settings.db_migration_timeout_s,
            sqlite_busy_timeout_s=settings.db_sqlite_busy_timeout_s,
            breaker_fail_max=settings.db_breaker_fail_max,
            breaker_reset_s=settings.db_breaker_reset_s,
        )


def _sqlite_immediate(engine: Engine, *, busy_timeout_s: float) -> None:
    """pysqlite's own transaction handling defers locks; take the write lock at BEGIN instead (the recipe in
    SQLAlchemy's SQLite documentation), and let writers wait for each other rather than fail."""

    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        dbapi_connection.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
        _write_ahead_log(dbapi_connection)

    @sa.event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def _write_ahead_log(dbapi_connection: Any, *, attempts: int = 200) -> None:
    """Switch the file to WAL (it stays so). Only one connection can switch a new file; one that finds another
    doing it is told "locked" at once, without SQLite's busy handler waiting, so it tries again."""
    for attempt in range(attempts):
        try:
            dbapi_connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(0.05)


def is_memory_url(url: str) -> bool:
    """``sqlite://`` and ``sqlite:///:memory:``: a database that lives as long as its one connection."""
    parsed = sa.engine.make_url(url)
    return parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:")


#: in-memory SQLite engines share one connection: their transactions take it in turn
_TURNS: weakref.WeakKeyDictionary[Engine, threading.RLock] = weakref.WeakKeyDictionary()
#: the database (URL and limits) each engine was made for: its transactions run under those limits
_OPENED_AS: weakref.WeakKeyDictionary[Engine, Database] = weakref.WeakKeyDictionary()


def _postgres_limits(database: Database) -> dict[str, Any]:
    """A connection's time limits: psycopg's ``connect_timeout`` and the server's ``statement_timeout`` and
    ``lock_timeout`` (in milliseconds, added to the startup packet's ``options`` the URL may already give)."""
    ms = int(database.statement_timeout_s * 1000)
    given = sa.engine.make_url(database.url).query.get("options") or ""
    given = given if isinstance(given, str) else " ".join(given)
    return {
        "connect_timeout": int(database.connect_timeout_s),
        "options": f"{given} -c statement_timeout={ms} -c lock_timeout={ms}".strip(),
    }


@lru_cache(maxsize=8)
def engine_for(database: Database) -> Engine:
    """One engine per database (URL and limits) and process, migrated to the newest schema."""
    url = database.url
    if sa.engine.make_url(url).get_backend_name() == "sqlite":
        if is_memory_url(url):
            engine = sa.create_engine(url, connect_args={"check_same_thread": False}, poolclass=StaticPool)
            _TURNS[engine] = threading.RLock()
        else:
            path = url.split("///", 1)[-1]
            if path:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            engine = sa.create_engine(
                url,
                connect_args={"timeout": database.sqlite_busy_timeout_s, "check_same_thread": False},
                pool_timeout=database.pool_timeout_s,
            )
        _sqlite_immediate(engine, busy_timeout_s=database.sqlite_busy_timeout_s)
    else:
        # no pool_pre_ping: transaction() pings under its deadline (SQLAlchemy's own ping would wait on a frozen
        # server for ever)
        engine = sa.create_engine(
            url,
            pool_size=10,
            max_overflow=40,
            pool_timeout=database.pool_timeout_s,
            connect_args=_postgres_limits(database),
        )
    _OPENED_AS[engine] = database
    try:
        upgrade(engine, migration_timeout_s=database.migration_timeout_s)
    except BaseException:
        engine.dispose()
        raise
    return engine


def _breaker(database: Database) -> Any:
    return guard.BREAKERS.get(database.url, fail_max=database.breaker_fail_max, reset_s=database.breaker_reset_s)


def open_engine(database: Database) -> Engine:
    """``engine_for`` with its failures as structured errors: a URL that names no database this code can
    use is an ``InputError`` on ``db_url``; one that cannot be opened or reached is ``DATABASE_UNREACHABLE``
    (at once while the database's breaker is open)."""
    try:
        with guard.guarded(_breaker(database), retry_after_s=database.breaker_reset_s):
            return engine_for(database)
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError) as exc:
        raise InputError(
            "OMNI_DB_URL must be a database URL such as sqlite:////abs/path/omni.db or "
            f"postgresql+psycopg://user:password@host/dbname ({type(exc).__name__})",
            field="db_url",
        ) from None
    except DatabaseUnreachable as exc:
        cause = exc.__cause__
        if cause is None:  # the breaker is open: its own message
            raise DatabaseUnreachable(exc.message, field="db_url", retry_after_s=exc.retry_after_s) from None
        reason = guard.reason(cause)
        raise DatabaseUnreachable(
            f"the database could not be opened ({reason}); check OMNI_DB_URL",
            field="db_url",
            retry_after_s=exc.retry_after_s,
        ) from None


def upgrade(engine: Engine, *, migration_timeout_s: float) -> None:
    """Migrate to the newest schema in one transaction. On PostgreSQL it runs under its own limits, not a request's:
    ``db_migration_timeout_s`` for each statement and lock wait (waiting for another process's migration, an index
    built on a large table: minutes, where a request's 2 s would abort the start), and the client's deadline after
    it, so a frozen server still cannot hang the start for ever."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.connect() as connection:
        postgres = connection.dialect.name == "postgresql"
        fd = guard.socket_of(connection.connection.dbapi_connection) if postgres else None
        with (
            guard.DEADLINES.arm(fd, migration_timeout_s + DEADLINE_MARGIN_S),
            connection.begin(),
        ):  # the commit included
            if postgres:
                ms = int(migration_timeout_s * 1000)
                connection.exec_driver_sql(f"SET LOCAL statement_timeout = {ms}")
                connection.exec_driver_sql(f"SET LOCAL lock_timeout = {ms}")
                connection.execute(sa.select(sa.func.pg_advisory_xact_lock(_MIGRATION_LOCK_KEY)))
            config.attributes["connection"] = connection
            with _ALEMBIC_TURN:
                command.upgrade(config, "head")


@contextmanager
def transaction(engine: Engine) -> Iterator[Connection]:
    """One transaction, committed when the block ends without an error. A database outage met anywhere in it (or
    before it, while the breaker is open) is ``DATABASE_UNREACHABLE``."""
    database = _OPENED_AS.get(engine)
    if database is None:  # its limits and breaker are unknown: a transaction could hang on a frozen server
        raise ValueError("a store's engine must come from core.stores.db.engine_for or open_engine")
    with guard.guarded(_breaker(database), retry_after_s=database.breaker_reset_s):
        if engine.dialect.name == "sqlite":
            with _TURNS.get(engine) or nullcontext(), engine.begin() as connection:
                yield connection
        else:
            with (
                _checked_out(engine, deadline_s=database.statement_timeout_s + DEADLINE_MARGIN_S) as connection,
                connection.begin(),
            ):
                yield connection


def upsert(conn: Connection, table: sa.Table, values: dict[str, object], *, keys: list[str]) -> None:
    """Insert ``values`` into ``table``, or update the row with the same ``keys``: one statement in the connection's
    dialect, so two requests for one key never collide."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        conn.execute(pg_insert(table).values(**values).on_conflict_do_update(index_elements=keys, set_=values))
    else:
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        conn.execute(sqlite_insert(table).values(**values).on_conflict_do_update(index_elements=keys, set_=values))


#: the client's deadline on a PostgreSQL transaction beyond the server's own statement_timeout
DEADLINE_MARGIN_S = 0.5


@contextmanager
def _checked_out(engine: Engine, *, deadline_s: float) -> Iterator[Connection]:
    """A pooled connection, pinged, under the transaction's deadline: one that died with a restarted server is
    dropped (with the pool's other connections as old) and a new one taken, once; one that hung until the deadline
    is not tried again (the request answers within the deadline)."""
    for attempt in (1, 2):
        connection = engine.connect()
        try:
            with guard.DEADLINES.arm(guard.socket_of(connection.connection.dbapi_connection), deadline_s) as armed:
                try:
                    connection.exec_driver_sql("SELECT 1")
                    connection.rollback()  # the ping's own implicit transaction
                except sa.exc.DBAPIError as exc:
                    if attempt == 1 and exc.connection_invalidated and not armed.fired:  # died, not hung: again
                        connection.close()
                        continue
                    raise
                yield connection
                return
        finally:
            connection.close()


class EngineAtFirstUse:
    """A store over one database, opened at first use: an outage is met where the store is read, not where it is
    made (a request that never reads it never waits for it)."""

    def __init__(self, engine: Engine | None = None, *, database: Database | None = None, clock: Clock) -> None:
        if engine is None and database is None:
            raise ValueError(f"a {type(self).__name__} needs an engine or a database")
        self._engine = engine
        self._database = database
        self.clock = clock  # the stamps it writes: a request's clock (core.app passes the context's)

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            assert self._database is not None
            self._engine = open_engine(self._database)
        return self._engine
