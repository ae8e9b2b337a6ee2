"""The agent's pending bookings: what a person has said so far about one booking the agent asked them to complete
(venue, date, time, party, the venues it offered), one row per user, forgotten after the dry-run time to live.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "agent_pending_bookings",
        sa.Column("user_id", sa.String(120), primary_key=True),
        sa.Column("facts_json", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("agent_pending_bookings")
