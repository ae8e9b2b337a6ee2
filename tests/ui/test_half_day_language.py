"""The half-day page in one language at a time (AppTest): ``?lang=en`` renders it in English and ``?lang=zh`` in
Chinese whatever language the goal is written in — labels, the stage log, the plans, the risks, the memory panel
and the reservation flow — with the places named in the page's language (the other name in a tooltip) and no code,
``None`` or internal place id in the main view. The sidebar's switch re-words a shown result without planning again.

The page is driven as in tests/ui/test_half_day_page.py (its fixtures: stage 1 is a small reader of the phrases
used here, every other stage is real)."""

from __future__ import annotations

import json
import re

import pytest

from core.words import halfday as words
from tests.ui import test_half_day_page as hd
from tests.ui.test_half_day_page import GOAL_EN, GOAL_ZH, cards, folium_maps, main_text, node_texts, plan

page = hd.page  # the half-day page's fixtures, opened in this module's ``page_lang``
faults = hd.faults

pytestmark = pytest.mark.ui

CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
#: Latin words a Chinese page may show: names of services and data sources, and the language switch
LATIN_OK = {"OSRM", "Valhalla", "OSM", "OpenStreetMap", "AMap", "English"}
KEYED = ("text_area", "text_input", "button", "slider", "number_input", "multiselect", "checkbox", "selectbox",
         "date_input")  # fmt: skip


@pytest.fixture
def page_lang(request) -> str:
    return getattr(request, "param", "en")


def labels(at) -> dict[str, str]:
    """The label (and, for an example, the goal it writes) of every keyed widget on the page."""
    found = {}
    for kind in KEYED:
        for widget in at.get(kind):
            if widget.key:
                found[widget.key] = widget.label
    return found


def all_texts(at) -> str:
    """The main view's words and every keyed widget's label, the tabs' names included."""
    tabs = [tab.label for tab in at.tabs]
    return "\n".join([main_text(at), *labels(at).values(), *tabs])


def latin_words(text: str) -> set[str]:
    plain = re.sub(r":material/\w+:", "", text)
    return {w for w in LATIN_WORD.findall(plain) if w not in LATIN_OK}


def no_codes_no_none_no_ids(at, result) -> None:
    text = main_text(at)
    assert "None" not in text and "null" not in text
    for p in result.plans:
        for s in p.steps:
            assert s.place_id not in text
    codes = {c for table in words.TABLES.values() for c in table if "_" in c or c.isupper()}
    leaked = sorted(c for c in codes if re.search(rf"(?<![\w/-]){re.escape(c)}(?![\w-])", text))
    assert not leaked, leaked
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), re.findall(r"\b[a-z]+_[a-z_]+\b", text)


def stage_logs(at) -> list:
    """The page's stage log (st.status blocks)."""
    return at.get("status") or [b for b in at.main.children.values() if getattr(b, "type", "") == "status"]


def map_tooltips(at) -> str:
    return "\n".join(m["script"] for m in folium_maps(at))


@pytest.mark.parametrize("page_lang", ["en"], indirect=True)
def test_lang_en_renders_the_half_day_page_in_english_for_a_chinese_goal(page):
    at = page
    assert at.session_state["ui_lang"] == "en"
    form = labels(at)
    assert form["hd_goal"] == "What would you like to do?"
    assert form["hd_origin"] == "Start from (optional)"
    assert form["hd_plan"] == "Plan my half day"
    assert form["hd_example_kids"] == "Tomorrow afternoon with my 6-year-old: a museum, then some local food"
    assert at.title[0].value.endswith("Half-day planner")
    at.button(key="hd_example_rain").click().run()  # an example writes its goal in the page's language
    assert at.text_area(key="hd_goal").value.startswith("Rainy Saturday afternoon")

    at = plan(at, GOAL_ZH)
    assert at.session_state["hd_run"]["done"].type == "plans", at.session_state["hd_run"]["done"]
    result = at.session_state["hd_result"]
    assert result.goal.language == "zh"  # the goal is Chinese; the page is not
    texts = cards(at, result)
    assert [body.split("\n")[0] for body in texts] == [f"#### Option {n}" for n in range(1, len(texts) + 1)]
    assert all("Score" in body and "Feasibility" in body for body in texts)
    for p in result.plans:  # every stop by its English name, in visiting order
        assert all(s.name_en for s in p.steps)
        assert " → ".join(s.name_en for s in p.steps) in "\n".join(texts)
    text = main_text(at)
    assert "**Your goal:** " in text and "museums" in text and "local food" in text
    assert {k: v for k, v in labels(at).items() if k.startswith("hd_w_")} == {
        "hd_w_T": "Time fit", "hd_w_D": "Route", "hd_w_P": "People fit", "hd_w_C": "Cost", "hd_w_S": "Experience",
    }  # fmt: skip
    assert [tab.label for tab in at.tabs] == ["My reservations", "Memory"]
    everything = all_texts(at)
    assert not CJK.search(everything), sorted(set(CJK.findall(everything)))
    no_codes_no_none_no_ids(at, result)

    # the maps: English names on the pins, the Chinese name in each pin's tooltip, the note in English
    script = map_tooltips(at)
    for p in result.plans:
        for s in p.steps:
            assert s.name_en.replace("'", "\\u0027") in script or s.name_en.replace("'", "&#x27;") in script
            assert s.name_zh in script
    assert "lines are straight estimates" in script and "直线估算" not in script


@pytest.mark.parametrize("page_lang", ["zh"], indirect=True)
def test_lang_zh_renders_the_half_day_page_in_chinese_for_an_english_goal(page):
    at = page
    assert at.session_state["ui_lang"] == "zh"
    form = labels(at)
    assert form["hd_goal"] == "你想怎么过这半天?"
    assert form["hd_plan"] == "规划我的半天"
    assert form["hd_example_pair"] == "明天下午,两个大人,一个博物馆和本地美食"
    at = plan(at, GOAL_EN)
    result = at.session_state["hd_result"]
    assert result.goal.language == "en"
    texts = cards(at, result)
    assert [body.split("\n")[0] for body in texts] == [f"#### 方案 {n}" for n in range(1, len(texts) + 1)]
    assert all("综合得分" in body and "可行度" in body for body in texts)
    for p in result.plans:
        assert " → ".join(s.name_zh for s in p.steps) in "\n".join(texts)
    text = main_text(at)
    assert "**你的目标:** " in text and "博物馆" in text and "本地美食" in text
    assert [tab.label for tab in at.tabs] == ["我的预订", "记忆"]
    everything = all_texts(at)
    for name in {s.name_zh for p in result.plans for s in p.steps}:  # a Chinese name may hold a brand (Manner)
        everything = everything.replace(name, "")
    assert latin_words(everything) == set(), latin_words(everything)
    no_codes_no_none_no_ids(at, result)
    script = map_tooltips(at)
    note = json.dumps("连线为直线估算")[1:-1]  # the note is written into the map's script as JSON
    assert ("连线为直线估算" in script or note in script) and "lines are straight estimates" not in script


@pytest.mark.parametrize("page_lang", ["zh"], indirect=True)
def test_the_switch_rewords_the_shown_plans_without_planning_again(page):
    at = plan(page, GOAL_ZH)
    result = at.session_state["hd_result"]
    events = at.session_state["hd_run"]["events"]
    assert cards(at, result)[0].startswith("#### 方案 1")
    at.radio(key="ui_lang_choice").set_value("en").run()
    assert not at.exception, at.exception
    assert at.query_params["lang"] == "en"
    assert at.session_state["hd_run"]["events"] is events  # the same run, worded again
    texts = cards(at, result)
    assert texts[0].startswith("#### Option 1")
    assert not CJK.search(main_text(at)), sorted(set(CJK.findall(main_text(at))))
    log = "\n".join(t for s in stage_logs(at) for t in node_texts(s))
    assert "How it was planned" in log and "1/7 · Understanding your goal" in log and "Tool: " in log


@pytest.mark.parametrize("page_lang", ["en"], indirect=True)
def test_the_reservation_flow_of_a_step_speaks_english_with_the_venues_english_name(page):
    from datetime import time

    at = plan(page, GOAL_ZH)
    result = at.session_state["hd_result"]
    found = [(p, i, s) for p in result.plans for i, s in enumerate(p.steps) if s.bookable and s.start <= time(15, 30)]
    assert found, "a museum that needs booking is among the steps"
    p, i, step = found[0]
    key = f"hd_{result.trace_id}_{p.plan_id}_{step.place_id}"
    assert f"Reserve {step.name_en}" in [e.label for e in at.expander]
    form = labels(at)
    assert (form[f"{key}_date"], form[f"{key}_time"], form[f"{key}_party"]) == ("Date", "Time", "Party")
    assert form[f"{key}_check"] == "Check availability"
    at.button(key=f"{key}_check").click().run()
    assert not at.exception, at.exception
    text = main_text(at)
    assert f"You are about to reserve **{step.name_en}, " in text
    assert "Cancellation: " in text and "This is a demo booking" in text
    form = labels(at)
    assert form[f"{key}_book"] == "Confirm booking"
    assert form[f"{key}_consent"].startswith(f"I agree to book {step.name_en}, ")
    everything = all_texts(at)
    assert not CJK.search(everything), sorted(set(CJK.findall(everything)))
    at.checkbox(key=f"{key}_consent").check().run()
    at.button(key=f"{key}_book").click().run()
    assert at.button(key=f"{key}_dialog_yes").label == "Yes, book it"
    at.button(key=f"{key}_dialog_yes").click().run()
    assert not at.exception, at.exception
    assert any(s.value == "Booked." for s in at.success)
    text = main_text(at)
    assert "Status: **confirmed**" in text and f"What: {step.name_en}, " in text
    assert not CJK.search(all_texts(at)), sorted(set(CJK.findall(all_texts(at))))
    assert json.dumps(step.place_id) not in text


@pytest.mark.parametrize("page_lang", ["zh"], indirect=True)
def test_a_quick_answer_is_labelled_in_the_pages_language_and_sent_beside_the_goal(page, monkeypatch):
    hd.pin_clock(monkeypatch, hd.next_thursday(10))
    goal = "A museum and some local food"  # English, without a time: the planner asks when
    at = plan(page, goal)
    assert at.session_state["hd_run"]["done"].type == "clarify"
    assert "你想什么时候出发?" in main_text(at)
    quick = {b.key: b.label for b in at.button if (b.key or "").startswith("hd_quick_")}
    assert quick == {"hd_quick_this_afternoon": "今天下午", "hd_quick_tomorrow_morning": "明天上午",
                     "hd_quick_saturday_afternoon": "周六下午"}  # fmt: skip
    at.button(key="hd_quick_saturday_afternoon").click().run()
    assert not at.exception, at.exception
    assert at.text_area(key="hd_goal").value == goal  # the words stay; the window goes beside them
    assert at.session_state["hd_run"]["done"].type == "plans", at.session_state["hd_run"]["done"]
    result = at.session_state["hd_result"]
    assert result.goal.language == "en" and result.goal.text == goal and result.goal.window.date.weekday() == 5
    assert cards(at, result)[0].startswith("#### 方案 1")


def test_a_start_place_of_the_pack_is_named_in_the_pages_language_with_the_other_in_the_tooltip():
    from components.halfday.cards import origin_name
    from core.app import AppServices
    from core.models.halfday.plans import OriginPoint

    ctx = AppServices().context(region="shanghai")
    square = next(p for p in ctx.region.places if p.name_zh == "人民广场")
    start = OriginPoint(name="人民广场", lon=square.lon, lat=square.lat, source="offline:gazetteer")
    assert origin_name(ctx, start, "en") == (square.name_en, "人民广场")
    assert origin_name(ctx, start, "zh") == ("人民广场", square.name_en)
    typed = OriginPoint(name="虹桥路 1 号", lon=121.4, lat=31.2, source="offline:gazetteer")  # not a pack place
    assert origin_name(ctx, typed, "en") == ("虹桥路 1 号", "")
