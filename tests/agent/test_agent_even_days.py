"""The agent's two-day plan on the shipped Shanghai pack has days of a like size when the places allow it: asked on
a Saturday evening for "a 2-day trip" (Sunday and Monday), its six suggestions were split four and two (a thin
second day) though three and three fit; the plan now moves a place to the thin day when every place still fits.
When they cannot all fit, the days stay as the places allow (the kids' long museums, which close at 17:00)."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tests.support.paths import ROOT

#: Saturday evening in Shanghai: the trip's days are Sunday 29 and Monday 30 November 2026
SATURDAY_EVENING = datetime(2026, 11, 28, 20, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


@pytest.fixture(scope="module")
def ask(tmp_path_factory):
    from core.agent import route_and_run
    from core.config import Settings
    from core.geo.registry import make_provider

    tmp = tmp_path_factory.mktemp("agent")
    settings = Settings(
        data_dir=ROOT / "data",
        region="shanghai",
        provider="offline",
        db_url=f"sqlite:///{tmp / 'trips.db'}",
        agent_event_log=tmp / "events.jsonl",
        kb_dir=tmp,
        browse_evidence_dir=tmp / "browse",
    )
    provider = make_provider("offline", region="shanghai", settings=settings)

    def run(message: str):
        return route_and_run(
            {"message": message, "user_id": "u"}, settings=settings, provider=provider, now=SATURDAY_EVENING
        )

    return run


def day_lines(answer: str) -> dict[int, list[str]]:
    """The answer's "Day N date: A → B → C" lines (第N天 in Chinese), as each day's place names."""
    days = {}
    for n, names in re.findall(r"^(?:Day |第)(\d+)(?:天)? ?\d{4}-\d{2}-\d{2}[:：] ?(.+)$", answer, re.M):
        days[int(n)] = [name.strip() for name in names.split("→")]
    return days


@pytest.mark.parametrize("message", ["Plan a 2-day trip in Shanghai", "规划2天上海行程"])
def test_a_two_day_plan_puts_three_places_on_each_day_when_they_fit(ask, message):
    response = ask(message)
    assert response.result.status == "OK", response.result.answer_text
    days = day_lines(response.result.answer_text)
    assert sorted(days) == [1, 2], response.result.answer_text
    assert [len(days[1]), len(days[2])] == [3, 3], days  # was 4 and 2
    assert len(set(days[1]) | set(days[2])) == 6  # every suggestion kept, none twice
    visits = [e for e in response.result.payload.timeline if e["kind"] == "visit" and e.get("part") != 2]
    assert sorted({e["day"] for e in visits}) == [1, 2]
    assert [sum(1 for e in visits if e["day"] == d) for d in (1, 2)] == [3, 3]


def test_when_the_places_do_not_all_fit_the_days_stay_as_the_places_allow(ask):
    """Six long kids' venues (150–180 min, closing at 17:00, an evening circus show past the day's end): the plan
    keeps the three that fit, on the days they fit, and says what it left out; no place is moved off a day to
    even the counts."""
    response = ask("plan 2 days in Shanghai with kids")
    assert response.result.status == "OK", response.result.answer_text
    days = day_lines(response.result.answer_text)
    assert sum(len(v) for v in days.values()) == 3, days
    assert "Not scheduled:" in response.result.answer_text
