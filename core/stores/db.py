"""The one database behind ``OMNI_DB_URL``: SQLite by default, PostgreSQL when a team shares one. The
reservation service, the half-day memory and the agent's trip store all keep their tables in it, under one
Alembic history (``core/reservations/migrations``: 0001 reservations, 0002 the trip store, 0003 the half-day
planner's memory, 0004 the agent's pending bookings, 0005 reservation quotes: the dry runs).

One engine per URL and process, migrated to the newest schema when it is made. Every write is one
transaction; SQLite runs each transaction as ``BEGIN IMMEDIATE`` (writers wait for each other, up to 30 s,
instead of failing), and an in-memory SQLite database is one connection that transactions take in turn.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from functools import lru_cache
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import StaticPool

from core.errors import InputError, OmniError

MIGRATIONS = Path(__file__).resolve().parent.parent / "reservations" / "migrations"
#: any constant: PostgreSQL migrations hold this advisory lock, so two processes never migrate at once
_MIGRATION_LOCK_KEY = 4_227_011


class SchemaMismatch(OmniError):
    """The database holds tables of these names in a shape this code does not know; nothing was changed."""

    code = "DB_SCHEMA_UNKNOWN"


class DatabaseUnreachable(OmniError):
    """The database could not be opened or reached (the half-day planner's code for the same)."""

    code = "DATABASE_UNREACHABLE"


def _sqlite_immediate(engine: Engine) -> None:
    """pysqlite's own transaction handling defers locks; take the write lock at BEGIN instead (the recipe in
    SQLAlchemy's SQLite documentation), and let writers wait for each other rather than fail."""

    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        dbapi_connection.execute("PRAGMA busy_timeout=30000")
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


@lru_cache(maxsize=8)
def engine_for(url: str) -> Engine:
    """One engine per database URL and process, migrated to the newest schema."""
    if sa.engine.make_url(url).get_backend_name() == "sqlite":
        if is_memory_url(url):
            engine = sa.create_engine(url, connect_args={"check_same_thread": False}, poolclass=StaticPool)
            _TURNS[engine] = threading.RLock()
        else:
            path = url.split("///", 1)[-1]
            if path:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            engine = sa.create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})
        _sqlite_immediate(engine)
    else:
        engine = sa.create_engine(url, pool_size=10, max_overflow=40, pool_pre_ping=True)
    try:
        upgrade(engine)
    except BaseException:
        engine.dispose()
        raise
    return engine


def open_engine(url: str) -> Engine:
    """``engine_for`` with its failures as structured errors: a URL that names no database this code can
    use is an ``InputError`` on ``db_url``; one that cannot be opened or reached is ``DATABASE_UNREACHABLE``."""
    try:
        return engine_for(url)
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError) as exc:
        raise InputError(
            "OMNI_DB_URL must be a database URL such as sqlite:////abs/path/omni.db or "
            f"postgresql+psycopg://user:password@host/dbname ({type(exc).__name__})",
            field="db_url",
        ) from None
    except sa.exc.OperationalError as exc:
        if exc.statement is not None:  # connected, then a statement failed: not a question of reaching it
            raise
        raise DatabaseUnreachable(
            f"the database could not be opened ({type(exc.orig or exc).__name__}); check OMNI_DB_URL", field="db_url"
        ) from None


def upgrade(engine: Engine) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(sa.select(sa.func.pg_advisory_xact_lock(_MIGRATION_LOCK_KEY)))
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


@contextmanager
def transaction(engine: Engine) -> Iterator[Connection]:
    with _TURNS.get(engine) or nullcontext(), engine.begin() as connection:
        yield connection
