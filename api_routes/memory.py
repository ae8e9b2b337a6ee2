"""What is remembered of the key's user over HTTP (``core.app.memory``): its standing rules and snippets, a recall,
forgetting, and its agent conversations."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query

from api_routes.shared import AUTH_ERRORS, BODY_ERRORS, context_for, current_user, described_errors, error_response
from core.models.rules import RuleCode

router = APIRouter()


@router.get("/memory", tags=["memory"], responses=AUTH_ERRORS)
def memory_view(user: str = Depends(current_user)) -> Any:
    """What is remembered of the key's user: standing rules (codes and facts) and the newest snippets."""
    from core.app import memory as memory_app

    return memory_app.view(context_for(user)).model_dump(mode="json")


@router.get("/memory/recall", tags=["memory"], responses={**BODY_ERRORS, **AUTH_ERRORS})
def memory_recall(q: Annotated[str, Query(min_length=1, max_length=1000)], user: str = Depends(current_user)) -> Any:
    """The key's user's snippets most like ``q`` (hashed n-gram TF-IDF cosine, best first)."""
    from core.app import memory as memory_app

    return [e.model_dump(mode="json") for e in memory_app.recall(context_for(user), q)]


@router.delete(
    "/memory/rules/{code}",
    tags=["memory"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **described_errors(s404="no such rule remembered")},
)
def memory_forget_rule(code: RuleCode, user: str = Depends(current_user)) -> Any:
    """Forget one standing rule of the key's user (``no_spicy``, ``no_queues``, …)."""
    from core.app import memory as memory_app

    if not memory_app.forget(context_for(user), code):
        return error_response(404, "RULE_NOT_REMEMBERED", f"no rule {code!r} is remembered", "code")
    return {"forgotten": code}


@router.delete("/memory", tags=["memory"], responses=AUTH_ERRORS)
def memory_forget_everything(user: str = Depends(current_user)) -> dict[str, int]:
    """Forget every rule, snippet and agent conversation of the key's user."""
    from core.app import memory as memory_app

    return memory_app.forget_everything(context_for(user))


@router.get(
    "/agent/conversations/{conversation_id}",
    tags=["agent"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **described_errors(s404="no such conversation of this user")},
)
def agent_conversation(conversation_id: Annotated[str, Path(max_length=40)], user: str = Depends(current_user)) -> Any:
    """One of the key's user's agent conversations (another user's reads as not found)."""
    from core.app import memory as memory_app

    found = memory_app.open_conversation(context_for(user), conversation_id)
    if found is None:
        return error_response(404, "CONVERSATION_NOT_FOUND", "no conversation of this id is yours", "conversation_id")
    return found.model_dump(mode="json")
