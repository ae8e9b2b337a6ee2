"""The agent's trip store: trip drafts, their versioned edit log, dry runs and commitments.

Revision ID: 0002
Revises: 0001

Whatever trip tables the database already holds are looked at first:
- none: the four tables are made;
- the raw SQLite store's (before this revision, made by core/stores/trips.py itself, as in an old
  ``.omni/omni.db``): their rows move into the new tables (SQLite's rowid becomes ``seq``, the insertion order
  PostgreSQL has no rowid for), then the old tables go;
- already this revision's (the history table was dropped while the tables stayed): kept as they are;
- anything else: refused with ``DB_SCHEMA_UNKNOWN``, and nothing is changed.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.stores.db import SchemaMismatch

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

TABLES = ("trips", "trip_edits", "dry_runs", "commitments")  # in the order their references allow
COLUMNS = {
    "trips": {
        "seq", "trip_id", "user_id", "title", "region", "days", "start_date", "draft_json", "version", "created_at",
        "updated_at",
    },
    "trip_edits": {"edit_id", "trip_id", "op", "edit_json", "version", "at"},
    "dry_runs": {
        "dry_run_id", "user_id", "trip_id", "action", "params_json", "evidence_json", "created_at", "expires_at",
        "used_at",
    },
    "commitments": {
        "seq", "commitment_id", "dry_run_id", "user_id", "trip_id", "action", "status", "detail_json", "at",
    },
}  # fmt: skip
#: the raw store's columns: the same but for ``seq`` (it ordered by SQLite's rowid)
LEGACY_COLUMNS = {name: cols - {"seq"} for name, cols in COLUMNS.items()}


def _create(name: str) -> None:
    if name == "trips":
        op.create_table(
            "trips",
            sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("trip_id", sa.String(120), nullable=False, unique=True),
            sa.Column("user_id", sa.String(120), nullable=False),
            sa.Column("title", sa.Text, nullable=False),
            sa.Column("region", sa.String(120), nullable=False),
            sa.Column("days", sa.Integer, nullable=False, server_default="1"),
            sa.Column("start_date", sa.String(40), nullable=True),
            sa.Column("draft_json", sa.Text, nullable=False),
            sa.Column("version", sa.Integer, nullable=False, server_default="1"),
            sa.Column("created_at", sa.String(40), nullable=False),
            sa.Column("updated_at", sa.String(40), nullable=False),
        )
        op.create_index("trips_user", "trips", ["user_id", "updated_at"])
    elif name == "trip_edits":
        op.create_table(
            "trip_edits",
            sa.Column("edit_id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("trip_id", sa.String(120), sa.ForeignKey("trips.trip_id"), nullable=False, index=True),
            sa.Column("op", sa.String(40), nullable=False),
            sa.Column("edit_json", sa.Text, nullable=False),
            sa.Column("version", sa.Integer, nullable=False),
            sa.Column("at", sa.String(40), nullable=False),
        )
    elif name == "dry_runs":
        op.create_table(
            "dry_runs",
            sa.Column("dry_run_id", sa.String(120), primary_key=True),
            sa.Column("user_id", sa.String(120), nullable=False),
            sa.Column("trip_id", sa.String(120), nullable=True),
            sa.Column("action", sa.String(120), nullable=False),
            sa.Column("params_json", sa.Text, nullable=False),
            sa.Column("evidence_json", sa.Text, nullable=False),
            sa.Column("created_at", sa.Float, nullable=False),
            sa.Column("expires_at", sa.Float, nullable=False),
            sa.Column("used_at", sa.Float, nullable=True),
        )
    else:
        op.create_table(
            "commitments",
            sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("commitment_id", sa.String(120), nullable=False, unique=True),
            sa.Column("dry_run_id", sa.String(120), sa.ForeignKey("dry_runs.dry_run_id"), nullable=False, unique=True),
            sa.Column("user_id", sa.String(120), nullable=False, index=True),
            sa.Column("trip_id", sa.String(120), nullable=True),
            sa.Column("action", sa.String(120), nullable=False),
            sa.Column("status", sa.String(40), nullable=False),
            sa.Column("detail_json", sa.Text, nullable=False),
            sa.Column("at", sa.String(40), nullable=False),
        )


def _move_legacy_rows() -> None:
    """The raw store's four tables → this revision's, every row kept (its rowid as ``seq``)."""
    for name in TABLES:
        op.rename_table(name, f"legacy_{name}")
    op.execute("DROP INDEX IF EXISTS trips_user")  # it went with the old trips table; the name is needed again
    for name in TABLES:
        _create(name)
        legacy = sorted(LEGACY_COLUMNS[name])
        ordered = ", ".join(legacy)
        if "seq" in COLUMNS[name]:
            op.execute(f"INSERT INTO {name} (seq, {ordered}) SELECT rowid, {ordered} FROM legacy_{name} ORDER BY rowid")
        else:
            op.execute(f"INSERT INTO {name} ({ordered}) SELECT {ordered} FROM legacy_{name}")
    for name in reversed(TABLES):
        op.drop_table(f"legacy_{name}")


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    found = {name: {c["name"] for c in inspector.get_columns(name)} for name in TABLES if inspector.has_table(name)}
    if all(found[name] == COLUMNS[name] for name in found):
        for name in TABLES:
            if name not in found:
                _create(name)
    elif set(found) == set(TABLES) and all(found[name] == LEGACY_COLUMNS[name] for name in TABLES):
        if op.get_bind().dialect.name != "sqlite":  # the raw store only ever wrote SQLite
            raise _mismatch(found)
        _move_legacy_rows()
    else:
        raise _mismatch(found)


def _mismatch(found: dict[str, set[str]]) -> SchemaMismatch:
    shapes = "; ".join(f"{name}({', '.join(sorted(found[name]))})" for name in TABLES if name in found)
    return SchemaMismatch(
        f"the database already has trip tables this version does not know how to migrate: {shapes}. "
        "Nothing was changed; point OMNI_DB_URL at another database or move these tables away.",
        field="db_url",
        details={"tables": {name: sorted(cols) for name, cols in found.items()}},
    )


def downgrade() -> None:
    for name in reversed(TABLES):
        op.drop_table(name)
