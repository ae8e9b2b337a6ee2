"""Quotes: a reservation's dry run is a quote (its terms checked, its price, a single-use user-bound token) and no
longer a reservation row; the reservation is made ``pending`` only when the person confirms it (stage 7 of the
half-day planner's document: "after the person confirms, {type: reserve, status: pending} is made and submitted").

Revision ID: 0005
Revises: 0004

The earlier revisions stored every dry run as a ``pending`` reservation with a reserve token, and showed one never
confirmed as ``failed`` (``DRY_RUN_EXPIRED``). Those rows were never reservations: they move into the quotes table
(with their token's hash, expiry and use, so a dry run made before the upgrade can still be confirmed), and their
rows, transitions and tokens leave the reservation tables.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    quotes = op.create_table(
        "reservation_quotes",
        sa.Column("id", sa.String(40), primary_key=True),  # the id the reservation gets when it is confirmed
        sa.Column("user_id", sa.String(120), nullable=False),
        sa.Column("item_id", sa.String(80), nullable=False),
        sa.Column("item_name", sa.String(200), nullable=False),
        sa.Column("slot_date", sa.Date, nullable=False),
        sa.Column("slot_time", sa.String(5), nullable=False),
        sa.Column("party_size", sa.Integer, nullable=False),
        sa.Column("contact", sa.String(200), nullable=False, server_default=""),
        sa.Column("notes", sa.Text, nullable=False, server_default=""),
        sa.Column("quote", sa.JSON, nullable=False),
        sa.Column("policy", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
    )
    _move_dry_runs(quotes)


def _move_dry_runs(quotes: sa.Table) -> None:
    """The earlier dry runs (``pending``, or ``failed`` as ``DRY_RUN_EXPIRED``) → quotes; out of the reservations."""
    bind = op.get_bind()
    meta = sa.MetaData()
    reservations = sa.Table("reservations", meta, autoload_with=bind)
    transitions = sa.Table("reservation_transitions", meta, autoload_with=bind)
    tokens = sa.Table("reservation_tokens", meta, autoload_with=bind)
    expired = sa.select(transitions.c.reservation_id).where(transitions.c.reason == "DRY_RUN_EXPIRED")
    rows = bind.execute(
        sa.select(reservations, tokens.c.token_hash, tokens.c.expires_at, tokens.c.used_at)
        .join(tokens, sa.and_(tokens.c.reservation_id == reservations.c.id, tokens.c.action == "reserve"))
        .where(sa.or_(reservations.c.status == "pending", reservations.c.id.in_(expired)))
    ).all()
    if not rows:
        return
    columns = [c.name for c in quotes.columns]
    op.bulk_insert(quotes, [{name: getattr(row, name) for name in columns} for row in rows])
    ids = [row.id for row in rows]
    for chunk in (ids[i : i + 500] for i in range(0, len(ids), 500)):
        bind.execute(tokens.delete().where(tokens.c.reservation_id.in_(chunk)))
        bind.execute(transitions.delete().where(transitions.c.reservation_id.in_(chunk)))
        bind.execute(reservations.delete().where(reservations.c.id.in_(chunk)))


def downgrade() -> None:
    op.drop_table("reservation_quotes")
