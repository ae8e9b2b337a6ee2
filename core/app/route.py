"""Plan a route (job 1): the planner on the request's own view of the providers."""

from __future__ import annotations

from core.app.context import RequestContext
from core.models.route import RoutePlanRequest, RoutePlanResult
from core.route.planner import Progress
from core.route.planner import plan_route as _plan_route


def plan_route(ctx: RequestContext, request: RoutePlanRequest, *, progress: Progress | None = None) -> RoutePlanResult:
    """The best order per strategy, its candidates, links and notices; the result holds this request's warnings
    and provider calls only (the context's view), however many plans run at once."""
    return _plan_route(request, provider=ctx.providers, settings=ctx.settings, progress=progress)
