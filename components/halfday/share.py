"""The half-day page's goal in its URL (``?halfday=``, issue 12 §4; components/share.py, core/share.py).

The link carries the goal sentence, the start place, the region and the day the plans were for. A new session on
it (a shared link, a reload) puts the goal and the start place into the boxes and plans once; the goal is read
from the start of that day when the day is still ahead, else from now. The plans themselves are not kept: they
depend on the clock and on what the planner remembers of the user, and are made again.
"""

from __future__ import annotations

from datetime import date, datetime, time
from zoneinfo import ZoneInfo

import streamlit as st

from components import share
from components.frame import active_provider
from components.halfday import state as hs
from core.share import ShareError, halfday_from_token, halfday_token

PARAM = "halfday"
PAGE = "half_day"
SEEN = "hd_share_seen"  # the token this session has restored or published (restored once)
ERROR = "hd_share_error"  # the code of a link that could not be opened
SWITCHED = "hd_share_region"  # the token whose region the sidebar was switched to


def start_of(day: date | None, zone: str, *, now: datetime) -> datetime | None:
    """The moment to read a linked goal from: the start of its day while that day is still ahead, else None
    (the clock)."""
    tz = ZoneInfo(zone)
    if day is None or day <= now.astimezone(tz).date():
        return None
    return datetime.combine(day, time(0, 0), tzinfo=tz)


def _decode(token: str) -> tuple[tuple[str, str | None, date | None], str | None]:
    goal, origin, region, day = halfday_from_token(token)
    return (goal, origin, day), region


def restore_from_url() -> None:
    """Fill the goal box from ``?halfday=`` once per session and token (components/share.py ``read_link``), and
    ask for one run."""
    linked = share.read_link(PARAM, _decode, seen=SEEN, error=ERROR, switched=SWITCHED)
    if linked is None:
        return
    goal, origin, day = linked
    st.session_state[hs.GOAL] = goal
    st.session_state[hs.ORIGIN] = origin or ""
    zone = active_provider()[0].region.timezone
    st.session_state[hs.NOW] = start_of(day, zone, now=datetime.now(ZoneInfo(zone)))
    st.session_state[hs.PENDING] = True


def render_error(lang: str) -> None:
    if st.session_state.get(ERROR):
        share.render_error(st.session_state[ERROR], lang, key="hd_share_error")


def render_link(lang: str) -> None:
    """After a run that made plans: the URL carries the goal; the address to copy is shown."""
    run = st.session_state.get(hs.RUN)
    result = st.session_state.get(hs.RESULT)
    if not run or getattr(run.get("done"), "type", None) != "plans" or result is None:
        if run is not None:
            share.publish(PARAM, None)
        return
    window = result.goal.window
    try:
        token: str | None = halfday_token(
            goal=run["goal"], origin=run.get("origin") or None, region=run.get("region"), day=window and window.date
        )
    except ShareError:
        token = None
    share.offer(PARAM, token, page=PAGE, lang=lang, key="hd_share_link", seen=SEEN, error=ERROR)
