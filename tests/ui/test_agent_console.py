"""The agent console page with AppTest: chat, route card, consent and confirmation buttons, QA run; and the console in
one language at a time (``?lang=en`` / ``?lang=zh``): the answer first, the plan's table in words with the places'
names in that language, one collapsed Details section per turn, buttons that say what they do, a map with a numbered
pin for every stop fitted to them, and earlier turns kept whole."""

from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from core.config import get_settings
from core.geo.registry import make_provider
from tests.support.agent_packs import write_agent_pack
from tests.support.clock import SUITE_NOW, days_after
from tests.support.paths import ROOT as PROJECT_ROOT

pytestmark = pytest.mark.ui

PAGE = str(PROJECT_ROOT / "pages" / "agent_console.py")


@pytest.fixture
def page(tmp_path, monkeypatch, leaflet_static):
    write_agent_pack(tmp_path / "data")
    (tmp_path / "kb").mkdir()
    for k, v in {
        "OMNI_DATA_DIR": str(tmp_path / "data"),
        "OMNI_REGION": "agentcity",
        "OMNI_PROVIDER": "offline",
        "OMNI_DB_URL": f"sqlite:///{tmp_path / 'ui.db'}",
        "OMNI_AGENT_EVENT_LOG": str(tmp_path / "ev.jsonl"),
        "OMNI_KB_DIR": str(tmp_path / "kb"),
    }.items():
        monkeypatch.setenv(k, v)
    get_settings.cache_clear()
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    yield at
    get_settings.cache_clear()


def _metric(at, label):
    """The metric of the latest turn (each turn keeps its own in its details)."""
    return [m.value for m in at.metric if m.label == label][-1]


def test_chat_shows_route_card_and_plan(page):
    page.chat_input(key="agent_prompt").set_value("规划2天上海行程").run()
    assert not page.exception, page.exception
    assert _metric(page, "Route") == "SYSTEM2_REASONING"  # in the details
    assert _metric(page, "Status") == "OK"
    assert any("verifying" in c.value for c in page.caption)  # the status flow, in the details
    columns = [set(d.value.columns) for d in page.dataframe]
    assert any({"day", "time", "what", "note"} <= c for c in columns)  # the timeline, in words
    assert not any("chosen_action" in c for c in columns)  # the decision log is on the operator page
    assert page.get("component_instance")  # the map


def test_consent_button_reruns_with_consent(page):
    page.chat_input(key="agent_prompt").set_value("官网查房").run()
    assert _metric(page, "Status") == "NEED_CONSENT"
    page.button(key="agent_consent").click().run()
    assert not page.exception, page.exception
    assert _metric(page, "Status") == "NEED_MORE_INFO"  # consented, and now it asks for the site's URL
    assert len(page.session_state["agent_history"]) == 2
    page.chat_input(key="agent_prompt").set_value("官网查房").run()  # the next message: the consent holds
    assert _metric(page, "Status") == "NEED_MORE_INFO"
    assert [turn["response"].result.status for turn in page.session_state["agent_history"]] == [
        "NEED_CONSENT", "NEED_MORE_INFO", "NEED_MORE_INFO",
    ]  # fmt: skip


def _reservations(user):
    from core.packs.loader import load_region
    from core.reservations.service import ReservationService

    settings = get_settings()
    service = ReservationService.from_settings(
        settings, load_region("agentcity", settings.data_dir), clock=lambda: SUITE_NOW
    )
    return service, [(r.item_name, r.status) for r in service.reservations_of(user)]


def test_confirmation_button_says_what_it_does_and_books(page):
    page.chat_input(key="agent_prompt").set_value("帮我订和平饭店，明天19:00，两个人").run()
    assert _metric(page, "Status") == "NEED_CONFIRMATION"
    assert page.button(key="agent_confirm").label == "Confirm booking"  # the page's language (English here)
    # the face says the language: a Chinese message on the English page is answered in English (issue 19)
    assert "I will reserve: Peace Hotel" in page.session_state["agent_history"][-1]["response"].result.answer_text
    page.button(key="agent_confirm").click().run()
    assert not page.exception, page.exception
    assert _metric(page, "Status") == "OK"
    confirmed = page.session_state["agent_history"][-1]
    assert confirmed["message"] == "Confirm booking"  # the button's words on screen; the agent got only the id
    user = page.session_state["dashboard_user"]  # the console acts for the dashboard's identity
    assert _reservations(user)[1] == [("和平饭店", "confirmed")]
    page.chat_input(key="agent_prompt").set_value("取消和平饭店的预订").run()
    assert page.button(key="agent_confirm").label == "Confirm cancellation"
    page.button(key="agent_confirm").click().run()
    assert _metric(page, "Status") == "OK"
    assert _reservations(user)[1] == [("和平饭店", "cancelled")]


def test_reservations_made_on_other_pages_are_listed_here(page):
    from datetime import time

    from core.models.reservations import ReservationRequest

    user = page.session_state["dashboard_user"]
    service, _ = _reservations(user)
    day = days_after(3)
    dry = service.dry_run(user, ReservationRequest(item_id="a-museum", date=day, time=time(10, 0), party_size=3))
    service.confirm(user, dry.reservation.id, token=dry.token, idempotency_key="elsewhere", consent=True)
    page.chat_input(key="agent_prompt").set_value("show my bookings").run()
    assert not page.exception, page.exception
    answer = page.session_state["agent_history"][-1]["response"].result.answer_text
    assert "Shanghai Museum" in answer and "3 people" in answer and "confirmed" in answer


def test_the_chat_page_offers_starter_prompts_and_no_operator_tools(page):
    keys = [b.key for b in page.button]
    assert "agent_qa" not in keys and not [e for e in page.expander if e.label in ("Metrics", "运行指标")]
    starters = [b for b in page.button if b.key and b.key.startswith("agent_starter_")]
    assert [b.label for b in starters] == [
        "Plan a 2-day trip in Shanghai",
        "What time does Yu Garden open?",
        "How long from the Bund to Yu Garden?",
        "What's the weather tomorrow?",
    ]
    page.button(key="agent_starter_1").click().run()  # sends its prompt
    assert not page.exception, page.exception
    [turn] = page.session_state["agent_history"]
    assert turn["message"] == "What time does Yu Garden open?"
    assert "Yu Garden" in turn["response"].result.answer_text
    assert not [b for b in page.button if b.key and b.key.startswith("agent_starter_")]  # offered before the first


def test_starter_prompts_follow_the_pages_language(page_in, lang):
    labels_shown = [b.label for b in page_in.button if b.key and b.key.startswith("agent_starter_")]
    assert len(labels_shown) == 4
    assert all(bool(CJK.search(label)) == (lang == "zh") for label in labels_shown)


def test_the_console_answers_with_the_region_and_provider_chosen_in_the_sidebar(tmp_path, monkeypatch, leaflet_static):
    from tests.support.region_packs import write_pack

    write_agent_pack(tmp_path / "data")
    write_pack(tmp_path / "data")  # a second region, "testcity", with its own coordinates
    meta = tmp_path / "data" / "regions" / "testcity" / "region.json"
    meta.write_text(meta.read_text(encoding="utf-8").replace('"zh": "上海"', '"zh": "测试城"'), encoding="utf-8")
    (tmp_path / "kb").mkdir()
    for k, v in {
        "OMNI_DATA_DIR": str(tmp_path / "data"),
        "OMNI_REGION": "agentcity",
        "OMNI_PROVIDER": "offline",
        "OMNI_DB_URL": f"sqlite:///{tmp_path / 'ui.db'}",
        "OMNI_AGENT_EVENT_LOG": str(tmp_path / "ev.jsonl"),
        "OMNI_KB_DIR": str(tmp_path / "kb"),
    }.items():
        monkeypatch.setenv(k, v)
    get_settings.cache_clear()
    try:
        at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60)
        at.run()
        expected = {}
        for region in ("testcity", "agentcity"):  # the two packs place 外滩 and 东方明珠 differently
            services = make_provider("offline", region=region, settings=get_settings())
            a, b = (services.geocode(name)[0] for name in ("外滩", "东方明珠"))
            expected[region] = services.route(a.lonlat, b.lonlat, mode="driving").distance_m
        assert expected["testcity"] != expected["agentcity"]

        def asked(region: str) -> float:
            at.selectbox(key="region").set_value(region).run()
            at.chat_input(key="agent_prompt").set_value("从外滩到东方明珠开车要多久").run()
            assert not at.exception, at.exception
            resp = at.session_state["agent_history"][-1]["response"]
            return next(e for e in resp.result.payload.evidence if e.get("type") == "travel_time")["distance_m"]

        at.switch_page("pages/agent_console.py").run()
        assert asked("testcity") == expected["testcity"]
        assert asked("agentcity") == expected["agentcity"]
    finally:
        import streamlit as st

        st.cache_data.clear()  # the region list and catalogues of this test's data folder must not leak
        st.cache_resource.clear()
        get_settings.cache_clear()


# --- one language at a time ----------------------------------------------------------------------------------
CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")
#: what must never be in the main view: the pack's place ids, route and status codes, Python's None
INTERNAL = re.compile(
    r"\ba-(bund|yuyuan|museum|pearl|jingan|longhua)\b|SYSTEM[12]_|\bNEED_[A-Z]+|\bNone\b|_[a-z]+:|\$|USD"
)
PLAN = {
    "en": "plan a 1 day trip to the Bund, Yu Garden and the Shanghai Museum",
    "zh": "规划1天行程：外滩、豫园和上海博物馆",
}
STOPS = {"en": {"The Bund", "Yu Garden", "Shanghai Museum"}, "zh": {"外滩", "豫园", "上海博物馆"}}


def console(tmp_path, monkeypatch, lang: str) -> AppTest:
    write_agent_pack(tmp_path / "data")
    (tmp_path / "kb").mkdir(exist_ok=True)
    for k, v in {
        "OMNI_DATA_DIR": str(tmp_path / "data"),
        "OMNI_REGION": "agentcity",
        "OMNI_PROVIDER": "offline",
        "OMNI_DB_URL": f"sqlite:///{tmp_path / 'ui.db'}",
        "OMNI_AGENT_EVENT_LOG": str(tmp_path / "ev.jsonl"),
        "OMNI_KB_DIR": str(tmp_path / "kb"),
    }.items():
        monkeypatch.setenv(k, v)
    get_settings.cache_clear()
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.fixture(params=["en", "zh"])
def lang(request):
    return request.param


@pytest.fixture
def page_in(tmp_path, monkeypatch, leaflet_static, lang):
    at = console(tmp_path, monkeypatch, lang)
    yield at
    get_settings.cache_clear()


def ask(at: AppTest, message: str) -> AppTest:
    at.chat_input(key="agent_prompt").set_value(message).run()
    assert not at.exception, at.exception
    return at


def in_details(at: AppTest) -> set[int]:
    """The ids of every element inside the collapsed raw-data section (the analysts' part; the Details in words are
    part of the main view)."""
    hidden: set[int] = set()
    for expander in at.expander:
        if expander.label in ("Raw data (for debugging)", "原始数据(调试用)"):
            hidden |= {id(e.proto) for e in [*expander.markdown, *expander.caption, *expander.metric]}
            hidden |= {id(e.proto) for e in expander.dataframe}
    return hidden


def main_text(at: AppTest) -> str:
    hidden = in_details(at)
    shown = [*at.title, *at.markdown, *at.caption, *at.warning, *at.info, *at.metric]
    text = "\n".join(str(e.value) for e in shown if id(e.proto) not in hidden)
    return re.sub(r":material/\w+:", "", text)  # icons


def labels(at: AppTest) -> list[str]:
    found = [at.title[0].value, at.chat_input(key="agent_prompt").placeholder]
    found += [e.label for e in at.expander] + [b.label for b in at.button] + [w.label for w in at.get("toggle")]
    found += [w.label for w in at.number_input] + [m.label for m in at.metric]
    return found


def timeline_tables(at: AppTest):
    return [d for d in at.dataframe if "what" in d.value.columns]


def test_the_console_speaks_one_language_with_the_answer_first_and_details_collapsed(page_in, lang):
    page = page_in
    ask(page, PLAN[lang])
    for label in labels(page):
        assert bool(CJK.search(label)) == (lang == "zh") or not re.search(r"[A-Za-z\u4e00-\u9fff]", label), label
    if lang == "en":
        assert not any(CJK.search(label) for label in labels(page))
    # the answer comes first, before the plan's table
    texts = [m.value for m in page.markdown]
    answer = page.session_state["agent_history"][-1]["response"].result.answer_text
    assert bool(CJK.search(answer)) == (lang == "zh")  # the reply names the stops in the reader's language too
    assert texts.index(answer.replace("\n", "  \n")) < next(i for i, v in enumerate(texts) if v.startswith("#####"))
    # the details: collapsed, and where the route, confidence, status and cost are
    from core.i18n import t

    details = [e for e in page.expander if e.label == t("common.debug", lang)]  # the raw data, collapsed
    assert len(details) == 1 and details[0].proto.expanded is False
    inside = {m.label for m in details[0].metric}
    # the cost is money (issue 31): an offline plan is priced, at 0 USD, by the default price tables
    assert {"Route", "Confidence", "Status", "Cost (USD)"} <= inside or {
        "路线",
        "置信度",
        "状态",
        "费用（USD）",
    } <= inside
    assert any(("operator page" if lang == "en" else "运维页面") in c.value for c in details[0].caption)
    # the Details say in words how the turn was answered (the codes above are the raw data's)
    [words] = [e for e in page.expander if e.label == ("Details" if lang == "en" else "详情")]
    said = words.markdown[0].value
    assert ("the reasoning path (planning and checking)" if lang == "en" else "推理路径（规划并检查）") in said
    assert ("Outcome: answered" if lang == "en" else "结果：已回答") in said and "SYSTEM2" not in said
    # the main view: no place id, no code, no None, no dollars
    text = main_text(page)
    assert not INTERNAL.search(text), INTERNAL.search(text)
    [table] = timeline_tables(page)
    assert not timeline_tables(details[0]) and not any("chosen_action" in d.value.columns for d in details[0].dataframe)
    cells = set(table.value.astype(str).to_numpy().ravel())
    assert not any(INTERNAL.search(c) for c in cells), cells
    assert STOPS[lang] <= cells  # the places' names in the reader's language
    headers = [c["label"] for c in json.loads(table.proto.columns).values() if "label" in c]
    assert headers == (["Day", "Time", "What", "Note"] if lang == "en" else ["天", "时间", "安排", "说明"])


def test_the_map_has_a_numbered_pin_for_every_stop_and_fits_them(page_in, lang):
    page = page_in
    ask(page, PLAN[lang])
    [component] = page.get("component_instance")
    script = json.loads(component.proto.json_args)["script"]
    html = script.replace("\\u003c", "<").replace("\\u003e", ">").replace('\\"', '"')
    assert re.findall(r'<div class="omni-pin"[^>]*>(\d+)</div>', html) == ["1", "2", "3"]
    assert len(re.findall(r"var \w+ = L\.divIcon\(", script)) == 3
    assert script.index("L.Marker.prototype.options.icon = L.divIcon(") < script.index("L.marker(")  # no image pin
    markers = re.findall(r"var (marker_\w+) = L\.marker\(", script)
    assert len(markers) == 3 and all(f"{m}.setIcon(" in script for m in markers)  # each pin is its number
    assert "L.icon(" not in script and "marker-icon" not in script  # no marker image to fetch
    assert "fitBounds" in script
    for name in STOPS[lang]:
        assert name in script  # the tooltips name the stops in the reader's language


def test_an_earlier_turn_keeps_its_table_and_map_after_another_message(page_in, lang):
    page = page_in
    ask(page, PLAN[lang])
    first = timeline_tables(page)[0].value.copy()
    ask(page, "帮我订和平饭店，明天19:00，两个人" if lang == "zh" else "book Peace Hotel tomorrow at 19:00 for 2")
    assert len(page.session_state["agent_history"]) == 2
    tables = timeline_tables(page)
    assert len(tables) == 1 and tables[0].value.equals(first)  # the first turn's plan, still drawn
    assert len(page.get("component_instance")) == 1  # and its map
    assert len([e for e in page.expander if e.label in ("Raw data (for debugging)", "原始数据(调试用)")]) == 2
    assert len([e for e in page.expander if e.label in ("Details", "详情")]) == 2  # each turn: its Details in words
    # the confirmation button says what it does, in the page's language only
    assert page.button(key="agent_confirm").label == ("Confirm booking" if lang == "en" else "确认预订")
    ask(page, PLAN[lang])
    assert len(timeline_tables(page)) == 2 and len(page.get("component_instance")) == 2


def test_next_steps_are_said_in_words_and_steps_without_words_stay_in_the_details():
    from components.agent.words import NEXT_STEP_UNWORDED, NEXT_STEP_WORDS, next_steps_words
    from core.i18n import t
    from core.models.agent import NEXT_STEP_CODES, NextStep

    # every code the core returns is worded here, or is a button / a detail
    assert set(NEXT_STEP_WORDS) | NEXT_STEP_UNWORDED | {"apply_fix"} == set(NEXT_STEP_CODES)
    steps = [NextStep(code="allow_webbrowse"), NextStep(code="downgrade", args={"to": "knowledge_base"}),
             NextStep(code="confirm", args={"dry_run_id": "dr-123"}), NextStep(code="critic", args={"codes": "LATE"}),
             NextStep(code="takeover", args={"url": "https://example.org/x"}),
             NextStep(code="resend", args={"option": "dry_run", "value": "false"}),
             NextStep(code="weather_later", args={"reason": "NO_FORECAST_FOR_DATE", "date": "2026-12-01"}),
             NextStep(code="missing", args={"field": "date"}), NextStep(code="missing", args={"field": "time"})]  # fmt: skip
    for lang in ("en", "zh"):
        shown = next_steps_words(steps, lang)
        assert shown[-2] == t("agent.weather.try_later", lang)  # the sentence the agent used to send, now said here
        assert len(shown) == 6  # no sentence for the confirmation (a button) or the critic; one for both missing
        assert not any(INTERNAL.search(s) or "http" in s or "dr-123" in s or "LATE" in s for s in shown), shown
        assert all(bool(CJK.search(s)) == (lang == "zh") for s in shown), shown
    assert next_steps_words(steps[2:4], "zh") == []
    # a must-visit place's smallest fix, in the itinerary's own words, with the dropped stop named in the language
    fix = NextStep(code="apply_fix", args={"place_key": "a-x", "kind": "extend_day_end", "day": 2, "new_end": "21:30"})
    assert next_steps_words([fix], "en") == [t("itinerary.fix.extend_day_end", "en", day=2, time="21:30")]
    drop = NextStep(code="apply_fix", args={"kind": "drop_stop", "day": 1, "drop_key": "k", "drop_name": "外滩"})
    assert "外滩" in next_steps_words([drop], "zh")[0]


#: a next step's code with its argument, the way the agent used to send it ("downgrade:knowledge_base", "missing:date")
STEP_CODE_TEXT = re.compile(r"\b[a-z_]+:[^\s/]")
ASK_CONSENT = {"en": "check the official website for rooms", "zh": "官网查房"}


def test_the_console_shows_next_steps_as_sentences_never_codes(page_in, lang):
    from core.i18n import t

    page = ask(page_in, ASK_CONSENT[lang])
    result = page.session_state["agent_history"][-1]["response"].result
    assert result.status == "NEED_CONSENT"
    assert [s.code for s in result.next_steps] == ["allow_webbrowse", "downgrade"]
    [warning] = page.warning  # the next steps, in the page's language
    expected = [t("agent.console.next.allow_webbrowse", lang), t("agent.console.next.knowledge_base", lang)]
    assert warning.value == t("agent.console.next_steps", lang) + " " + " ".join(expected)
    assert bool(CJK.search(warning.value)) == (lang == "zh")
    everything = [*page.markdown, *page.caption, *page.warning, *page.info, *page.error, *page.metric]
    text = "\n".join(str(e.value) for e in everything)
    assert not STEP_CODE_TEXT.search(text), STEP_CODE_TEXT.search(text)  # no code:arg anywhere, details included
    main = main_text(page)
    assert not any(code in main for code in ("allow_webbrowse", "downgrade", "knowledge_base")), main
    # the steps as data in the details, for analysts
    [steps] = [d for d in page.dataframe if list(d.value.columns) == ["code", "args"]]
    assert list(steps.value["code"]) == ["allow_webbrowse", "downgrade"]
    assert id(steps.proto) in in_details(page)


OTHER_HOURS = {
    "en": "plan a 1 day trip to the Bund and Yu Garden, from 7pm to 3pm",
    "zh": "规划1天行程：外滩和豫园，晚上7点到下午3点",
}


def test_a_plan_on_other_hours_than_asked_is_marked_above_it(page_in, lang):
    """Hours that cannot be a day (issue 31): the plan shown runs on the default hours, so the page says so above it
    and the status is no OK."""
    from core.i18n import t

    page = ask(page_in, OTHER_HOURS[lang])
    assert page.session_state["agent_history"][-1]["response"].result.status == "NEED_MORE_INFO"
    assert t("agent.console.other_hours", lang) in [w.value for w in page.warning]
    assert timeline_tables(page)  # the plan on the default hours is still shown, marked
    text = main_text(page)
    assert ("end before they start" if lang == "en" else "结束早于开始") in text
