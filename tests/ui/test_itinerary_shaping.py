"""The itinerary page's shaping controls (components/itinerary/shape_panel.py, issue 32 X8) with AppTest: a removal,
then a stop put first in its day and a catalogue place added to a day, each on the plan on screen (the removal
holds), with the difference said in words; refusals say the real reason (a closed day; a lock past the day's end)."""

from __future__ import annotations

import re
from datetime import time

import pytest

from core.models.itinerary_result import ItineraryResult

pytestmark = pytest.mark.ui

PAGE = "pages/itinerary.py"
TRIP = "shanghai_2day_monday_museum"  # Monday 10:00-22:00, Tuesday 10:00-18:00


@pytest.fixture(scope="module")
def at(leaflet_static, project_root):
    from streamlit.testing.v1 import AppTest

    app = AppTest.from_file(str(project_root / "app.py"), default_timeout=90)
    app.query_params["lang"] = "en"
    app.run()
    app.switch_page(PAGE)
    app.run()
    assert not app.exception, app.exception
    app.selectbox(key="trip_demo").set_value(TRIP)
    app.button(key="trip_load").click().run()
    app.button(key="optimise").click().run()
    assert not app.exception and not app.error, (app.exception, [e.value for e in app.error])
    return app


def orders(result: ItineraryResult) -> list[list[str]]:
    return [[e.key for e in d.entries if e.kind == "visit" and not e.continues_visit] for d in result.days]


def infos(app) -> list[str]:
    return [i.value for i in app.info]


def errors(app) -> list[str]:
    return [e.value for e in app.error]


def test_reorder_and_add_keep_earlier_edits_and_say_the_difference(at):
    first = at.session_state["it_result"]
    day1 = orders(first)[0]
    removed = next(k for k in day1 if k not in {"sh-bund", "sh-shanghai-museum"})
    at.selectbox(key="edit_stop").set_value(removed).run()
    at.radio(key="edit_action").set_value("remove").run()
    at.button(key="edit_apply").click().run()
    assert not at.exception and not errors(at)
    after_remove = at.session_state["it_result"]
    day1 = orders(after_remove)[0]
    assert removed not in day1 and len(day1) >= 2

    assert "sh-bund" in day1[1:]
    at.selectbox(key="shape_stop").set_value("sh-bund")
    at.selectbox(key="shape_day").set_value(0)
    at.number_input(key="shape_position").set_value(1)
    at.button(key="shape_reorder").click().run()
    assert not at.exception and not errors(at), errors(at)
    shaped = at.session_state["it_result"]
    assert orders(shaped)[0] == ["sh-bund", *(k for k in day1 if k != "sh-bund")]
    assert orders(shaped)[1] == orders(after_remove)[1]
    said = [i for i in infos(at) if i.startswith("Whole trip:")]
    assert len(said) == 1
    travel = shaped.totals.travel_robust_min
    delta = travel - after_remove.totals.travel_robust_min
    assert f"Whole trip: {travel} min on the way ({delta:+d} min)" in said[0]
    assert "Unchanged: day 2 (Tue)" in said[0] and "Day 1" not in said[0].split("\n")[0]

    # a place of the catalogue added to Monday, where it fits best; the removed place stays removed
    at.selectbox(key="shape_place").set_value("sh-nanjing-road")
    at.selectbox(key="shape_add_day").set_value(0)
    at.button(key="shape_add").click().run()
    assert not at.exception and not errors(at), errors(at)
    added = at.session_state["it_result"]
    assert "sh-nanjing-road" in orders(added)[0] and removed not in {k for o in orders(added) for k in o}
    assert [e["kind"] for e in at.session_state["it_edits"]] == ["remove", "reorder", "add"]
    edits = next(df.value for df in at.dataframe if {"action", "place"} <= set(df.value.columns))
    assert list(edits["action"]) == ["Remove", "Put at a position", "Add"]
    assert "Nanjing Road" in edits["place"].iloc[2]
    said = next(i for i in infos(at) if i.startswith("Whole trip:"))
    assert f"{added.totals.visits} stops (+1)" in said


def test_refusals_name_the_real_reason(at):
    before = at.session_state["it_result"]
    # the Science and Technology Museum is shut on Mondays
    at.selectbox(key="shape_place").set_value("sh-science-tech-museum")
    at.selectbox(key="shape_add_day").set_value(0)
    at.button(key="shape_add").click().run()
    assert not at.exception
    assert any("is not possible" in e and "closed on day 1 (Mon)" in e for e in errors(at)), errors(at)
    assert at.session_state["it_result"] is before  # the plan on screen stays

    # Shouning Road opens late: put first, it pushes a later stop of the day past its closing, which is named
    at.selectbox(key="shape_stop").set_value("sh-shouning-crayfish")
    at.selectbox(key="shape_day").set_value(0)
    at.number_input(key="shape_position").set_value(1)
    at.button(key="shape_reorder").click().run()
    refused = [e for e in errors(at) if "is not possible" in e]
    assert len(refused) == 1, errors(at)
    said = re.search(
        r"is not possible: (.+) would be reached at (\d\d:\d\d) on day 1 \(Mon\), outside its opening hours "
        r"\((\d\d:\d\d)–(\d\d:\d\d)\)",
        refused[0],
    )
    assert said is not None, refused[0]
    assert said.group(1) != "Shouning Road Crayfish Street" and said.group(2) > said.group(4)
    assert at.session_state["it_result"] is before

    # The Bund is open round the clock: a 60-minute visit from 17:30 on Tuesday runs past the day's 18:00
    at.selectbox(key="edit_stop").set_value("sh-bund").run()
    at.radio(key="edit_action").set_value("lock").run()
    at.selectbox(key="edit_day").set_value(1)
    at.time_input(key="edit_time").set_value(time(17, 30))
    at.button(key="edit_apply").click().run()
    assert not at.exception
    refused = [e for e in errors(at) if "is not possible" in e]
    assert len(refused) == 1 and "18:00" in refused[0] and "17:30" in refused[0], errors(at)
    assert "opening hours" not in refused[0] and "open on" not in refused[0]


def test_the_difference_and_a_refusal_in_words_in_both_languages(at):
    from components.itinerary.shape_panel import conflict_words, difference_words
    from components.itinerary.words import names_of
    from core.models.itinerary_edit import DayDifference, Measure, PlanDifference, ShapeRefusal

    result = at.session_state["it_result"]
    diff = PlanDifference(
        days=[
            DayDifference(day_index=0, before=Measure(travel_min=80, distance_m=21300, stops=5),
                          after=Measure(travel_min=74, distance_m=19050, stops=6)),
            DayDifference(day_index=1, before=Measure(travel_min=40, distance_m=9000, stops=3),
                          after=Measure(travel_min=40, distance_m=9000, stops=3)),
        ],
        before=Measure(travel_min=120, distance_m=30300, stops=8),
        after=Measure(travel_min=114, distance_m=28050, stops=9),
    )  # fmt: skip
    assert difference_words(diff, result, "en") == [
        "Whole trip: 114 min on the way (-6 min), 28.1 km (-2.2 km), 9 stops (+1)",
        "day 1 (Mon): 74 min on the way (-6 min), 19.1 km (-2.2 km), 6 stops (+1)",
        "Unchanged: day 2 (Tue)",
    ]
    assert difference_words(diff, result, "zh") == [
        "全程：路上 114 分钟（-6 分钟），28.1 公里（-2.2 公里），9 站（+1）",
        "第 1 天（周一）：路上 74 分钟（-6 分钟），19.1 公里（-2.2 公里），6 站（+1）",
        "未变：第 2 天（周二）",
    ]
    late = ShapeRefusal(code="PAST_DAY_END", key="sh-bund", day_index=1, facts={"day_end": "18:00", "finish": "18:40"})
    names = names_of(result.request)
    assert conflict_words(late, result, names, "en") == "day 2 (Tue) would end at 18:40, after its end at 18:00"
    assert conflict_words(late, result, names, "zh") == "第 2 天（周二）将在 18:40 才结束，晚于结束时间 18:00"
