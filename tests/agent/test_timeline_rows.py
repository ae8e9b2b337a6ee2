"""The assistant's plan table in words (components/agent/words.py ``timeline_rows``): every row in the reader's
language, a wait included (the core's timeline names it in English: "Wait at ..."; issue 31 audit)."""

from __future__ import annotations

import pytest

from components.agent.words import timeline_rows
from core.packs.loader import load_region

SHANGHAI = load_region("shanghai")


def _timeline():
    """A day as the agent's timeline gives it: a way, a wait before the museum opens, the visit."""
    return [
        {"kind": "travel", "day": 1, "start": "08:40", "end": "08:55", "name": "Hotel → Shanghai Museum",
         "robust_min": 15, "source": "offline_estimate"},
        {"kind": "wait", "day": 1, "start": "08:55", "end": "09:00", "key": None,
         "name": "Wait at Shanghai Museum"},
        {"kind": "visit", "day": 1, "start": "09:00", "end": "11:00", "key": "sh-shanghai-museum",
         "name": "上海博物馆"},
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("lang", "museum", "wait"),
    [("zh", "上海博物馆(人民广场馆)", "在上海博物馆(人民广场馆)等候"),
     ("en", "Shanghai Museum (People's Square)", "Wait at Shanghai Museum (People's Square)")],
)  # fmt: skip
def test_a_wait_is_worded_in_the_reader_s_language_before_the_place_it_waits_for(lang, wait, museum):
    rows = timeline_rows(_timeline(), SHANGHAI, lang)
    assert [r["what"] for r in rows][1:] == [wait, museum]
