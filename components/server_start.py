"""Start the dashboard warm: ``python -m components.server_start [streamlit run options]`` (``make run``).

``streamlit run app.py`` runs nothing of the app until the first visitor arrives, so the first visitor used to pay
for the warm-up (components/services.py: the pages' modules, the region pack and its geocoder, the route kernels, the
gazetteer), on the same two cores as their own page: 8.5 s for the first page (issue 32). Here the warm-up runs
first, in this process, and Streamlit starts serving (its health check answers) once it is done, so the first
visitor finds a warm server. The services it builds are the pages' own: ``app_services`` is a
``st.cache_resource``, one per process whether a script run or this start calls it first.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Sequence

from components.services import APP_SCRIPT, app_services
from core.app.warmup import WarmUp, start_warm_up

log = logging.getLogger(__name__)

#: how long the start waits for the warm-up before serving anyway (a step that hangs must not keep the app down)
WARM_UP_LIMIT_S = 120.0


def warm_before_serving(*, limit_s: float = WARM_UP_LIMIT_S) -> WarmUp | None:
    """Build the process's services and wait for their warm-up (None: the settings turn it off,
    ``OMNI_WARM_UP_ON_START=0``)."""
    services = app_services()
    if not services.settings.warm_up_on_start:
        return None
    t0 = time.perf_counter()
    state = start_warm_up(services)  # the one app_services started: a second call returns it
    if not state.wait(limit_s):
        log.warning("warm-up still running after %.0f s: serving anyway", limit_s)
    log.info("warm-up before serving: %.1f s %s", time.perf_counter() - t0, state.seconds)
    return state


def main(argv: Sequence[str] | None = None) -> None:
    """Warm, then hand over to ``streamlit run app.py`` with ``argv``'s options (e.g. ``--server.port 8502``)."""
    warm_before_serving()
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", str(APP_SCRIPT), *(sys.argv[1:] if argv is None else argv)]
    cli.main()


if __name__ == "__main__":
    main()
