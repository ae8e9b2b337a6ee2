"""The travel agent (docs/ARCHITECTURE.md, "Agent"): semantic router, fast path, action registry, budgeted ReAct loop,
consent/commit gates, web-browse executor and telemetry. ``route_and_run(request, deps, now=) -> response``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.agent.deps import AgentDeps
    from core.models.agent import AgentResponse


def route_and_run(request: Any, deps: AgentDeps, **options: Any) -> AgentResponse:
    """Route one request and run it on ``deps``; see core.agent.orchestrator.route_and_run (imported on first use:
    importing the package loads no flow)."""
    from core.agent.orchestrator import route_and_run as _run

    return _run(request, deps, **options)


__all__ = ["route_and_run"]
