"""ICS export: RFC 5545 structure, escaping, CRLF, folding, TZID and UTC times."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from core.config import Settings
from core.geo.registry import make_provider
from core.itinerary.ics import escape_text, fold_line, itinerary_to_ics
from core.itinerary.pipeline import plan_itinerary
from core.models.itinerary import TripRequest
from tests.support.itinerary_packs import MONDAY, TUESDAY, trip, write_itinerary_pack

STAMP = datetime(2025, 5, 1, 8, 0, tzinfo=UTC)
ODD_NAME = "Tea, Cake; and \\ more\nsecond line"
LONG_NAME = "上海市黄浦区中山东一路外滩观景平台与历史建筑群长长长长长长长长长的名字" * 2


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    settings = Settings(data_dir=write_itinerary_pack(tmp_path_factory.mktemp("data")), region="itintest")
    provider = make_provider("offline", settings=settings)
    payload = trip(
        [
            "i-bund",
            "i-pearl",
            {"name": ODD_NAME, "lon": 121.478, "lat": 31.232, "key": "odd"},
            {"name": LONG_NAME, "lon": 121.47, "lat": 31.22, "key": "long"},
        ],
        days=[MONDAY, TUESDAY],
    )
    return plan_itinerary(TripRequest.model_validate(payload), provider=provider, settings=settings)


def unfold(text: str) -> list[str]:
    return text.replace("\r\n ", "").split("\r\n")[:-1]


def test_structure_crlf_and_folding(result):
    ics = itinerary_to_ics(result, generated_at=STAMP)
    assert ics.endswith("\r\n") and "\n" not in ics.replace("\r\n", "")
    raw = ics.encode("utf-8").split(b"\r\n")[:-1]
    for line in raw:
        assert len(line) <= 75
        line.decode("utf-8")  # folding never splits a character
    lines = unfold(ics)
    assert lines[0] == "BEGIN:VCALENDAR" and lines[-1] == "END:VCALENDAR"
    assert "VERSION:2.0" in lines and any(x.startswith("PRODID:") for x in lines)
    for comp in ("VCALENDAR", "VEVENT", "VTIMEZONE"):
        assert lines.count(f"BEGIN:{comp}") == lines.count(f"END:{comp}")
    n_events = sum(1 for d in result.days for e in d.entries if e.kind in {"visit", "lunch"})
    assert lines.count("BEGIN:VEVENT") == n_events
    uids = [x for x in lines if x.startswith("UID:")]
    assert len(set(uids)) == len(uids) == n_events
    assert all(x == "DTSTAMP:20250501T080000Z" for x in lines if x.startswith("DTSTAMP:"))


def test_text_is_escaped_and_long_lines_fold_back(result):
    lines = unfold(itinerary_to_ics(result, generated_at=STAMP))
    assert "SUMMARY:Tea\\, Cake\\; and \\\\ more\\nsecond line" in lines
    assert f"SUMMARY:{LONG_NAME}" in lines


def test_local_times_carry_tzid_with_a_vtimezone(result):
    lines = unfold(itinerary_to_ics(result, generated_at=STAMP))
    assert "TZID:Asia/Shanghai" in lines and "TZOFFSETTO:+0800" in lines
    first_visit = next(e for d in result.days for e in d.entries if e.kind == "visit")
    assert f"DTSTART;TZID=Asia/Shanghai:{first_visit.start:%Y%m%dT%H%M%S}" in lines


def test_utc_times(result):
    lines = unfold(itinerary_to_ics(result, use_utc=True, generated_at=STAMP))
    assert not any(x.startswith("BEGIN:VTIMEZONE") for x in lines)
    first_visit = next(e for d in result.days for e in d.entries if e.kind == "visit")
    utc = first_visit.start.astimezone(UTC)
    assert f"DTSTART:{utc:%Y%m%dT%H%M%S}Z" in lines
    assert all(re.fullmatch(r"DT(START|END):\d{8}T\d{6}Z", x) for x in lines if x.startswith(("DTSTART", "DTEND")))


def test_travel_events_are_optional(result):
    with_travel = unfold(itinerary_to_ics(result, include_travel=True, generated_at=STAMP))
    n = sum(1 for d in result.days for e in d.entries if e.kind in {"visit", "lunch", "travel"})
    assert with_travel.count("BEGIN:VEVENT") == n


def test_a_zone_with_daylight_saving_gets_both_observances(result):
    berlin = result.model_copy(update={"timezone": "Europe/Berlin"})
    lines = unfold(itinerary_to_ics(berlin, generated_at=STAMP))
    assert "BEGIN:DAYLIGHT" in lines and "BEGIN:STANDARD" in lines
    assert "TZOFFSETTO:+0200" in lines and "TZOFFSETTO:+0100" in lines


def test_helpers():
    assert escape_text("a,b;c\\d\ne") == "a\\,b\\;c\\\\d\\ne"
    folded = fold_line("X" * 200)
    parts = folded.split("\r\n")
    assert all(len(p.encode()) <= 75 for p in parts) and all(p.startswith(" ") for p in parts[1:])
    assert folded.replace("\r\n ", "") == "X" * 200


def test_a_travel_event_on_straight_line_figures_calls_them_straight_line_estimates(result):
    from core.app.itinerary import ics
    from core.words.itinerary_ics import ics_description

    travel = [e for d in result.days for e in d.entries if e.kind == "travel"]
    assert travel and {e.source for e in travel} == {"offline_estimate"}
    dumped = result.model_dump(mode="json")  # the CLI's and the agent's JSON say it as a field
    assert dumped["straight_line_estimate"] is True
    assert type(result).model_validate(dumped).straight_line_estimate is True
    lines = unfold(ics(result, include_travel=True, generated_at=STAMP, lang="en"))
    described = [x for x in lines if x.startswith("DESCRIPTION:") and "min planned" in x]
    assert len(described) == len(travel)
    assert all("straight-line estimate" in x and "offline_estimate" not in x for x in described)
    # the calendar in the reader's language
    assert "直线估算" in ics_description(travel[0], "zh")
    assert "straight-line estimate" in ics_description(travel[0], "en")


@pytest.mark.parametrize(
    ("lang", "travel", "priority", "lunch"),
    [("en", "Travel: ", "Priority: ", "Lunch break"), ("zh", "路程：", "优先级：", "午餐休息")],
)
def test_the_calendars_words_come_from_the_catalogs_in_the_readers_language(result, lang, travel, priority, lunch):
    """Issue 31: the core lays the events out and words nothing; the use case titles and describes them in ``lang``."""
    from core.app.itinerary import ics

    bare = unfold(itinerary_to_ics(result, include_travel=True, generated_at=STAMP))
    assert not any(x.startswith("DESCRIPTION:") for x in bare)  # no English built in the core
    assert not any(x.startswith("SUMMARY:Travel") for x in bare)
    lines = unfold(ics(result, include_travel=True, generated_at=STAMP, lang=lang))
    n_travel = sum(1 for d in result.days for e in d.entries if e.kind == "travel")
    assert sum(x.startswith(f"SUMMARY:{travel}") for x in lines) == n_travel
    assert any(x.startswith(f"DESCRIPTION:{priority}") for x in lines)
    assert any(x == f"DESCRIPTION:{lunch}" for x in lines)
