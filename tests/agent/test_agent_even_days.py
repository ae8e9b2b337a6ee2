"""The agent's two-day plan on the shipped Shanghai pack, as a person reads it: asked on a Saturday evening for "a
2-day trip" (Sunday and Monday, 10:00–20:00), its six suggestions were split four and two (a thin second day)
though three and three fit; the plan now moves a place to the thin day when every place still fits. No day begins
with an 11:30 lunch while a visit fits before it. Its own suggestions that do not fit (the kids' long museums
closing at 17:00, an evening circus show past the day's end) give way to other kid-friendly places that fit; a
place the person named is never swapped: it stays out with its reason and fix."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from core.app.agent import agent_deps
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
        return route_and_run({"message": message, "user_id": "u"}, agent_deps(settings, provider), now=SATURDAY_EVENING)

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


def first_events(response) -> dict[int, str]:
    """Each day's first event after leaving the start (a visit or the lunch)."""
    firsts: dict[int, str] = {}
    for e in response.result.payload.timeline:
        if e["kind"] not in ("travel", "wait"):
            firsts.setdefault(e["day"], e["kind"])
    return firsts


@pytest.mark.parametrize(
    "message",
    ["Plan a 2-day trip in Shanghai", "规划2天上海行程", "plan 2 days in Shanghai with kids", "规划2天上海亲子行程"],
)
def test_no_day_begins_with_lunch(ask, message):
    """Every one of these days has a place open from the morning that ends before 12:30 from a 10:00 start (a short
    park or square, or a long museum that hosts the lunch on site), so none begins with the lunch."""
    response = ask(message)
    assert response.result.status == "OK", response.result.answer_text
    assert set(first_events(response).values()) == {"visit"}, response.result.payload.timeline


@pytest.fixture(scope="module")
def pack():
    from core.packs.loader import load_region

    return load_region("shanghai", ROOT / "data")


SWAP_WORDS = {"en": "In place of suggestions that did not fit these days", "zh": "排不进这几天，已换成"}


@pytest.mark.parametrize(
    ("message", "lang"), [("plan 2 days in Shanghai with kids", "en"), ("规划2天上海亲子行程", "zh")]
)
def test_suggestions_that_do_not_fit_give_way_to_kid_friendly_places_that_do(ask, pack, message, lang):
    """The six first suggestions (150–180 min visits closing about 17:00, a circus show from 19:00 past the 20:00 day
    end) left one place on the Sunday and two on the Monday. Now each day has at least two visits, every one of them
    kid-friendly, and the answer says which suggestions were swapped for which."""
    response = ask(message)
    answer = response.result.answer_text
    assert response.result.status == "OK", answer
    days = day_lines(answer)
    assert sorted(days) == [1, 2] and all(len(days[d]) >= 2 for d in (1, 2)), answer
    visits = {e["key"] for e in response.result.payload.timeline if e["kind"] == "visit"}
    assert visits and all("kid_friendly" in pack.place_by_id(k).tags for k in visits), visits
    assert SWAP_WORDS[lang] in answer
    suggested = {c["place_id"] for c in response.result.payload.candidates}
    assert visits <= suggested  # every visit is one of the (final) suggestions: nothing named, nothing else
    assert "sh-" not in answer and "None" not in answer
    # the swap names the suggestions taken out, none of them planned
    swap_line = next(line for line in answer.splitlines() if SWAP_WORDS[lang] in line)
    taken_out = {p.id for p in pack.places if (p.name_en if lang == "en" else p.name_zh) in swap_line} - visits
    assert taken_out and not taken_out & suggested, swap_line


@pytest.mark.parametrize(
    ("message", "lang"),
    [
        ("plan 2 days in Shanghai with kids, including Shanghai Circus World", "en"),
        ("规划2天上海亲子行程，要去上海马戏城", "zh"),
    ],
)
def test_a_named_place_that_does_not_fit_stays_out_with_its_reason_and_fix(ask, message, lang):
    """Shanghai Circus World's show runs 19:00–21:00 (100 minutes) and the days end at 20:00: named by the person, it
    is not swapped for another place; it stays out, said with the hour the day would have to end for it to fit."""
    response = ask(message)
    answer = response.result.answer_text
    assert response.result.status == "OK", answer
    dropped = {d["key"]: d for d in response.result.payload.dropped_items}
    assert "sh-circus-world" in dropped and dropped["sh-circus-world"]["smallest_fix"] is not None
    name, not_scheduled, fix = (
        ("Shanghai Circus World", "Not scheduled:", "fits if day 1 ends at 21:30")
        if lang == "en"
        else ("上海马戏城", "未安排：", "如果第 1 天到 21:30 才结束，就能排进去")
    )
    line = next(x for x in answer.splitlines() if x.startswith(not_scheduled))
    assert name in line and fix in line
    swap = next((x for x in answer.splitlines() if SWAP_WORDS[lang] in x), "")
    assert name not in swap  # never among the swapped suggestions
    assert "sh-circus-world" not in {c["place_id"] for c in response.result.payload.candidates}
