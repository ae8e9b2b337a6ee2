"""The code and language sweep without a browser (issue 32): every page of app.py, in Chinese and in English, opened
with AppTest through its main action (plan a demo route, load a trip and optimise it, ask the assistant, read its
decision log on the operator page, plan a half day, run a tiny lab batch), then every text of the main view is read
(markdown, captions, headings, alerts, metrics, widget and section labels, and every cell and header of its tables)
and checked by tests/support/sweep_checks.py: no code, no ``None``/``True``/``False``, no dict or raw JSON, no
place id, and not the other language. Only the collapsed "raw data (for debugging)" expander is exempt.

The browser sweep (tests/ui/test_sweep_browser.py) reads what Chromium draws; this one also reads the tables a
browser draws on a canvas, and runs in the non-browser suite."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from core.i18n import t
from tests.conftest import APP
from tests.support.paths import ROOT
from tests.support.sweep_checks import CHINESE_NAMES, ENGLISH, PLACE_IDS, problems_in
from tests.support.ui_flows import AGENT_QUESTION, LAB_BATCH

pytestmark = pytest.mark.ui

LANGS = ("zh", "en")


def open_page(page: str, lang: str):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["lang"] = lang
    at.run()
    at.switch_page(page)
    at.run()
    return ok(at)


def ok(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


# --- the main actions ------------------------------------------------------------------------------------------------
def home(lang: str):
    return open_page("pages/home.py", lang)


def route_planner(lang: str):
    at = open_page("pages/route_planner.py", lang)
    at.selectbox(key="scenario").set_value("sightseeing-day")
    ok(at.button(key="load_scenario").click().run())
    ok(at.button(key="plan").click().run())
    assert at.session_state["route_result"] is not None
    return at


def itinerary(lang: str):
    at = open_page("pages/itinerary.py", lang)
    ok(at.button(key="trip_load").click().run())
    ok(at.button(key="optimise").click().run())
    assert at.session_state["it_result"] is not None
    return at


def agent_console(lang: str):
    at = open_page("pages/agent_console.py", lang)
    ok(at.chat_input(key="agent_prompt").set_value(AGENT_QUESTION[lang]).run())
    assert len(at.session_state["agent_history"]) == 1
    return at


def operator(lang: str):
    at = agent_console(lang)  # a turn of this session, whose decision log the operator page shows
    at.switch_page("pages/operator.py")
    return ok(at.run())


def half_day(lang: str):
    at = open_page("pages/half_day.py", lang)
    ok(at.button(key="hd_example_kids").click().run())
    ok(at.button(key="hd_plan").click().run())
    return at


def strategy_lab(lang: str):
    at = open_page("pages/strategy_lab.py", lang)
    at.radio(key="lab_source").set_value("path").run()
    ok(at.text_input(key="lab_batch_path").set_value(str(ROOT / "data" / "batches" / LAB_BATCH)).run())
    ok(at.number_input(key="lab_limit").set_value(2).run())
    at.multiselect(key="lab_optimisers").set_value(["project", "nearest_neighbour"])
    ok(at.button(key="lab_run").click().run())
    assert at.session_state["lab_result"] is not None
    return at


PAGES: dict[str, Callable[[str], object]] = {
    "home": home,
    "route_planner": route_planner,
    "itinerary": itinerary,
    "agent_console": agent_console,
    "operator": operator,
    "half_day": half_day,
    "strategy_lab": strategy_lab,
}


# --- reading the main view -------------------------------------------------------------------------------------------
def table_texts(node, lang: str) -> list[str]:
    """A table's headers and cells as the page shows them: a column's label from its column_config (else its name),
    hidden columns and those outside the column order left out. Not read: a table the person edits (what they typed
    is theirs), a true/false column (drawn as ticks), and in English a cell that is a place's Chinese name by itself
    (its local name, beside its English one; inside a sentence it is still found)."""
    if getattr(node.proto, "editing_mode", 0):  # st.data_editor: the person's own input
        return []
    frame = node.value
    config = json.loads(node.proto.columns) if getattr(node.proto, "columns", "") else {}
    order = list(getattr(node.proto, "column_order", []) or [])
    texts: list[str] = []
    for name in frame.columns:
        column = config.get(str(name), {})
        if column.get("hidden") or (order and str(name) not in order) or frame[name].dtype == bool:
            continue
        texts.append(str(column.get("label", name)))
        cells = (str(v) for v in frame[name].astype(object))
        texts += [c for c in cells if lang != "en" or c not in CHINESE_NAMES]
    return texts


def view_texts(node, lang: str) -> list[str]:
    """Every text under ``node`` a person reads, but the raw-data expander's."""
    from streamlit.testing.v1 import element_tree as et

    label = getattr(node, "label", None)
    if isinstance(node, et.Expander) and label == t("common.debug", lang):
        return []
    out: list[str] = [label] if isinstance(label, str) else []
    if isinstance(node, et.Block):
        for child in node.children.values():
            out += view_texts(child, lang)
    elif isinstance(node, et.Metric):
        out.append(str(node.value))
    elif isinstance(node, (et.Dataframe, et.Table)):
        out += table_texts(node, lang)
    elif isinstance(node, (et.Markdown, et.AlertBase, et.HeadingBase, et.Text, et.Code, et.Json, et.Exception)):
        out.append(str(node.value))
    return out


def test_the_checks_catch_what_they_are_for():
    """The sweep's checks find each kind of leak (and the pack ids and catalog sentences are really loaded)."""
    assert {"sh-yuyuan-garden", "sh-bund"} <= PLACE_IDS and any(i.startswith("hel-") for i in PLACE_IDS)
    assert "Plans ready" not in ENGLISH  # two words: too short to be told from a name
    assert problems_in("why: local_food", "en") == {"code": ["local_food"]}
    leaks = problems_in(
        "Reason: CLOSED_ON_DAY for sh-yuyuan-garden · price None · nan km · open: True\n{'stop': 1}\n"
        'File "x.py", line 3',
        "en",
    )
    assert set(leaks) == {"code", "None", "True/False", "nan", "place id", "raw JSON", "traceback"}
    assert leaks["code"] == ["CLOSED_ON_DAY"] and leaks["place id"] == ["sh-yuyuan-garden"]
    assert problems_in("设置 OMNI_AMAP_KEY 即可使用高德", "zh") == {}
    assert set(problems_in("外滩 Bund", "en")) == {"Chinese"}
    assert problems_in("the Bund (外滩)", "en") == {} and set(problems_in("the Bund (规划完成)", "en")) == {"Chinese"}
    english = next(iter(sorted(ENGLISH)))
    assert set(problems_in(f"规划完成 {english}", "zh")) == {"English sentence"}


def test_the_reader_skips_only_the_raw_data_expander():
    """The raw data's codes are not read; the same codes anywhere else in the view are."""
    from streamlit.testing.v1 import AppTest

    def page() -> None:
        import streamlit as st

        from components.debug_view import render_raw

        st.markdown("Planned.")
        with st.expander("Details"):
            st.caption("status OK_BUT_LATE")
        st.data_editor({"stop": ["外滩 DROP_ME"]}, key="typed")  # what the person typed: theirs
        st.dataframe({"name": ["The Bund"], "other name": ["外滩"], "note": ["外滩 is open"], "locked": [False]})
        st.dataframe({"why": ["None"], "open": ["True"]})  # words that are Python's, in a text column
        render_raw(["reason CLOSED_ON_DAY"], data={"poi": "sh-bund"}, key="raw", lang="en")

    at = AppTest.from_function(page).run()
    text = "\n".join(view_texts(at.main, "en"))
    assert "Planned." in text and "OK_BUT_LATE" in text and "外滩 is open" in text and "DROP_ME" not in text
    assert "\n外滩\n" not in text  # the local name alone in its cell
    assert set(problems_in(text, "en")) == {"code", "None", "True/False", "Chinese"}  # found where they are text
    assert "CLOSED_ON_DAY" not in text and "sh-bund" not in text


CASES = [(name, lang) for name in PAGES for lang in LANGS]


@pytest.mark.parametrize(("name", "lang"), CASES, ids=[f"{n}-{lang}" for n, lang in CASES])
def test_the_main_view_speaks_the_users_language_not_the_codes(leaflet_static, name, lang):
    at = PAGES[name](lang)
    text = "\n".join(view_texts(at.main, lang))  # type: ignore[attr-defined]
    assert len(text) > 200, text  # the page and its result were read
    assert problems_in(text, lang) == {}, f"{name} ({lang})"
