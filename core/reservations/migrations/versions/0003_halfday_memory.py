"""The half-day planner's memory: events that taught it (confirmed plans, likes, dislikes) and family profiles.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "halfday_memory_events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(120), nullable=False, index=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("place_ids", sa.JSON, nullable=False),
        sa.Column("tags", sa.JSON, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "halfday_family_profiles",
        sa.Column("user_id", sa.String(120), primary_key=True),
        sa.Column("profile", sa.JSON, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("halfday_family_profiles")
    op.drop_table("halfday_memory_events")
