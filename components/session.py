"""The type of a session state as the faces' pure helpers use it: ``st.session_state`` on a page, a dict in tests.

Streamlit types ``st.session_state`` as a ``MutableMapping[str | int, Any]`` (a widget key may be an int), which
is not a ``MutableMapping[str, Any]``: a mapping's key type is invariant. The helpers only look keys up and put
them, always strings, so they take these protocols instead: both the session state and a ``dict[str, Any]`` are
one (a method's parameter may accept more than the protocol asks).
"""

from __future__ import annotations

from typing import Any, Protocol, overload


class StateView(Protocol):
    """A session state read by string keys."""

    def __contains__(self, key: object, /) -> bool: ...

    def __getitem__(self, key: str, /) -> Any: ...

    @overload
    def get(self, key: str, /) -> Any: ...
    @overload
    def get(self, key: str, default: Any, /) -> Any: ...


class MutableState(StateView, Protocol):
    """A session state read and written by string keys."""

    def __setitem__(self, key: str, value: Any, /) -> None: ...

    def __delitem__(self, key: str, /) -> None: ...

    @overload
    def pop(self, key: str, /) -> Any: ...
    @overload
    def pop(self, key: str, default: Any, /) -> Any: ...

    def setdefault(self, key: str, default: Any, /) -> Any: ...
