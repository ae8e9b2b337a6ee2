"""The agent's reply language per conversation: the language a conversation is answered in, kept so that a later
turn without a locale (a confirmation by id, a reload, an API call without Accept-Language) keeps it; and the
language of each dry run, so that its confirmation is answered in the language it was offered in.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "agent_conversation_langs",
        sa.Column("user_id", sa.String(120), primary_key=True),
        sa.Column("conversation_id", sa.String(80), primary_key=True),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("set_at", sa.Float, nullable=False),
    )
    # beside the trip store's dry runs, not a column of theirs: revision 0002 adopts its four tables by their shape
    op.create_table(
        "agent_dry_run_langs",
        sa.Column("dry_run_id", sa.String(120), primary_key=True),
        sa.Column("lang", sa.String(8), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("agent_dry_run_langs")
    op.drop_table("agent_conversation_langs")
