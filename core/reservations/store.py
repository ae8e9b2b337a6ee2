"""The reservation tables through SQLAlchemy: SQLite by default, PostgreSQL when a team shares a database
(``OMNI_DB_URL``). The schema is Alembic's (core/reservations/migrations); every write is one transaction.
The engines (one per URL) are core/stores/db.py's, shared with the trip store.

A dry run is a quote (``reservation_quotes``), not a reservation: the reservation row is written only when the
person confirms. Races are settled by the database, not by Python locks, so they hold across processes and
machines: a token (a quote's, or a cancellation's) is spent by an UPDATE that only matches an unspent row, a
confirmed quote becomes a reservation under the quote's id (a primary key), a slot is taken by an UPDATE that
only matches while it has room, and an idempotency key is a primary key. SQLite runs each transaction as ``BEGIN IMMEDIATE``.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import sqlalchemy as sa

from core.stores.db import MIGRATIONS, UtcDateTime, engine_for, open_engine, transaction, upgrade

__all__ = [
    "MIGRATIONS",
    "engine_for",
    "open_engine",
    "transaction",
    "upgrade",
]  # the engine machinery is shared: core/stores/db.py

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
    sa.Column("created_at", UtcDateTime()),
)
transitions = sa.Table(
    "reservation_transitions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("reservation_id", sa.String(40)),
    sa.Column("from_status", sa.String(12)),
    sa.Column("to_status", sa.String(12)),
    sa.Column("at", UtcDateTime()),
    sa.Column("reason", sa.String(200)),
)
#: revision 0005: a dry run's quote (not a reservation); its reserve token is spent on this row
quotes = sa.Table(
    "reservation_quotes",
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
    sa.Column("quote", sa.JSON),
    sa.Column("policy", sa.JSON),
    sa.Column("created_at", UtcDateTime()),
    sa.Column("token_hash", sa.String(64)),
    sa.Column("expires_at", UtcDateTime()),
    sa.Column("used_at", UtcDateTime()),
)
#: the cancellation tokens (a reserve token is its quote's)
tokens = sa.Table(
    "reservation_tokens",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.String(120)),
    sa.Column("reservation_id", sa.String(40)),
    sa.Column("action", sa.String(10)),
    sa.Column("expires_at", UtcDateTime()),
    sa.Column("used_at", UtcDateTime()),
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


def as_date(value: Any) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def as_utc(value: datetime) -> datetime:
    """A moment read back from a column written before they were ``UtcDateTime`` (naive: taken as UTC)."""
    from datetime import UTC

    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
