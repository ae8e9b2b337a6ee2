"""What the project remembers of the context's user (core/memory): their standing rules and snippets, listed,
recalled and forgotten; the agent's conversations kept and opened again. Every call is the context's user's only."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from core.app.context import RequestContext
from core.errors import InputError
from core.memory.conversations import ConversationStore
from core.memory.store import Episode, KeptRule, UserMemory
from core.models.agent import AgentResponse
from core.models.memory import Conversation
from core.models.rules import RULE_CODES

__all__ = [
    "MemoryView",
    "forget",
    "forget_everything",
    "keep_turn",
    "latest_conversation",
    "open_conversation",
    "recall",
    "view",
]


class MemoryView(BaseModel):
    user_id: str
    rules: list[KeptRule]
    episodes: list[Episode]


def _user(ctx: RequestContext) -> str:
    if not ctx.user:
        raise InputError("the memory is a user's: name the user", field="user_id", code="USER_REQUIRED")
    return ctx.user


def _memory(ctx: RequestContext) -> UserMemory:
    return UserMemory(database=ctx.database, clock=ctx.clock)


def _conversations(ctx: RequestContext) -> ConversationStore:
    return ConversationStore(database=ctx.database, clock=ctx.clock)


def view(ctx: RequestContext, *, episodes: int = 50) -> MemoryView:
    """The user's rules and newest snippets."""
    user = _user(ctx)
    memory = _memory(ctx)
    return MemoryView(user_id=user, rules=memory.rules(user), episodes=memory.episodes(user, limit=episodes))


def recall(ctx: RequestContext, query: str, *, k: int = 3) -> list[Episode]:
    return _memory(ctx).recall(_user(ctx), query, k=k)


def forget(ctx: RequestContext, code: str) -> bool:
    """Forget one rule by its code; True when it was kept."""
    if code not in RULE_CODES:
        raise InputError(
            f"unknown rule {code!r}; the rules are {', '.join(RULE_CODES)}", field="code", code="UNKNOWN_RULE"
        )
    return bool(_memory(ctx).forget(_user(ctx), [code]))


def forget_everything(ctx: RequestContext) -> dict[str, int]:
    """Every rule, snippet, agent conversation and browse consent of the user, forgotten; how many of each."""
    from core.stores.trips import open_store

    user = _user(ctx)
    rules, episodes = _memory(ctx).forget_all(user)
    conversations = _conversations(ctx).forget_all(user)
    trips = open_store(ctx.database)
    consents = trips.forget_browse_consents(user)
    trips.forget_conversation_langs(user)  # a conversation forgotten leaves no language of it behind
    return {"rules": rules, "episodes": episodes, "conversations": conversations, "consents": consents}


def keep_turn(ctx: RequestContext, conversation_id: str | None, message: str, response: AgentResponse) -> str:
    """One turn of the agent console kept in the user's conversation (a new one when the id is None or not theirs);
    the conversation's id."""
    payload: dict[str, Any] = response.model_dump(mode="json")
    return _conversations(ctx).append(_user(ctx), conversation_id, message, payload)


def open_conversation(ctx: RequestContext, conversation_id: str) -> Conversation | None:
    """The conversation if it is the user's; None when it does not exist or is another's (never told apart)."""
    return _conversations(ctx).get(_user(ctx), conversation_id)


def latest_conversation(ctx: RequestContext) -> str | None:
    return _conversations(ctx).latest(_user(ctx))
