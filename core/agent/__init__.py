"""The travel agent (docs/ARCHITECTURE.md, "Agent"): semantic router, fast path, action registry, budgeted ReAct loop,
consent/commit gates, web-browse executor and telemetry. ``route_and_run(request) -> response``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.models.agent import AgentResponse


def route_and_run(request: Any, **kwargs: Any) -> AgentResponse:
    """Route one request and run it; see core.agent.orchestrator.route_and_run."""
    from core.agent.orchestrator import route_and_run as _run

    return _run(request, **kwargs)


__all__ = ["route_and_run"]
