"""Who the dashboard acts for: one identity per browser, shared by every page (reservations made on the route
planner are listed by the agent console and the half-day page, which also remembers by it).

The dashboard has no login. ``OMNI_DASHBOARD_USER`` names one user for a shared demo; otherwise the identity is
``dashboard-<sid>``, the sid made here on the server, kept in the session and in a browser cookie (``omni_sid``:
Path=/, SameSite=Strict, a year), never in the address bar: an address copied from the address bar, like the page's
"Copy link" box (components/share.py), carries no identity. A reload (a new session) reads the cookie and keeps the
user's reservations and memory; another browser has no cookie and gets its own identity.

On a session's first run (app.py calls ``remember_identity`` on every run, before the page):

- a valid sid in the cookie is the identity;
- else a new sid is made and written to the cookie, on that run only;
- ``sid`` is taken out of the URL in every case and never adopted: a link (an old bookmark from when the sid was in
  the URL, or one crafted by someone else) must not make this browser act as another user.

Streamlit reads cookies (``st.context.cookies``: those sent when the session opened) but does not set them; the
cookie is written by one line of script (``st.html`` with JavaScript, run in the app's own page, not an iframe) in a
container that is always there and never shown, so nothing moves on the page. Where there are no cookies (AppTest,
a browser that refuses them) the identity lasts for the session.
"""

from __future__ import annotations

import re
import uuid

import streamlit as st

from components.services import settings

COOKIE = "omni_sid"
COOKIE_MAX_AGE_S = 365 * 24 * 3600
USER = "dashboard_user"  # session key: the identity
QUERY = "sid"  # the old links' query parameter: removed, never adopted (a link must not hand over an identity)
BOX = "omni_identity"  # the hidden container the cookie's script is written in
_TO_WRITE = "dashboard_user_cookie"  # session key: the sid the cookie is still to be set to
_SID = re.compile(r"[a-f0-9]{12}")
#: the box and the wrapper Streamlit puts around it: neither shown, neither taking a gap of the page's column
_HIDE = f"<style>.st-key-{BOX}, [data-testid='stLayoutWrapper']:has(> .st-key-{BOX}) {{ display: none; }}</style>"
_WRITE = (
    '<script>document.cookie = "{cookie}={sid}; Path=/; Max-Age={age}; SameSite=Strict"'
    ' + (location.protocol === "https:" ? "; Secure" : "");</script>'
)


def _valid(value: object) -> str | None:
    return value if isinstance(value, str) and _SID.fullmatch(value) else None


def _cookie_sid() -> str | None:
    """The sid in the cookie sent when this session opened, if it is one."""
    try:
        return _valid(st.context.cookies.get(COOKIE))
    except (AttributeError, RuntimeError):  # no browser behind the session
        return None


def dashboard_user() -> str:
    """The user id every page passes to the core (reservations, trips, memory)."""
    configured = settings().dashboard_user
    if configured:
        return configured
    state = st.session_state
    if USER not in state:
        kept = _cookie_sid()
        # an old link's ?sid= is not taken: whoever sent it would share this browser's bookings from then on
        sid = kept or uuid.uuid4().hex[:12]
        state[USER] = f"dashboard-{sid}"
        if sid != kept:
            state[_TO_WRITE] = sid
    if QUERY in st.query_params:
        del st.query_params[QUERY]
    return str(state[USER])


def remember_identity() -> None:
    """Every run, before the page: the identity is settled (and ``sid`` leaves the URL); on the run that made or
    adopted it, a script in the hidden container writes the cookie. The container is there on every run, empty
    after the first, so the page's elements keep their places."""
    if settings().dashboard_user:
        return
    dashboard_user()
    st.html(_HIDE)  # style only: applied without taking room on the page
    with st.container(key=BOX):
        sid = st.session_state.pop(_TO_WRITE, None)
        if sid:
            st.html(_WRITE.format(cookie=COOKIE, sid=sid, age=COOKIE_MAX_AGE_S), unsafe_allow_javascript=True)
