"""The reservation tables through SQLAlchemy: SQLite by default, PostgreSQL when a team shares a database
(``OMNI_DB_URL``). The schema is Alembic's (core/reservations/migrations); every write is one transaction.

Races are settled by the database, not by Python locks, so they hold across processes and machines: a token is
spent by an UPDATE that only matches an unspent row, a slot is taken by an UPDATE that only matches while it
has room, and an idempotency key is a primary key. SQLite runs each transaction as ``BEGIN IMMEDIATE``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

MIGRATIONS = Path(__file__).parent / "migrations"

metadata = sa.MetaData()
reservations = sa.Table(
    "reservations",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("user_id", sa.String(120)),
    sa.Column("item_id", sa.String(80)),
    sa.Column("item_name", sa.String(200)),
    sa.Column("slot_date", sa.Date),
    sa.Column("slot_time", sa.String(5)),
    sa.Column("party_size", sa.Integer),
    sa.Column("contact", sa.String(200)),
    sa.Column("notes", sa.Text),
    sa.Column("status", sa.String(12)),
    sa.Column("quote", sa.JSON),
    sa.Column("policy", sa.JSON),
    sa.Column("created_at", sa.DateTime(timezone=True)),
)
transitions = sa.Table(
    "reservation_transitions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("reservation_id", sa.String(40)),
    sa.Column("from_status", sa.String(12)),
    sa.Column("to_status", sa.String(12)),
    sa.Column("at", sa.DateTime(timezone=True)),
    sa.Column("reason", sa.String(200)),
)
tokens = sa.Table(
    "reservation_tokens",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.String(120)),
    sa.Column("reservation_id", sa.String(40)),
    sa.Column("action", sa.String(10)),
    sa.Column("expires_at", sa.DateTime(timezone=True)),
    sa.Column("used_at", sa.DateTime(timezone=True)),
)
confirmations = sa.Table(
    "reservation_confirmations",
    metadata,
    sa.Column("user_id", sa.String(120), primary_key=True),
    sa.Column("idempotency_key", sa.String(100), primary_key=True),
    sa.Column("reservation_id", sa.String(40)),
    sa.Column("action", sa.String(10)),
)
slots = sa.Table(
    "reservation_slots",
    metadata,
    sa.Column("item_id", sa.String(80), primary_key=True),
    sa.Column("slot_date", sa.Date, primary_key=True),
    sa.Column("slot_time", sa.String(5), primary_key=True),
    sa.Column("booked", sa.Integer),
)


def _sqlite_immediate(engine: Engine) -> None:
    """pysqlite's own transaction handling defers locks; take the write lock at BEGIN instead (the recipe in
    SQLAlchemy's SQLite documentation), and let writers wait for each other rather than fail."""

    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        dbapi_connection.execute("PRAGMA journal_mode=WAL")
        dbapi_connection.execute("PRAGMA busy_timeout=30000")

    @sa.event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


@lru_cache(maxsize=8)
def engine_for(url: str) -> Engine:
    """One engine per database URL and process, migrated to the newest schema."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})
        _sqlite_immediate(engine)
    else:
        engine = sa.create_engine(url, pool_size=10, max_overflow=40, pool_pre_ping=True)
    upgrade(engine)
    return engine


def upgrade(engine: Engine) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


@contextmanager
def transaction(engine: Engine) -> Iterator[Connection]:
    with engine.begin() as connection:
        yield connection


def as_date(value: Any) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def as_utc(value: datetime) -> datetime:
    """SQLite hands back naive datetimes for what was stored in UTC."""
    from datetime import UTC

    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
