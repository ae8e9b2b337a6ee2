"""components/progress.py with AppTest: work that ends before the box's delay shows no box (no flash, no status
pause); longer work shows the status box with its bar, closed with the done label or as failed."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

pytestmark = pytest.mark.ui


def page(show_after_s: float, fail: bool) -> None:
    import time

    import streamlit as st

    from components.progress import progress_box

    st.write("before")
    try:
        with progress_box("Planning", show_after_s=show_after_s) as box:
            box.update("Stage one", 0.25)
            deadline = time.monotonic() + 20
            while show_after_s < 10 and box._status is None and time.monotonic() < deadline:
                time.sleep(0.01)  # long work: wait until the timer has drawn the box (not a duration under test)
            box.update("Stage two", 0.75)
            if fail:
                raise RuntimeError("the work failed")
            box.finish("Planned")
    except RuntimeError:
        st.write("failed")
    st.write("after")


def run(show_after_s: float, *, fail: bool = False) -> AppTest:
    at = AppTest.from_function(page, args=(show_after_s, fail), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    return at


def test_quick_work_shows_no_box():
    at = run(60.0)
    assert at.get("status") == [] and at.get("progress") == []
    assert [m.value for m in at.markdown] == ["before", "after"]


def test_long_work_shows_the_box_with_its_bar_and_the_done_label():
    at = run(0.05)
    [status] = at.get("status")
    assert status.label == "Planned" and status.proto.state == status.proto.State.COMPLETE
    [bar] = at.get("progress")
    assert bar.proto.value == 75 and bar.proto.text == "Stage two"


def test_failed_work_closes_the_box_as_failed():
    at = run(0.05, fail=True)
    [status] = at.get("status")
    assert status.proto.state == status.proto.State.ERROR and "Planning" in status.label
    assert [m.value for m in at.markdown] == ["before", "failed", "after"]
