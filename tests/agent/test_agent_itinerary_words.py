"""The agent's itinerary replies say why a place was left out in the reply's language, from the reason's code and
facts (core/words/agent.py, core/agent/flows/itinerary_fixes.py), never with the code or the core's English explanation."""

from __future__ import annotations

import re

import pytest

from tests.support.agent_packs import agent_runner

CODE = re.compile(r"\b[A-Z]{3,}_[A-Z_]+\b")
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return agent_runner(tmp_path_factory.mktemp("agent-words"))


def _dropped_line(text: str, name: str) -> str:
    """The plan's line for the place (the first naming it; the wish it was named in follows, issue 31)."""
    return next(line for line in text.splitlines() if name in line)


def test_a_chinese_request_hears_in_chinese_why_a_place_was_left_out(run):
    r = run("规划1天行程，想去短时展厅")  # the hall is open 10:00-10:20; a visit takes 120 minutes
    assert r.result.status == "OK", r.result.answer_text
    [item] = [d for d in r.result.payload.dropped_items if d["key"] == "a-shortwindow"]
    assert item["reason_code"] == "OUTSIDE_OPENING_HOURS" and item["facts"]["visit_min"] == 120
    line = _dropped_line(r.result.answer_text, "短时展厅")
    assert "120" in line and "第 1 天" in line and "周六" in line  # the visit's length, the day and its weekday
    assert not CODE.search(r.result.answer_text), r.result.answer_text
    assert item["explanation"] not in r.result.answer_text
    assert not re.search(r"[A-Za-z]{4,}", line), line  # no English left in the Chinese sentence


def test_an_english_request_hears_it_in_english_with_the_places_english_name(run):
    r = run("Plan a 1-day trip, I want to see the short window hall")
    assert r.result.status == "OK", r.result.answer_text
    line = _dropped_line(r.result.answer_text, "Short Window Hall")
    assert "120-minute" in line and "day 1 (Sat)" in line
    assert not CJK.search(line) and not CODE.search(line), line
