"""What the server's sessions share, for every page: the application services and the settings in force.

One ``AppServices`` per server process (providers with their caches and breakers, reservation services); it keeps
nothing of a session or a script run. Pages plan through ``components.frame.request_context()``, a context per run.
"""

from __future__ import annotations

import streamlit as st

from core.app import AppServices
from core.config import Settings


@st.cache_resource(show_spinner=False)
def app_services() -> AppServices:
    """The process's shared services (built once; they read the settings in force each time they are asked)."""
    return AppServices()


def settings() -> Settings:
    """The settings in force (a test may change them between runs)."""
    return app_services().settings
