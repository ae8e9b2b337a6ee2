"""One progress display for long work on every page: a status box, with a bar when the core reports how far
it is (``progress(stage, fraction)``), closed as done or failed; work done within ``SHOW_AFTER_S`` shows none.
The caller words the label and the stages; "done" and "failed" are in the user's language (common.po)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

import streamlit as st
from streamlit.runtime.scriptrunner import add_script_run_ctx

from components.language import t
from core.i18n import Lang

T = TypeVar("T")
Progress = Callable[[str, float], None]


#: work that ends sooner shows no box at all: a box that flashes for a moment costs the browser a re-layout and
#: Streamlit's status box a 50 ms pause on the server (issue 12 §5); longer work shows it from here on
SHOW_AFTER_S = 0.3


class ProgressBox:
    """The progress of one piece of work: ``update`` moves the label (and the bar, given a fraction); ``finish``
    closes it. The status box itself appears only once the work has run ``show_after_s`` (a timer thread with the
    script's context draws it, as ``st.spinner`` does), in a placeholder kept where the box belongs."""

    def __init__(self, label: str, *, show_after_s: float = SHOW_AFTER_S) -> None:
        self._label = label
        self._holder = st.empty()
        self._lock = threading.Lock()
        self._status: Any = None
        self._bar: Any = None
        self._pending: tuple[str, float | None] | None = None
        self._closed = False
        self._timer = threading.Timer(show_after_s, self._show)
        add_script_run_ctx(self._timer)
        self._timer.start()

    def _show(self) -> None:
        with self._lock:
            if self._closed or self._status is not None:
                return
            self._status = self._holder.status(f"{self._label}…", expanded=False)
            if self._pending is not None:
                self._apply(*self._pending)

    def _apply(self, text: str, fraction: float | None) -> None:
        # the label carries the words too: what runs, and how far (a closed box shows only its label)
        self._status.update(label=f"{self._label} · {text}")
        if fraction is None:
            return
        if self._bar is None:
            self._bar = self._status.progress(0.0, text=text)
            self._status.update(expanded=True)  # the bar shows how far, under the label
        self._bar.progress(min(max(float(fraction), 0.0), 1.0), text=text)

    def update(self, text: str, fraction: float | None = None) -> None:
        with self._lock:
            self._pending = (text, fraction)
            if self._status is not None:
                self._apply(text, fraction)

    def finish(self, label: str | None = None, *, failed: bool = False) -> None:
        """Close the box as done or failed; work too quick to have shown one shows nothing."""
        self._timer.cancel()
        with self._lock:
            self._closed = True
            if self._status is None:
                return
            done = label or t("common.progress.failed" if failed else "common.progress.done", label=self._label)
            self._status.update(label=done, state="error" if failed else "complete")

    def close(self) -> None:
        """Finish as done unless already finished (the end of a ``with`` block)."""
        with self._lock:
            closed = self._closed
        if not closed:
            self.finish()


class TimeLeft:
    """How long counted work has left, from its pace so far: ``update(done, total)`` → seconds, or None until a
    count has moved (work resumed from an earlier run starts counting from there, not from zero)."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._start: tuple[float, int] | None = None

    def update(self, done: int, total: int) -> float | None:
        now = self._clock()
        if self._start is None:
            self._start = (now, done)
            return None
        started_at, started_done = self._start
        moved = done - started_done
        if moved <= 0 or total <= done:
            return None
        return (now - started_at) / moved * (total - done)


def time_left_words(seconds: float, lang: Lang) -> str:
    """A wait still to come as a person reads it: whole seconds under a minute, else whole minutes."""
    if seconds < 60:
        return t("common.progress.left_seconds", lang, seconds=max(1, round(seconds)))
    return t("common.progress.left_minutes", lang, minutes=int(seconds / 60 + 0.5))  # half up: 150 s is 3 min


@contextmanager
def progress_box(label: str, *, show_after_s: float = SHOW_AFTER_S) -> Iterator[ProgressBox]:
    """``with progress_box("Planning") as box: ...`` — an exception closes the box as failed and propagates."""
    box = ProgressBox(label, show_after_s=show_after_s)
    try:
        yield box
    except Exception:
        box.finish(failed=True)
        raise
    finally:
        box.close()


def run_with_progress(
    label: str,
    work: Callable[[Progress], T],
    *,
    stages: Mapping[str, str] | None = None,
    done: Callable[[T], str] | None = None,
) -> T:
    """Run ``work(progress)`` in a progress box; ``stages`` names the core's stage codes for people."""
    names = stages or {}
    with progress_box(label) as box:
        result = work(lambda stage, fraction: box.update(names.get(stage, stage), fraction))
        box.finish(done(result) if done else None)
    return result
