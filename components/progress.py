"""One progress display for long work on every page: a status box, with a bar when the core reports how far
it is (``progress(stage, fraction)``), closed as done or failed. The caller words the label and the stages; "done"
and "failed" are in the user's language (common.po)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

import streamlit as st

from components.language import t

T = TypeVar("T")
Progress = Callable[[str, float], None]


class ProgressBox:
    """The open status box: ``update`` moves the label (and the bar, given a fraction); ``finish`` closes it."""

    def __init__(self, status: Any, label: str) -> None:
        self._status = status
        self._label = label
        self._bar: Any = None

    def update(self, text: str, fraction: float | None = None) -> None:
        if fraction is None:
            self._status.update(label=text)
            return
        if self._bar is None:
            self._bar = st.progress(0.0, text=text)
        self._bar.progress(min(max(float(fraction), 0.0), 1.0), text=text)

    def finish(self, label: str | None = None, *, failed: bool = False) -> None:
        done = label or t("common.progress.failed" if failed else "common.progress.done", label=self._label)
        self._status.update(label=done, state="error" if failed else "complete")


@contextmanager
def progress_box(label: str) -> Iterator[ProgressBox]:
    """``with progress_box("Planning") as box: ...`` — an exception closes the box as failed and propagates."""
    with st.status(f"{label}…", expanded=False) as status:
        box = ProgressBox(status, label)
        try:
            yield box
        except Exception:
            status.update(label=t("common.progress.failed", label=label), state="error")
            raise


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
