"""Streamlit's legacy multipage mode, answered in one place.

Because the project has a ``pages/`` folder next to app.py, Streamlit starts each server process in its
legacy multipage mode and leaves it only when app.py calls ``st.navigation``. If the first visit after a
server start opens a page URL (``/route_planner``), Streamlit runs that page file alone, without app.py:
no sidebar, no wide layout, no navigation. ``ensure_app_frame`` (first line of every page) detects that,
leaves the legacy mode and reruns through app.py, which opens the same page (page hashes come from the URL
path, so they match). tests/ui/test_browser.py opens every page URL first to keep this working.
"""

from __future__ import annotations

import streamlit as st

FRAME_MARK = "_omni_app_frame"  # set by app.py on each run, consumed by the page
FRAME_SEEN = "_omni_app_frame_seen"  # this session has run through app.py at least once


def mark_app_frame() -> None:
    """app.py calls this on every run, before running the page."""
    st.session_state[FRAME_MARK] = True
    st.session_state[FRAME_SEEN] = True


def ensure_app_frame() -> None:
    """Every page calls this first: make sure it runs inside app.py's frame.

    Because the project has a ``pages/`` folder, Streamlit starts each process in its legacy
    multipage mode and leaves it only when app.py calls ``st.navigation``. If the first visit
    after a server start opens a page URL (``/route_planner``), Streamlit runs the page without
    app.py (no sidebar, no wide layout): leave that mode and rerun through app.py, which opens
    the same page (page hashes come from the URL path, so they match). AppTest re-enters the
    legacy mode on every run; there a rerun would drop button clicks, so a session that has
    already been through app.py gets the frame drawn in place instead.
    """
    if st.session_state.pop(FRAME_MARK, False):
        return
    from streamlit.runtime.pages_manager import PagesManager

    if not PagesManager.uses_pages_directory:
        return  # the page is the main script itself (e.g. AppTest.from_file of the page)
    PagesManager.uses_pages_directory = False
    if st.session_state.get(FRAME_SEEN):
        from components.frame import render_frame

        render_frame()
    else:
        st.session_state[FRAME_SEEN] = True
        st.rerun()
