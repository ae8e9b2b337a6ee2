"""What the server's sessions share, for every page: the application services and the settings in force.

One ``AppServices`` per server process (providers with their caches and breakers, reservation services); it keeps
nothing of a session or a script run. Pages plan through ``components.frame.request_context()``, a context per run.
Building it starts the process's warm-up (core/app/warmup.py) on a background thread, so the first plan does not
pay for kernels and indexes and the first page is not held up by them.
"""

from __future__ import annotations

import streamlit as st

from core.app import AppServices
from core.app.warmup import start_warm_up
from core.config import Settings


@st.cache_resource(show_spinner=False)
def app_services() -> AppServices:
    """The process's shared services (built once; they read the settings in force each time they are asked)."""
    services = AppServices()
    if services.settings.warm_up_on_start:
        start_warm_up(services)
    return services


def settings() -> Settings:
    """The settings in force (a test may change them between runs)."""
    return app_services().settings
