"""Who the dashboard acts for: one identity per browser session, shared by every page (reservations made on the
route planner are listed by the agent console and the half-day page).

The dashboard has no login. ``OMNI_DASHBOARD_USER`` names one user for a shared demo; otherwise the identity is
made here on the server, kept in the session and mirrored in the URL (``?sid=``) so a reload keeps the user's
reservations and trips. Two browser sessions without the same URL never share them.
"""

from __future__ import annotations

import re
import uuid

import streamlit as st

from core.config import get_settings

_SID = re.compile(r"^[a-f0-9]{12}$")


def dashboard_user() -> str:
    """The user id every page passes to the core (reservations, trips, memory)."""
    configured = get_settings().dashboard_user
    if configured:
        return configured
    state = st.session_state
    if "dashboard_user" not in state:
        sid = st.query_params.get("sid", "")
        if not _SID.match(sid):
            sid = uuid.uuid4().hex[:12]
        state["dashboard_user"] = f"dashboard-{sid}"
    sid = str(state["dashboard_user"]).removeprefix("dashboard-")
    if st.query_params.get("sid") != sid:
        st.query_params["sid"] = sid
    return str(state["dashboard_user"])
