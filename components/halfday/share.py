"""The half-day page's goal in its URL (``?halfday=``, issue 12 §4; components/share.py, core/share.py).

The link carries the goal sentence as written, the start place, the region and the window the plans were made for,
absolute (a day, a start and an end on the region's clock): opened on any later day it plans the same day and hours
(issue 22: a link that kept "tomorrow" moved a day on every opening), or says the day has passed. A link of the
earlier format (the goal and a day) is read once as it was then and says so when its words named another day
(core/halfday/link.py); the page then publishes the absolute link. The plans themselves are not kept: they depend on
what the planner remembers of the user, and are made again.
"""

from __future__ import annotations

import streamlit as st

from components import share
from components.frame import request_context
from components.halfday import state as hs
from core.app.halfday import open_link
from core.i18n import Lang, t
from core.models.halfday.goal import ExactWindow, LinkReading
from core.share import HalfDayLink, ShareError, halfday_from_token, halfday_token
from core.words import halfday as halfday_words

PARAM = "halfday"
PAGE = "half_day"
SEEN = "hd_share_seen"  # the token this session has restored or published (restored once)
ERROR = "hd_share_error"  # the code of a link that could not be opened
SWITCHED = "hd_share_region"  # the token whose region the sidebar was switched to
NOTE = "hd_share_note"  # what opening the last link found (a LinkReading) when there is something to say
NOTE_WORDS = {
    "past": "halfday.share.past",
    "legacy": "halfday.share.legacy",
    "legacy_ambiguous": "halfday.share.legacy_ambiguous",
}


def _decode(token: str) -> tuple[HalfDayLink, str | None]:
    link = halfday_from_token(token)
    return link, link.region


def restore_from_url() -> None:
    """Fill the goal box from ``?halfday=`` once per session and token (components/share.py ``read_link``) and ask
    for one run in the link's window; a window that is over is said, not planned."""
    link = share.read_link(PARAM, _decode, seen=SEEN, error=ERROR, switched=SWITCHED)
    if link is None:
        return
    st.session_state[hs.GOAL] = link.goal
    st.session_state[hs.ORIGIN] = link.origin or ""
    reading = open_link(request_context(link.region), link)
    st.session_state.pop(NOTE, None)
    if reading.note != "same":
        st.session_state[NOTE] = reading
    if reading.note == "past":
        return  # the goal is in the box to plan again for another day; nothing is planned for a day gone
    if reading.window is not None:
        st.session_state[hs.WINDOW] = reading.window
    st.session_state[hs.PENDING] = True


def note_sentence(reading: LinkReading, lang: Lang) -> str:
    """What opening a link found, in ``lang`` ("" when the link opened as it was made)."""
    key = NOTE_WORDS.get(reading.note)
    if key is None:
        return ""
    window = reading.window
    if window is None:
        return t("halfday.share.legacy_now", lang)
    return t(
        key,
        lang,
        day=halfday_words.day_label(window.date, lang),
        start=halfday_words.clock(window.start),
        end=halfday_words.clock(window.end),
    )


def render_error(lang: Lang) -> None:
    if st.session_state.get(ERROR):
        share.render_error(st.session_state[ERROR], lang, key="hd_share_error")
    reading = st.session_state.get(NOTE)
    if reading is not None:
        with st.container(key="hd_share_note"):
            if reading.note == "past":
                st.warning(note_sentence(reading, lang), icon=":material/event_busy:")
            else:
                st.info(note_sentence(reading, lang), icon=":material/link:")


def link_window(run: dict[str, object], result: object) -> ExactWindow | None:
    """The window a run's link keeps: the one sent beside the goal when it was absolute, else the one read."""
    sent = run.get("window")
    if isinstance(sent, ExactWindow):
        return sent
    read = getattr(getattr(result, "goal", None), "window", None)
    if read is None:
        return None
    return ExactWindow(date=read.date, start=read.start, end=read.end)


def render_link(lang: Lang) -> None:
    """After a run that made plans: the URL carries the goal and its window; the address to copy is shown."""
    run = st.session_state.get(hs.RUN)
    result = st.session_state.get(hs.RESULT)
    if not run or getattr(run.get("done"), "type", None) != "plans" or result is None:
        if run is not None:
            share.publish(PARAM, None)
        return
    try:
        token: str | None = halfday_token(
            goal=run["goal"],
            origin=run.get("origin") or None,
            region=run.get("region"),
            window=link_window(run, result),
        )
    except ShareError:
        token = None
    share.offer(PARAM, token, page=PAGE, lang=lang, key="hd_share_link", seen=SEEN, error=ERROR)
