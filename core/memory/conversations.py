"""The agent's conversations, kept per user so a reload or a link opens them again (issue 23).

A conversation's id is random (a link carries it); opening it checks the owner: another user's id reads as not
found, so a link never shows someone else's conversation, nor tells that it exists."""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa

from core.models.memory import Conversation, Turn, new_conversation_id
from core.stores.db import EngineAtFirstUse, UtcDateTime, transaction

metadata = sa.MetaData()
conversations_table = sa.Table(
    "agent_conversations",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("user_id", sa.String(120)),
    sa.Column("created_at", UtcDateTime()),
    sa.Column("updated_at", UtcDateTime()),
)
turns_table = sa.Table(
    "agent_conversation_turns",
    metadata,
    sa.Column("conversation_id", sa.String(40), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("message", sa.Text),
    sa.Column("response", sa.JSON),
    sa.Column("at", UtcDateTime()),
)
MAX_TURNS = 200  # a conversation's turns read back (the newest ones)


#: a conversation id as new_conversation_id makes them (a page may make one before the first turn is kept)
_ID = re.compile(r"[0-9a-f]{16}")


class ConversationStore(EngineAtFirstUse):
    def append(self, user_id: str, conversation_id: str | None, message: str, response: dict[str, Any]) -> str:
        """Add a turn to the user's conversation (a new one when ``conversation_id`` is None, unknown or not
        theirs: an unknown well-formed id becomes the new conversation's id); its id."""
        now = self.clock()
        with transaction(self.engine) as conn:
            owner = None
            if conversation_id is not None:
                owner = conn.execute(
                    sa.select(conversations_table.c.user_id).where(conversations_table.c.id == conversation_id)
                ).scalar()
            if owner != user_id:
                # a new conversation keeps the id its page gave it (a consent to browse on its first turn is kept
                # under it); an id that is another user's is never joined: a new one is made
                if conversation_id is None or owner is not None or not _ID.fullmatch(conversation_id):
                    conversation_id = new_conversation_id()
                conn.execute(
                    conversations_table.insert().values(
                        id=conversation_id, user_id=user_id, created_at=now, updated_at=now
                    )
                )
            else:
                conn.execute(
                    conversations_table.update()
                    .where(conversations_table.c.id == conversation_id)
                    .values(updated_at=now)
                )
            last = conn.execute(
                sa.select(sa.func.max(turns_table.c.seq)).where(turns_table.c.conversation_id == conversation_id)
            ).scalar()
            conn.execute(
                turns_table.insert().values(
                    conversation_id=conversation_id, seq=(last or 0) + 1, message=message, response=response, at=now
                )
            )
        assert conversation_id is not None
        return conversation_id

    def get(self, user_id: str, conversation_id: str) -> Conversation | None:
        """The conversation if it is the user's; None if it does not exist or is someone else's (never told apart)."""
        with transaction(self.engine) as conn:
            row = conn.execute(
                sa.select(conversations_table).where(
                    conversations_table.c.id == conversation_id, conversations_table.c.user_id == user_id
                )
            ).first()
            if row is None:
                return None
            turns = conn.execute(
                sa.select(turns_table)
                .where(turns_table.c.conversation_id == conversation_id)
                .order_by(turns_table.c.seq.desc())
                .limit(MAX_TURNS)
            ).all()
        return Conversation(
            id=row.id,
            user_id=row.user_id,
            created_at=row.created_at,
            updated_at=row.updated_at,
            turns=[Turn(seq=t.seq, message=t.message, response=t.response, at=t.at) for t in reversed(turns)],
        )

    def latest(self, user_id: str) -> str | None:
        """The id of the user's most recently used conversation."""
        with transaction(self.engine) as conn:
            return conn.execute(
                sa.select(conversations_table.c.id)
                .where(conversations_table.c.user_id == user_id)
                .order_by(conversations_table.c.updated_at.desc(), conversations_table.c.id)
                .limit(1)
            ).scalar()

    def forget_all(self, user_id: str) -> int:
        with transaction(self.engine) as conn:
            ids = (
                conn.execute(sa.select(conversations_table.c.id).where(conversations_table.c.user_id == user_id))
                .scalars()
                .all()
            )
            if ids:
                conn.execute(turns_table.delete().where(turns_table.c.conversation_id.in_(ids)))
                conn.execute(conversations_table.delete().where(conversations_table.c.id.in_(ids)))
        return len(ids)
