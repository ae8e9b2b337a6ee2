"""Alembic environment for the reservation tables: run on the connection the store hands over."""

from __future__ import annotations

from alembic import context

VERSION_TABLE = "reservations_alembic_version"  # the trip store may keep its own history in the same database

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None, version_table=VERSION_TABLE)
with context.begin_transaction():
    context.run_migrations()
