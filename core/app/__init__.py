"""Use cases: one entry point per thing a person asks, each taking a ``RequestContext`` (docs/ARCHITECTURE.md,
"Application layer"). The faces (dashboard, HTTP API, command line) build the context and render the result;
they hold no domain rule and import no domain module for planning."""

from core.app.context import AppServices, RequestContext

__all__ = ["AppServices", "RequestContext"]
