"""The dashboard's language: which one the user reads, and the sidebar switch that changes it.

``current_lang()`` decides once per run: ``?lang=zh|en`` in the URL wins, else the language already chosen in this
session, else the browser's (``st.context.locale``: ``zh-*`` → Chinese, anything else → English). The choice is
kept in ``st.session_state[LANG]`` ("zh" or "en"; components/reservations.py reads the same key) and written back
to the URL, so a shared link opens in the same language. ``t(key, **params)`` is core.i18n.t in that language.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from core import i18n
from core.i18n import Lang

LANG = "ui_lang"  # the session's language: "zh" or "en" (components/reservations.LANG)
QUERY = "lang"  # ?lang=zh|en
CHOICE = "ui_lang_choice"  # the sidebar control's key
LABELS: dict[Lang, str] = {"zh": "中文", "en": "English"}


def _browser_lang() -> Lang:
    try:
        locale = st.context.locale
    except (AttributeError, RuntimeError):  # outside a script run
        locale = None
    return i18n.lang_of_locale(locale)


def current_lang() -> Lang:
    """The language of this run: the URL's ``?lang=``, else the session's, else the browser's; remembered."""
    wanted = i18n.normalize_lang(st.query_params.get(QUERY))
    kept = i18n.normalize_lang(st.session_state.get(LANG))
    lang: Lang = wanted or kept or _browser_lang()
    if st.session_state.get(LANG) != lang:
        st.session_state[LANG] = lang
    return lang


def t(key: str, lang: Lang | None = None, /, **params: Any) -> str:
    """The words of ``key`` in ``lang`` (default: the session's language), see core.i18n.t."""
    return i18n.t(key, lang or current_lang(), **params)


def _switch() -> None:
    chosen = i18n.normalize_lang(st.session_state.get(CHOICE)) or i18n.DEFAULT_LANG
    st.session_state[LANG] = chosen
    st.query_params[QUERY] = chosen


def render_language_switch() -> Lang:
    """The sidebar's 中文 / English control (``key="ui_lang_choice"``); keeps ``?lang=`` in the URL."""
    lang = current_lang()
    st.session_state[CHOICE] = lang  # the widget follows the URL (a pasted link, the browser's back button)
    st.sidebar.radio(
        "中文 / English",
        list(i18n.LANGS),
        key=CHOICE,
        format_func=LABELS.__getitem__,
        on_change=_switch,
        horizontal=True,
        label_visibility="collapsed",
        persist_state="session",
    )
    if st.query_params.get(QUERY) != lang:
        st.query_params[QUERY] = lang
    return lang
