"""Ask the travel agent (job 3), and confirm what it prepared by the dry run's id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.agent.orchestrator import route_and_run
from core.app.context import RequestContext
from core.models.agent import AgentRequest, AgentResponse

AgentProgress = Callable[[str, str], None]


def ask(
    ctx: RequestContext,
    request: AgentRequest | dict[str, Any],
    *,
    progress: AgentProgress | None = None,
    **wiring: Any,
) -> AgentResponse:
    """Route one message and run it as the context's user, on its view of the providers, at its clock's now in its
    zone, answering in its language (when the face gave one; else the message's). ``wiring``: a store, a browser,
    a model or a registry a test or an embedding face supplies."""
    if not isinstance(request, AgentRequest):
        request = AgentRequest.model_validate(request)
    if ctx.user is not None and request.user_id != ctx.user:
        request = request.model_copy(update={"user_id": ctx.user})
    return route_and_run(
        request,
        settings=ctx.settings,
        provider=ctx.providers,
        now=ctx.now(),
        lang=ctx.lang if ctx.lang_given else None,
        progress=progress,
        **wiring,
    )


def confirm_dry_run(
    ctx: RequestContext,
    dry_run_id: str,
    *,
    trip_id: str | None = None,
    progress: AgentProgress | None = None,
    **wiring: Any,
) -> AgentResponse:
    """Commit what the agent prepared, by the id of its dry run (single use, the context's user only), with no
    words standing in for the button: the answer is in the context's language."""
    request = AgentRequest(
        user_id=ctx.user or "anonymous", trip_id=trip_id, options={"confirm_dry_run_id": dry_run_id}, message=""
    )
    return ask(ctx, request, progress=progress, **wiring)
