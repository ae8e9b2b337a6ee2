"""The raw form of a result, for whoever debugs it: one collapsed expander, labelled as such in the page's language,
below the words. The "Details" sections say in words what the codes mean; the codes, ids, the core's own English
notes and raw JSON go here only (issue 32), so a person reading the page never meets them by accident."""

from __future__ import annotations

import json
from collections.abc import Iterable

from core.i18n import Lang, t

DEBUG_LABEL = "common.debug"


def raw_text(lines: Iterable[str] = (), data: object | None = None) -> str:
    """The lines as they are, then ``data`` as indented JSON (non-ASCII kept readable)."""
    parts = [line for line in lines if line]
    if data is not None:
        parts.append(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    return "\n".join(parts)


def render_raw(lines: Iterable[str] = (), *, data: object | None = None, key: str, lang: Lang) -> None:
    """A collapsed "raw data (for debugging)" expander holding ``lines`` and ``data`` (nothing when both are
    empty)."""
    import streamlit as st

    text = raw_text(lines, data)
    if not text:
        return
    with st.expander(t(DEBUG_LABEL, lang), expanded=False, key=key, icon=":material/bug_report:"):
        st.code(text, language="json" if data is not None else None, wrap_lines=True)
