"""The strategy lab page's memory per user (core/app/lab_memory.py): its settings, its last results (a reference) and
that results table's bytes, in the shared database, so that a reload reaching another dashboard process, on this
machine or another, finds them (issue 33; until then a JSON file per user under the lab folder of one machine).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lab_memories",
        sa.Column("user_id", sa.String(120), primary_key=True),
        sa.Column("memory", sa.JSON, nullable=False),
        sa.Column("table_bytes", sa.LargeBinary, nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("lab_memories")
