"""Use cases: one entry point per thing a person asks, each taking a ``RequestContext`` (docs/ARCHITECTURE.md,
"Application layer"). The faces (dashboard, HTTP API, command line) build the context and render the result;
they hold no domain rule and import no domain module for planning."""

from core.app.context import AppServices, RequestContext
from core.geo.composite import MapServices  # the type of a context's providers (its per-request view)

__all__ = ["AppServices", "MapServices", "RequestContext"]
