"""Contracts of the user's memory (core/memory): an agent conversation as it is kept and opened again."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from pydantic import BaseModel


class Turn(BaseModel):
    seq: int
    message: str
    response: dict[str, Any]  # the agent's response as JSON (core.models.agent.AgentResponse)
    at: datetime


class Conversation(BaseModel):
    id: str
    user_id: str
    created_at: datetime
    updated_at: datetime
    turns: list[Turn]


def new_conversation_id() -> str:
    """An id for a conversation not kept yet (random: a link carries it); its first turn is kept under it, and a
    consent given in it."""
    return secrets.token_hex(8)
