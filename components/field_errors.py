"""One way for every form to show an error beside the widget it belongs to.

The core raises field-named errors (``InputError.field``) and pydantic names the location of a bad value
(``days.1.end_time``). ``FormErrors`` turns either into the widget the user typed it in (a form's own
``to_widget`` map), a human label and the form section where the message shows, and keeps it in
``st.session_state`` until the next attempt. Forms do not repeat the models' rules: they validate with the
model and let this map the error back to the input.

A form that words its errors for people (``words``: the kept error → a sentence in the user's language) shows
that sentence, and the error's code and the core's message in a collapsed "Details" section below it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st
from pydantic import ValidationError

from components.language import t
from core.errors import error_from_validation


def _same(field: str | None) -> str | None:
    return field


@dataclass(frozen=True)
class FormErrors:
    """The last error of one form: recorded on a failed attempt, shown next to its section, cleared on retry."""

    state_key: str
    label: Callable[[str | None], str]
    section: Callable[[str | None], str]
    to_widget: Callable[[str | None], str | None] = _same
    words: Callable[[Mapping[str, Any]], str] | None = None

    def record(
        self,
        exc: Exception,
        *,
        section: str | None = None,
        to_widget: Callable[[str | None], str | None] | None = None,
    ) -> dict[str, Any]:
        """Keep ``exc`` (a ValidationError or an OmniError) for the widget it concerns; returns what was kept.

        ``to_widget`` maps a model location to the form's widget when it depends on the form's state
        (``days.1.end_time`` is ``day_end_1`` with per-day hours, else ``day_end``)."""
        error: Any = error_from_validation(exc) if isinstance(exc, ValidationError) else exc
        field = (to_widget or self.to_widget)(getattr(error, "field", None))
        kept = {
            "code": getattr(error, "code", "INVALID_INPUT"),
            "message": getattr(error, "message", str(error)),
            "field": field,
            "label": self.label(field),
            "section": section or self.section(field),
        }
        st.session_state[self.state_key] = kept
        return kept

    def clear(self) -> None:
        st.session_state.pop(self.state_key, None)

    def show(self, section: str) -> None:
        error = st.session_state.get(self.state_key)
        if not error or error.get("section") != section:
            return
        # "which one do you mean?" is a question, not a failure: asked in the question's colours
        show = st.info if error.get("code") in QUESTIONS else st.error
        icon = ":material/help:" if error.get("code") in QUESTIONS else ":material/error:"
        if self.words is None:
            show(error_text(error), icon=icon)
            return
        show(self.words(error), icon=icon)
        with st.expander(t("common.details"), expanded=False):
            st.caption(f"{error.get('code')} · {error.get('field') or '-'} · {error.get('message')}")


#: error codes that are questions for the person (a choice to make), shown as such
QUESTIONS = frozenset({"AMBIGUOUS_PLACE"})


def error_text(error: Mapping[str, Any]) -> str:
    """``Label: message`` unless the message already names the field."""
    label = str(error.get("label") or "Input")
    message = str(error.get("message") or "")
    if error.get("field") and label.split(" (")[0].casefold() in message.casefold():
        return message
    return f"{label}: {message}"
