"""Ask the travel agent (job 3), and confirm what it prepared by the dry run's id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.agent.orchestrator import route_and_run
from core.agent.trip_request import ASSUMED_START
from core.app.context import RequestContext
from core.config import Settings, get_settings
from core.models.agent import AgentRequest, AgentResponse

__all__ = [
    "ASSUMED_START",  # the name a drafted trip gives its start when the person named none
    "AgentProgress",
    # entry points
    "acceptance",
    "actions",
    "ask",
    "confirm_dry_run",
    "metrics",
]

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


def actions() -> list[dict[str, Any]]:
    """The registered actions the agent can take (name, family, schemas, side effects), as the API lists them."""
    from core.agent.actions.catalog import default_registry

    return default_registry().describe()


def metrics(*, settings: Settings | None = None) -> dict[str, Any]:
    """The agent's live metrics, read from the event log of ``settings`` (the current settings by default)."""
    from core.agent.telemetry import live_metrics

    return live_metrics((settings or get_settings()).agent_event_log)


def acceptance(ctx: RequestContext) -> list[dict[str, Any]]:
    """Run the QA acceptance cases on a throw-away store and event log, on the context's view of the providers at its
    moment: one row per case, passed or not."""
    from core.agent.acceptance import run_qa_acceptance

    return run_qa_acceptance(settings=ctx.settings, provider=ctx.providers, now=ctx.now())
