"""Stage 1's rule parser against tests/data/halfday_goals.jsonl: hand-written goals in Chinese, English and both, each
with what its words determine (written before the parser), at several 'now's so relative dates and past windows are
exercised; every line must hold. Then properties: any text up to 1,000 characters gives a valid goal, a longer one is
a structured error."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import InputError
from core.halfday.goal import decompose_goal
from core.models.halfday.goal import DecomposedGoal

DATA = Path(__file__).resolve().parent.parent / "data" / "halfday_goals.jsonl"
LINES = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
SHANGHAI = timezone(timedelta(hours=8))


def check(line: dict) -> list[str]:
    """What differs between the parser's answer and the line's expectation (empty when the line holds)."""
    expect, now = line["expect"], datetime.fromisoformat(line["now"])
    if "error" in expect:
        try:
            decompose_goal(line["text"], now=now)
        except InputError as exc:
            return [] if exc.code == expect["error"] and exc.field == "goal" else [f"error {exc.code} {exc.field}"]
        return [f"no error, expected {expect['error']}"]
    goal = decompose_goal(line["text"], now=now)
    bad: list[str] = []

    def differs(name: str, got, want) -> None:
        if got != want:
            bad.append(f"{name}: got {got!r}, expected {want!r}")

    if "window" in expect:
        w = goal.window
        got = None if w is None else {"date": w.date.isoformat(), "start": w.start.strftime("%H:%M"),
                                      "end": w.end.strftime("%H:%M")}  # fmt: skip
        differs("window", got, expect["window"])
        if expect["window"] is not None:
            differs("missing", goal.missing, [])
    if "missing" in expect:
        differs("missing", goal.missing, expect["missing"])
    if "language" in expect:
        differs("language", goal.language, expect["language"])
    for key, want in expect.get("party", {}).items():
        differs(f"party.{key}", getattr(goal.party, key), want)
    for key, want in expect.get("constraints", {}).items():
        got = getattr(goal.constraints, key)
        differs(f"constraints.{key}", sorted(got) if isinstance(got, list) else got,
                sorted(want) if isinstance(want, list) else want)  # fmt: skip
    if "preferences" in expect and not set(expect["preferences"]) <= set(goal.preferences):
        bad.append(f"preferences: got {goal.preferences}, expected at least {expect['preferences']}")
    if "avoid" in expect:
        differs("avoid", sorted(goal.avoid), sorted(expect["avoid"]))
    if "named_places" in expect:
        differs("named_places", goal.named_places, expect["named_places"])
    if "wishes" in expect:  # every wish said, in order: [kind, code] or ["unread", the words kept]
        differs("wishes", [[w.kind, w.code or w.phrase] for w in goal.wishes], expect["wishes"])
    if "diet_eat" in expect:  # each diet said: a meal to have that way (true) or a limit only (false)
        differs("diet_eat", {w.code: w.eat for w in goal.wishes if w.kind == "diet"}, expect["diet_eat"])
    if "assumed" in expect and not set(expect["assumed"]) <= set(goal.assumed):
        bad.append(f"assumed: got {goal.assumed}, expected at least {expect['assumed']}")
    return bad


def test_the_data_file_is_large_and_bilingual():
    chinese = sum(1 for line in LINES if any("\u4e00" <= ch <= "\u9fff" for ch in line["text"]))
    english = sum(1 for line in LINES if not any("\u4e00" <= ch <= "\u9fff" for ch in line["text"])
                  and any(ch.isascii() and ch.isalpha() for ch in line["text"]))  # fmt: skip
    assert len(LINES) >= 150
    assert chinese >= 100 and english >= 100, (chinese, english)
    assert len({line["now"] for line in LINES}) >= 6  # weekdays, weekends, morning, afternoon, evening


def test_every_line_of_the_data_file_holds():
    failures = {i + 1: (line["text"][:60], diff) for i, line in enumerate(LINES) if (diff := check(line))}
    rate = 1 - len(failures) / len(LINES)
    print(f"\nstage 1 rules: {len(LINES) - len(failures)}/{len(LINES)} lines hold ({rate:.1%})")
    assert not failures, "\n".join(f"line {n}: {text!r}: {diff}" for n, (text, diff) in failures.items())


# ---- the length limit and the window against now ------------------------------------------------------------------
TUESDAY_10 = datetime(2026, 11, 24, 10, 0, tzinfo=SHANGHAI)


def test_a_goal_of_1000_characters_is_read_and_one_more_is_a_structured_error():
    at_limit = "明天下午去外滩" + "。" * 993
    assert decompose_goal(at_limit, now=TUESDAY_10).named_places == ["外滩"]
    with pytest.raises(InputError) as caught:
        decompose_goal(at_limit + "。", now=TUESDAY_10)
    assert (caught.value.code, caught.value.field) == ("GOAL_TOO_LONG", "goal")
    assert caught.value.to_dict()["error"]["code"] == "GOAL_TOO_LONG"


@pytest.mark.parametrize(
    ("clock", "start"),
    [((14, 7, 30), "14:15"), ((15, 0, 0), "15:00"), ((15, 0, 1), "15:15"), ((17, 44, 0), "17:45")],
)
def test_a_window_under_way_starts_now_rounded_up_to_the_quarter_hour(clock, start):
    now = datetime(2026, 11, 24, *clock, tzinfo=SHANGHAI)
    goal = decompose_goal("今天下午去博物馆", now=now)
    assert goal.window is not None
    assert (goal.window.start.strftime("%H:%M"), goal.window.end.strftime("%H:%M")) == (start, "18:00")
    assert "start_moved_to_now" in goal.assumed


def test_a_window_with_less_than_a_quarter_hour_left_is_past():
    goal = decompose_goal("this afternoon", now=datetime(2026, 11, 24, 17, 50, tzinfo=SHANGHAI))
    assert (goal.window, goal.missing) == (None, ["time_window_past"])


def test_now_is_read_in_its_own_zone():
    """The same instant in UTC is 02:00 on the 24th in London but 10:00 in Shanghai: 'tomorrow' follows the zone."""
    utc_now = datetime(2026, 11, 24, 2, 0, tzinfo=UTC)
    assert decompose_goal("tomorrow afternoon", now=utc_now).window.date.isoformat() == "2026-11-25"
    late = datetime(2026, 11, 24, 23, 30, tzinfo=SHANGHAI)
    assert decompose_goal("明天上午", now=late).window.date.isoformat() == "2026-11-25"


def test_the_phrase_names_the_words_read_and_the_parser_is_the_rules():
    goal = decompose_goal("周六下午2点到6点带孩子去外滩", now=TUESDAY_10)
    assert goal.window is not None and goal.window.phrase == "周六下午2点到6点"
    assert goal.parser == "rules"
    goal = decompose_goal("Museum on Saturday, with the kids, from 2 to 6pm", now=TUESDAY_10)
    assert goal.window is not None and goal.window.phrase == "on saturday from 2 to 6pm"


# ---- properties ---------------------------------------------------------------------------------------------------
#: pieces people write goals with, so generated text reaches the date, clock, party and budget rules
PIECES = [
    "下午", "上午", "晚上", "中午", "傍晚", "今天", "明天", "后天", "周六", "这周六", "下周日", "12月5日", "12.5", "2点", "３点",
    "半", "一刻", "到", "至", "-", "~", ":", "30", "14:00", "2pm", "noon", "from ", " to ", "between ", " and ", "tomorrow ",
    "next saturday ", "三个小时", "3 hours", "半天", "带", "5岁", "孩子", "两个", "一家三口", "爸妈", "老人", "wife ",
    "kids aged 4 and 9", "人均", "200", "以内", "预算", "¥", "元", "per person", "吃素", "清真", "轮椅", "stroller", "下雨",
    "不想", "逛街", "no ", "museum", "去", "外滩", "visit the Bund", "现在", "前", "by ", "，", " ", "😀", "99999999", "零",
]  # fmt: skip
goal_texts = st.one_of(
    st.text(max_size=1000),
    st.lists(st.sampled_from(PIECES), max_size=60).map("".join).map(lambda s: s[:1000]),
)
nows = st.datetimes(
    min_value=datetime(2020, 1, 1), max_value=datetime(2035, 12, 31), timezones=st.sampled_from([SHANGHAI, UTC])
)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=goal_texts, now=nows)
def test_any_text_up_to_1000_characters_gives_a_valid_goal(text, now):
    goal = decompose_goal(text, now=now)
    again = DecomposedGoal.model_validate(goal.model_dump())  # every field within its schema
    assert again == goal == decompose_goal(text, now=now)  # and the rules are deterministic
    assert (goal.window is None) == bool(goal.missing)
    if goal.window is not None:
        today = now.date()
        assert goal.window.date >= today
        if goal.window.date == today:  # a window today never starts before now
            assert goal.window.start.hour * 60 + goal.window.start.minute >= now.hour * 60 + now.minute
    assert len(goal.party.children_ages) <= goal.party.children and goal.party.seniors <= goal.party.adults
    assert not set(goal.preferences) & set(goal.avoid)
