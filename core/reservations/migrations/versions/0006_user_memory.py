"""A person's memory (seed 001 §7): standing rules they stated, episodic snippets of past turns and confirmed plans,
and the agent's conversations with their turns. Every row names its user; nothing is shared between users.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "user_memory_rules",
        sa.Column("user_id", sa.String(120), primary_key=True),
        sa.Column("code", sa.String(40), primary_key=True),
        sa.Column("facts", sa.JSON, nullable=False),
        sa.Column("source", sa.String(20), nullable=False),  # said / profile
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "user_memory_episodes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(120), nullable=False, index=True),
        sa.Column("kind", sa.String(20), nullable=False),  # turn / plan
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("facts", sa.JSON, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "agent_conversations",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("user_id", sa.String(120), nullable=False, index=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "agent_conversation_turns",
        sa.Column("conversation_id", sa.String(40), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("response", sa.JSON, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("agent_conversation_turns")
    op.drop_table("agent_conversations")
    op.drop_table("user_memory_episodes")
    op.drop_table("user_memory_rules")
