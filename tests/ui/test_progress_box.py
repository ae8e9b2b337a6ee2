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


def open_box_page() -> None:
    import time

    from components.progress import ProgressBox

    box = ProgressBox("Running", show_after_s=0.01)
    box.update("3 of 10 tasks done", 0.3)
    deadline = time.monotonic() + 20
    while box._status is None and time.monotonic() < deadline:
        time.sleep(0.01)  # wait until the timer has drawn the box (not a duration under test)


def test_a_box_with_a_bar_is_opened_and_labelled_with_the_count_so_both_are_seen():
    at = AppTest.from_function(open_box_page, default_timeout=30)
    at.run()
    [status] = at.get("status")
    assert status.proto.expanded is True  # a bar inside a closed box is never seen (issue 32: "only a spinner")
    assert status.label == "Running · 3 of 10 tasks done"  # and the label says what runs and how far


def test_time_left_follows_the_pace_since_the_first_count_and_says_nothing_before():
    from components.progress import TimeLeft

    now = [100.0]
    pace = TimeLeft(clock=lambda: now[0])
    assert pace.update(4, 20) is None  # resumed at 4 of 20: no pace yet
    now[0] = 110.0
    assert pace.update(6, 20) == pytest.approx(70.0)  # 2 tasks in 10 s: 14 left take 70 s
    now[0] = 112.0
    assert pace.update(6, 20) == pytest.approx(84.0)  # no task since: the pace slows
    assert pace.update(20, 20) is None  # done: nothing left to announce


@pytest.mark.parametrize(
    ("seconds", "lang", "words"),
    [(0.4, "en", "about 1 s left"), (44.6, "en", "about 45 s left"), (150, "en", "about 3 min left"),
     (44.6, "zh", "约剩 45 秒"), (150, "zh", "约剩 3 分钟")],
)  # fmt: skip
def test_time_left_in_words(seconds, lang, words):
    from components.progress import time_left_words

    assert time_left_words(seconds, lang) == words
