"""Reservations, their transitions, single-use tokens, confirmations by idempotency key, slot counts.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reservations",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("user_id", sa.String(120), nullable=False, index=True),
        sa.Column("item_id", sa.String(80), nullable=False),
        sa.Column("item_name", sa.String(200), nullable=False),
        sa.Column("slot_date", sa.Date, nullable=False),
        sa.Column("slot_time", sa.String(5), nullable=False),
        sa.Column("party_size", sa.Integer, nullable=False),
        sa.Column("contact", sa.String(200), nullable=False, server_default=""),
        sa.Column("notes", sa.Text, nullable=False, server_default=""),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("quote", sa.JSON, nullable=False),
        sa.Column("policy", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "reservation_transitions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("reservation_id", sa.String(40), sa.ForeignKey("reservations.id"), nullable=False, index=True),
        sa.Column("from_status", sa.String(12), nullable=True),
        sa.Column("to_status", sa.String(12), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reason", sa.String(200), nullable=False),
    )
    op.create_table(
        "reservation_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(120), nullable=False),
        sa.Column("reservation_id", sa.String(40), sa.ForeignKey("reservations.id"), nullable=False),
        sa.Column("action", sa.String(10), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(  # a key is the caller's: two users may pick the same one
        "reservation_confirmations",
        sa.Column("user_id", sa.String(120), primary_key=True),
        sa.Column("idempotency_key", sa.String(100), primary_key=True),
        sa.Column("reservation_id", sa.String(40), sa.ForeignKey("reservations.id"), nullable=False),
        sa.Column("action", sa.String(10), nullable=False),
    )
    op.create_table(
        "reservation_slots",
        sa.Column("item_id", sa.String(80), primary_key=True),
        sa.Column("slot_date", sa.Date, primary_key=True),
        sa.Column("slot_time", sa.String(5), primary_key=True),
        sa.Column("booked", sa.Integer, nullable=False, server_default="0"),
    )


def downgrade() -> None:
    for table in (
        "reservation_slots",
        "reservation_confirmations",
        "reservation_tokens",
        "reservation_transitions",
        "reservations",
    ):
        op.drop_table(table)
