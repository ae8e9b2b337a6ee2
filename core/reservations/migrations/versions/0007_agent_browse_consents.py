"""The agent's browse consents: a person's consent to check websites, given once in a conversation and remembered
for that conversation (one row per user and conversation), forgotten after its time to live.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "agent_browse_consents",
        sa.Column("user_id", sa.String(120), primary_key=True),
        sa.Column("conversation_id", sa.String(80), primary_key=True),
        sa.Column("granted_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("agent_browse_consents")
