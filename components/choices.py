"""A page's choices as typed state, not widget leftovers (issue 23 §2).

Each page keeps what the user chose in one small pydantic model (codes, never labels: a strategy code, a mode code,
a scenario id, a day index, tags as codes) under a session key of its own. Streamlit keeps such a key when the page
changes, while it deletes the state of the widgets of a page not shown; and a select box or multiselect sends its
option's *words* back, which no longer match once the language changed. So every run hands the kept codes to the
widgets before they draw (``st.session_state[key] = code``), the options are codes with ``format_func`` giving the
words in the current language, and a change of the widget is copied back into the model (``on_change``).

Every keyed input widget of the app also keeps its own value for the session (``persist_state="session"``, held
by tests/ui/test_page_switch_keeps_inputs.py), so what was typed survives a page switch; the models add the codes
that a language switch needs. A widget's key is the model's field name (tests drive the widgets by key). Code that sets a choice (a demo loaded, a
shared link, an undo) goes through ``ChoiceStore.set`` so the model and the widget agree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import streamlit as st
from pydantic import BaseModel, ConfigDict, ValidationError

from components.session import MutableState

M = TypeVar("M", bound=BaseModel)


class Choices(BaseModel):
    """Base of a page's choices: checked on assignment, no unknown field."""

    model_config = ConfigDict(validate_assignment=True, extra="forbid")


@dataclass(frozen=True)
class ChoiceStore(Generic[M]):
    """Where a page's choices live: ``state[key]``, an instance of ``model``."""

    key: str
    model: type[M]

    def get(self, state: MutableState | None = None) -> M:
        """The kept choices (made with the model's defaults on the session's first visit)."""
        state = st.session_state if state is None else state
        found = state.get(self.key)
        if not isinstance(found, self.model):
            found = self.model()
            state[self.key] = found
        return found

    def set(self, state: MutableState | None = None, /, **codes: Any) -> None:
        """Choose from code: the kept value and the widget's value together (a value the model refuses is left
        out rather than raised: a stale link or an old demo must not break the page)."""
        state = st.session_state if state is None else state
        choices = self.get(state)
        for field, code in codes.items():
            try:
                setattr(choices, field, code)
            except ValidationError:
                continue
            state[field] = getattr(choices, field)

    def replace(self, state: MutableState, choices: M) -> None:
        """Put a whole set of choices (restored from the server) in place, widgets included."""
        state[self.key] = choices
        for field in type(choices).model_fields:
            state[field] = getattr(choices, field)


def _kept_one(choices: BaseModel, field: str, options: Sequence[Any], default: Any) -> Any:
    value = getattr(choices, field)
    if value in options:
        return value
    fallback = default if default in options else (options[0] if options else None)
    if fallback is not None:
        setattr(choices, field, fallback)
    return fallback


def _copier(store: ChoiceStore[Any], field: str, then: Callable[[], None] | None) -> Callable[[], None]:
    def copy() -> None:
        store.set(**{field: st.session_state.get(field)})
        if then is not None:
            then()

    return copy


def select(
    host: Any,
    store: ChoiceStore[Any],
    field: str,
    label: str,
    options: Sequence[Any],
    *,
    format_func: Callable[[Any], str],
    default: Any = None,
    radio: bool = False,
    on_change: Callable[[], None] | None = None,
    **kwargs: Any,
) -> Any:
    """A select box (or a radio, ``radio=True``) on ``host`` (``st``, a column, the sidebar) over code options,
    showing the kept choice in today's words; returns the chosen code."""
    value = _kept_one(store.get(), field, options, default)
    st.session_state[field] = value
    draw = host.radio if radio else host.selectbox
    draw(
        label,
        list(options),
        key=field,
        format_func=format_func,
        on_change=_copier(store, field, on_change),
        persist_state="session",
        **kwargs,
    )
    return value


def multiselect(
    host: Any,
    store: ChoiceStore[Any],
    field: str,
    label: str,
    options: Sequence[Any],
    *,
    format_func: Callable[[Any], str],
    on_change: Callable[[], None] | None = None,
    **kwargs: Any,
) -> list[Any]:
    """A multiselect over code options keeping the kept codes (those still offered) in today's words."""
    choices = store.get()
    kept = [code for code in getattr(choices, field) if code in options]
    if kept != getattr(choices, field):
        setattr(choices, field, kept)
    st.session_state[field] = list(kept)
    host.multiselect(
        label,
        list(options),
        key=field,
        format_func=format_func,
        on_change=_copier(store, field, on_change),
        persist_state="session",
        **kwargs,
    )
    return kept


def value_widget(
    draw: Callable[..., Any],
    store: ChoiceStore[Any],
    field: str,
    label: str,
    *,
    on_change: Callable[[], None] | None = None,
    **kwargs: Any,
) -> Any:
    """A widget holding one value (a number, a toggle, a text box) kept in the model: ``draw`` is e.g.
    ``st.number_input`` or a column's ``toggle``."""
    st.session_state[field] = getattr(store.get(), field)
    draw(label, key=field, on_change=_copier(store, field, on_change), persist_state="session", **kwargs)
    return getattr(store.get(), field)
