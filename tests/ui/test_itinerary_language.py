"""The itinerary page in one language at a time (AppTest), and a page that keeps up with the form.

``?lang=en`` renders it in English and ``?lang=zh`` in Chinese, whatever the browser says: the labels of its widgets,
its headings, sentences, metrics and the cells of its tables. ``main_view`` collects every text the page shows
outside the collapsed "Details" section (where codes, formulas, ids and the core's English notes belong), and the
tests assert there is no reason code, ``None`` cell, internal place id or algorithm name in it, and no word of the
other language (place names in the other language are allowed only in the tables' "other name" columns).
Then: a plan is marked stale when the days change; an edit that pushes another place off the plan says so; an
impossible lock is refused with the reason; "Undo last edit" brings the previous plan and selection back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime

import numpy as np
import pandas as pd
import pytest

from core.config import get_settings
from core.packs.loader import load_region
from tests.conftest import APP

pytestmark = pytest.mark.ui

PAGE = "pages/itinerary.py"
CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
#: Latin words a Chinese page may show: names of formats and of services
LATIN_OK = {"JSON", "ICS", "English", "OSM", "AMap", "Valhalla", "OSRM"}
CODE = re.compile(r"\b[A-Z]{2,}(?:_[A-Z]{2,})+\b")  # CLOSED_ON_DAY, PLANNER_INFEASIBLE_HARD_NODES
SNAKE = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")  # offline_estimate, per_day, lunch_policy
EMPTY_CELL = re.compile(r"^(?:None|nan|NaN|<NA>|NaT)$")
ALGORITHMS = ("OR-Tools", "VRPTW", "ceil(", "multi_vehicle", "per_day", "critic")
#: the tables' columns that hold the place's name in the other language
OTHER_NAME = {"other name", "Chinese name", "英文名"}
#: widgets and sections owned by the reservation component (components/reservations.py), tested with it
FOREIGN_KEYS = ("it_res", "it_my")


# --- helpers ---------------------------------------------------------------------------------------------------------


def open_page(lang: str, locale: str):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["lang"] = lang
    at.context["locale"] = locale  # the URL wins over the browser
    at.run()
    assert not at.exception, at.exception
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, at.exception
    return at


def ok(at):
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def load_and_optimise(at, trip: str):
    at.selectbox(key="trip_demo").set_value(trip)
    at.button(key="trip_load").click().run()
    at.button(key="optimise").click().run()
    ok(at)
    return at.session_state["it_result"]


def _foreign(node) -> bool:
    key = str(getattr(node, "key", None) or getattr(getattr(node, "proto", None), "id", "") or "")
    return any(part in key for part in FOREIGN_KEYS)


def _cell(value, empty: str) -> str:
    """What a cell shows: booleans are checkboxes (no text), a missing value the table's placeholder."""
    if isinstance(value, (bool, np.bool_)):
        return ""
    return empty if value is None or value is pd.NA or value != value else str(value)


def _table_texts(node) -> Iterator[tuple[str, str]]:
    """A table's shown headers and the text of its cells (the other-name column's cells aside)."""
    frame = node.value
    if node.type == "dataframe":
        # a missing value shows as "None" unless the table has a placeholder for it
        empty = node.proto.placeholder if node.proto.HasField("placeholder") else "None"
        config = json.loads(node.proto.columns or "{}")
        order = list(node.proto.column_order) or list(frame.columns)
        for col in order:
            label = config.get(col, {}).get("label", col)
            yield "header", str(label)
            if col in OTHER_NAME or label in OTHER_NAME or col not in frame.columns:
                continue
            options = (config.get(col, {}).get("type_config") or {}).get("options") or []
            shown = {o["value"]: o["label"] for o in options if isinstance(o, dict) and "label" in o}
            for cell in frame[col]:  # a select column shows its options' labels
                yield "cell", shown.get(cell, _cell(cell, empty)) if isinstance(cell, str) else _cell(cell, empty)
    else:  # st.table: the headers are the words
        for col in frame.columns:
            yield "header", str(col)
            if col in OTHER_NAME:
                continue
            for cell in frame[col]:
                yield "cell", _cell(cell, "None")


def main_view(at) -> list[tuple[str, str]]:
    """``(kind, text)`` of everything the page shows outside the collapsed Details (the sidebar is the frame's):
    headings, sentences, alerts, metrics, widget labels and options, table headers and cells."""
    found: list[tuple[str, str]] = []

    def walk(node) -> None:
        kind = getattr(node, "type", "")
        if kind == "expander":
            if node.label in ("Details", "详情", "Raw data (for debugging)", "原始数据(调试用)") or _foreign(node):
                return
            found.append(("expander", node.label))
        if _foreign(node):
            return
        if kind in ("title", "subheader", "header", "markdown", "caption", "success", "info", "warning", "error"):
            found.append((kind, str(node.value)))
        elif kind == "metric":
            found.extend([("metric", str(node.label)), ("metric", str(node.value))])
        elif kind in ("dataframe", "table"):
            found.extend(_table_texts(node))
        elif hasattr(node, "label") and kind not in ("expander", "column", "tab"):
            found.append((kind, str(node.label)))
            for option in getattr(node, "options", None) or []:
                found.append((kind + " option", str(option)))
        for child in (getattr(node, "children", None) or {}).values():
            walk(child)

    walk(at.main)
    return found


def plain(text: str) -> str:
    return re.sub(r":material/\w+:", "", text)


def assert_no_codes(texts: list[tuple[str, str]], result) -> None:
    """No reason code, snake_case code, empty cell, algorithm name or internal id in the main view."""
    ids = {p.place_id for p in result.request.places if p.place_id} | {p.key for p in result.request.places}
    ids |= {result.request.hotel.place_id}
    for kind, text in texts:
        shown = plain(text)
        assert not CODE.search(shown), (kind, text)
        assert not SNAKE.search(shown), (kind, text)
        assert not (kind == "cell" and EMPTY_CELL.match(shown.strip())), (kind, text)
        assert "None" not in shown.split(), (kind, text)
        assert not any(a in shown for a in ALGORITHMS), (kind, text)
        assert not any(i in shown for i in ids), (kind, text)


def labels(at) -> dict[str, str]:
    found = {}
    for kind in ("text_input", "selectbox", "button", "checkbox", "radio", "number_input", "toggle", "time_input",
                 "date_input", "select_slider"):  # fmt: skip
        for widget in at.main.get(kind):  # the sidebar is the frame's (its 中文 / English switch is both)
            if widget.key and not _foreign(widget):
                found[widget.key] = widget.label
    return found


def pack_names(result, lang: str) -> dict[str, str]:
    pack = {p.id: p for p in load_region(result.request.region).places}
    return {
        p.key: (pack[p.place_id].name_en if lang == "en" else pack[p.place_id].name_zh) for p in result.request.places
    }


def timeline(at):
    [frame] = [df.value for df in at.dataframe if {"kind", "travel", "slack"} <= set(df.value.columns)]
    return frame


# --- one language at a time ------------------------------------------------------------------------------------------


def test_lang_en_renders_the_itinerary_page_in_english_only(leaflet_static):
    at = open_page("en", "zh-CN")
    form = labels(at)
    assert form["optimise"] == "Optimise"
    assert form["trip_demo"] == "Demo trip" and form["trip_load"] == "Load"
    assert form["trip_days"] == "Days" and form["trip_start_date"] == "Start date"
    assert form["trip_hotel"] == "Hotel (start and end of each day)"
    assert form["pacing"] == "Pacing" and form["trip_mode"] == "Travel mode"
    assert form["lunch_enabled"] == "Lunch break"
    assert at.selectbox(key="trip_mode").options == ["Driving", "Walking", "Cycling"]
    assert at.title[0].value.endswith("Itinerary")

    result = load_and_optimise(at, "shanghai_family_day")
    assert at.selectbox(key="trip_demo").options[at.selectbox(key="trip_demo").index] == "Pudong family day"
    form = labels(at)
    assert form["edit_apply"] == "Apply & re-optimise" and form["edit_undo"] == "Undo last edit"
    assert at.radio(key="edit_action").options == ["Lock to a day or time", "Move to a day", "Remove", "Unlock"]
    for key, label in form.items():
        assert not CJK.search(label), (key, label)

    texts = main_view(at)
    assert_no_codes(texts, result)
    for kind, text in texts:
        assert not CJK.search(text), (kind, text)
    shown = "\n".join(text for _, text in texts)
    assert "Plan ready: 3 of 7 places over 1 day(s); 4 not on the plan." in shown
    names = pack_names(result, "en")
    visits = [e.key for e in result.days[0].entries if e.kind == "visit"]  # a visit split by lunch: two rows
    assert [n for n in timeline(at)["name"] if n in names.values()] == [names[k] for k in visits]
    [dropped] = [tb.value for tb in at.table if "Why it is not on the plan" in tb.value.columns]
    zh = pack_names(result, "zh")
    assert list(dropped["Chinese name"]) == [zh[d.key] for d in result.dropped_items]  # the other name beside it
    # the day map names the places in English with the Chinese name in each pin's tooltip; its layers are worded
    [component] = [c for c in at.get("component_instance") if c.proto.component_name == "streamlit_folium.st_folium"]
    args = json.loads(component.proto.json_args)
    script = "\n".join(args[part] for part in ("script", "feature_group", "layer_control"))  # the base, then the day
    assert "Day 1 order" in script and "点位" not in script and "已锁定" not in script
    for key in set(visits):
        assert names[key].replace("'", "&#x27;") in script and zh[key] in script
    # the Gantt chart: its title, axis and legend in English
    [chart] = at.get("vega_lite_chart")
    spec = json.dumps(json.loads(chart.proto.spec), ensure_ascii=False)
    assert "Day 1 · " in spec and "local time" in spec and not CJK.search(spec)
    # the Details keep the codes for analysts
    at.session_state["it_details"] = True  # the raw data is drawn once its section is opened (issue 32)
    at.run()
    assert not at.exception, at.exception
    [details] = [e for e in at.expander if e.label == "Raw data (for debugging)"]
    assert "LOW_PRIORITY_TRADEOFF" in set(details.dataframe[0].value["reason code"])


def test_lang_zh_renders_the_itinerary_page_in_chinese_only(leaflet_static):
    at = open_page("zh", "en-US")
    form = labels(at)
    assert form["optimise"] == "优化行程"
    assert form["trip_demo"] == "示例行程" and form["trip_load"] == "载入"
    assert form["trip_days"] == "天数" and form["trip_hotel"] == "酒店（每天的起点和终点）"
    assert at.selectbox(key="trip_mode").options == ["驾车", "步行", "骑行"]
    assert at.title[0].value.endswith("多日行程规划")

    result = load_and_optimise(at, "shanghai_family_day")
    form = labels(at)
    assert form["edit_undo"] == "撤销上一步调整"
    for key, label in form.items():
        assert CJK.search(label) and not LATIN_WORD.search(plain(label)), (key, label)

    texts = main_view(at)
    assert_no_codes(texts, result)
    zh_names = sorted({p.name_zh for p in load_region("shanghai").places}, key=len, reverse=True)
    for kind, text in texts:
        words = plain(text)
        if LATIN_WORD.search(words):  # a place's own Chinese name may hold a brand ("Jean Georges(外滩三号)")
            for name in zh_names:
                words = words.replace(name, "")
        latin = {w for w in LATIN_WORD.findall(words) if w not in LATIN_OK}
        assert not latin, (kind, text)
    shown = "\n".join(text for _, text in texts)
    assert "行程已排好：7 个地点中的 3 个，共 1 天；4 个没排进去。" in shown
    names = pack_names(result, "zh")
    visits = [e.key for e in result.days[0].entries if e.kind == "visit"]  # a visit split by lunch: two rows
    assert [n for n in timeline(at)["name"] if n in names.values()] == [names[k] for k in visits]
    [dropped] = [tb.value for tb in at.table if "为什么没排进去" in tb.value.columns]
    # each place's own facts: its day, its visit's length, the places that fill that day (issue 23)
    planned = len({e.key for e in result.days[0].entries if e.kind == "visit"})
    assert list(dropped["为什么没排进去"]) == [
        f"第 1 天（周{'一二三四五六日'[result.days[0].date.weekday()]}）只和必去地点一起时，{d.facts['visit_min']} 分钟的游览排得下；"
        f"但当天已排的 {planned} 个地点（其中 {d.facts['higher_on_day']} 个优先级更高）都在时就排不下"
        for d in result.dropped_items
    ]
    assert list(dropped["英文名"]) == [pack_names(result, "en")[d.key] for d in result.dropped_items]

    [chart] = at.get("vega_lite_chart")
    spec = json.dumps(json.loads(chart.proto.spec), ensure_ascii=False)
    assert "第 1 天 · " in spec and "当地时间" in spec

    at.radio(key="ui_lang_choice").set_value("en").run()  # the switch re-words the same plan
    ok(at)
    assert at.session_state["it_result"] is result
    assert at.button(key="optimise").label == "Optimise"
    assert_no_codes(main_view(at), result)


# --- a page that keeps up with the form ------------------------------------------------------------------------------


def test_a_plan_is_marked_stale_when_the_days_change_and_replanning_clears_it(leaflet_static):
    at = open_page("en", "en-US")
    result = load_and_optimise(at, "shanghai_2day_monday_museum")
    assert len(result.days) == 2
    assert not [i.value for i in at.info if "made before you changed" in i.value]

    at.number_input(key="trip_days").set_value(3).run()
    ok(at)
    stale = [i.value for i in at.info]
    assert (
        "This is the 2-day plan made before you changed: number of days. "
        "Press **Optimise** to plan with the form as it is now."
    ) in stale

    at.button(key="optimise").click().run()
    ok(at)
    assert len(at.session_state["it_result"].days) == 3
    assert not [i.value for i in at.info if "made before you changed" in i.value]
    assert at.radio(key="day_select").options == [
        f"Day {i + 1} · {d.date:%a %m-%d} · {d.totals.visits} visits"
        for i, d in enumerate(at.session_state["it_result"].days)
    ]


def test_an_old_error_never_stays_beside_a_new_plan(leaflet_static):
    at = open_page("zh", "zh-CN")
    load_and_optimise(at, "shanghai_family_day")
    at.button(key="places_clear").click().run()
    at.button(key="optimise").click().run()
    assert [e.value for e in at.error] == ["请至少勾选一个地点（或载入一个示例行程）。"]
    assert "it_result" not in at.session_state  # the old plan went with the failed attempt
    at.selectbox(key="trip_demo").set_value("shanghai_family_day")
    at.button(key="trip_load").click().run()
    at.button(key="optimise").click().run()
    ok(at)  # no error beside the new plan
    assert at.session_state["it_result"].status == "ready"


def apply_edit(at, key: str, action: str, day: int | None = None):
    at.selectbox(key="edit_stop").set_value(key).run()
    at.radio(key="edit_action").set_value(action).run()
    if day is not None:
        at.selectbox(key="edit_day").set_value(day)
    at.button(key="edit_apply").click().run()
    assert not at.exception, at.exception
    return at.session_state["it_result"]


def test_an_edit_that_drops_another_place_says_so_and_undo_brings_the_plan_back(leaflet_static):
    at = open_page("en", "en-US")
    before = load_and_optimise(at, "shanghai_family_day")
    on_plan = {e.key for e in before.days[0].entries if e.kind == "visit"}
    assert "sh-century-park" not in on_plan and "sh-science-tech-museum" in on_plan

    after = apply_edit(at, "sh-century-park", "lock", day=0)
    ok(at)
    assert "sh-century-park" in {e.key for e in after.days[0].entries if e.kind == "visit"}
    assert "sh-science-tech-museum" not in {e.key for e in after.days[0].entries if e.kind == "visit"}
    [said] = [w.value for w in at.warning if "left out" in w.value]
    item = next(d for d in after.dropped_items if d.key == "sh-science-tech-museum")
    assert item.reason_code == "DAY_TOO_FULL"  # the locked park is a hard stop of day 1 now
    assert said == (
        "Locking Century Park to day 1 left out Shanghai Science and Technology Museum (its "
        f"{item.facts['visit_min']} min visit fits day 1 ({after.days[0].date:%a}) on its own, but not beside that day's must-visits and "
        "locked places). “Undo last edit” brings the previous plan back."
    )
    assert at.session_state["it_edits"] == [{"kind": "lock", "key": "sh-century-park", "day_index": 0}]

    at.button(key="edit_undo").click().run()
    ok(at)
    restored = at.session_state["it_result"]
    assert restored.model_dump() == before.model_dump()
    assert at.session_state["it_edits"] == []
    assert not [w.value for w in at.warning if "left out" in w.value]
    assert at.button(key="edit_undo").disabled  # one step back, and nothing more to undo


def test_undo_restores_the_previous_plan_its_edits_and_the_day_and_place_chosen(leaflet_static):
    at = open_page("en", "en-US")
    first = load_and_optimise(at, "shanghai_3day_30places")
    assert at.button(key="edit_undo").disabled  # nothing to undo yet
    at.radio(key="day_select").set_value(2).run()
    removed = next(e for e in first.days[2].entries if e.kind == "visit" and e.priority != "must")
    second = apply_edit(at, removed.key, "remove")
    ok(at)
    assert removed.key not in {e.key for d in second.days for e in d.entries if e.kind == "visit"}
    locked = next(e for e in second.days[0].entries if e.kind == "visit" and e.priority != "must")
    third = apply_edit(at, locked.key, "lock", day=1)
    ok(at)
    assert locked.key in {e.key for e in third.days[1].entries if e.kind == "visit"}
    at.radio(key="day_select").set_value(0).run()  # look elsewhere before undoing

    at.button(key="edit_undo").click().run()
    ok(at)
    assert at.session_state["it_result"].model_dump() == second.model_dump()
    assert at.session_state["it_edits"] == [{"kind": "remove", "key": removed.key}]
    assert at.radio(key="day_select").value == 2  # the day shown when the lock was made
    assert at.selectbox(key="edit_stop").value == locked.key
    edits = [df.value for df in at.dataframe if {"action", "place"} <= set(df.value.columns)]
    assert [list(e["action"]) for e in edits] == [["Remove"]]

    at.button(key="edit_undo").click().run()  # and once more: the plan before any edit
    ok(at)
    assert at.session_state["it_result"].model_dump() == first.model_dump()
    assert at.session_state["it_edits"] == []


def test_an_impossible_lock_is_refused_with_the_reason_and_the_plan_stays(leaflet_static):
    at = open_page("zh", "zh-CN")
    before = load_and_optimise(at, "shanghai_2day_monday_museum")
    assert before.days[0].date.weekday() == 0  # day 1 is a Monday: the museum is closed
    museum = next(p for p in load_region("shanghai").places if p.id == "sh-shanghai-museum")
    apply_edit(at, "sh-shanghai-museum", "lock", day=0)
    assert [e.value for e in at.error] == [f"无法把{museum.name_zh}锁定在第 1 天：第 1 天（周一）闭馆。行程保持不变。"]
    assert at.session_state["it_result"] is before or at.session_state["it_result"].model_dump() == before.model_dump()
    assert at.session_state["it_edits"] == []

    at.radio(key="ui_lang_choice").set_value("en").run()
    assert [e.value for e in at.error] == [
        f"Locking {museum.name_en} to day 1 is not possible: closed on day 1 (Mon). The plan is unchanged."
    ]


def test_the_calendar_file_is_worded_in_the_chosen_language(project_root):
    """The ICS export (no widgets): events named and described in Chinese, then in English, from the same plan."""
    from components.itinerary.panels import worded_result
    from components.itinerary.words import names_of
    from core.itinerary.edits import itinerary_from_json
    from core.itinerary.ics import itinerary_to_ics
    from core.words.itinerary_ics import ics_description

    trip = json.loads((project_root / "data" / "trips" / "shanghai_family_day.json").read_text(encoding="utf-8"))
    result = itinerary_from_json(trip, settings=get_settings())
    names = names_of(result.request)
    visits = [e for d in result.days for e in d.entries if e.kind == "visit" and not e.continues_visit]
    for lang, head, must in (("zh", "浦东亲子一日游", "优先级：必去"), ("en", "Pudong family day", "Priority: must")):
        worded = worded_result(result, names, lang)
        stamp = datetime(2027, 3, 6, 2, 0, tzinfo=UTC)
        ics = itinerary_to_ics(worded, generated_at=stamp, describe=lambda e, lang=lang: ics_description(e, lang))
        text = ics.replace("\r\n ", "")
        assert f"X-WR-CALNAME:{head}" in text and f"DESCRIPTION:{must}" in text
        for e in visits:
            assert f"SUMMARY:{pack_names(result, lang)[e.key]}" in text
        descriptions = [line[12:] for line in text.split("\r\n") if line.startswith("DESCRIPTION:")]
        if lang == "zh":
            assert all(CJK.search(d) and not LATIN_WORD.search(d) for d in descriptions), descriptions
        else:
            assert not any(CJK.search(d) for d in descriptions), descriptions


def test_every_reason_code_of_the_core_has_a_sentence_in_both_languages():
    """A new drop reason in core.models.itinerary needs its words before the page can show it."""
    from datetime import date

    from components.itinerary.words import REASON_WORDS, names_of, reason_words
    from core.models.itinerary import DROP_REASONS
    from core.models.itinerary_result import DroppedItem

    assert set(DROP_REASONS) == set(REASON_WORDS)
    trip = {
        "trip_name": "t",
        "region": "shanghai",
        "hotel": {"place_id": "sh-peace-hotel"},
        "days": [{"date": str(date(2026, 6, 1))}, {"date": str(date(2026, 6, 2))}],
        "places": [{"place_id": "sh-shanghai-museum", "priority": "must"}],
    }
    from core.itinerary.edits import itinerary_from_json

    result = itinerary_from_json(trip, settings=get_settings())
    assert names_of(result.request).shown("sh-shanghai-museum", "en") == pack_names(result, "en")["sh-shanghai-museum"]
    seen = {}
    for code in DROP_REASONS:
        item = DroppedItem(key="sh-shanghai-museum", name="x", priority="must", reason_code=code, explanation="",
                           per_day_reasons={0: code, 1: "CLOSED_ON_DAY"}, facts={"visit_min": 120})  # fmt: skip
        for lang in ("zh", "en"):
            words = reason_words(item, result, lang)
            assert words and not CODE.search(words) and "{" not in words, (code, lang, words)
            assert bool(CJK.search(words)) == (lang == "zh"), (code, lang, words)
            seen[(code, lang)] = words
    assert seen[("CLOSED_ON_DAY", "en")] == "closed on day 1 (Mon), day 2 (Tue)"
    assert seen[("CLOSED_ON_DAY", "zh")] == "第 1 天（周一）、第 2 天（周二）闭馆"
    assert seen[("OUTSIDE_OPENING_HOURS", "en")] == (
        "open on day 1 (Mon), but never long enough within the day's hours for a 120-minute visit"
    )
    assert len(set(seen.values())) == 2 * len(DROP_REASONS)  # each code its own sentence
