"""The agent console page with AppTest: chat, route card, consent and confirmation buttons, QA run."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.config import get_settings
from core.geo.registry import make_provider
from tests.support.agent_packs import write_agent_pack
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
    return next(m.value for m in at.metric if m.label == label)


def test_chat_shows_route_card_and_plan(page):
    page.chat_input(key="agent_prompt").set_value("规划2天上海行程").run()
    assert not page.exception, page.exception
    assert _metric(page, "Route") == "SYSTEM2_REASONING"
    assert _metric(page, "Status") == "OK"
    assert any("verifying" in m.value for m in page.markdown)
    columns = [set(d.value.columns) for d in page.dataframe]
    assert any({"day", "kind", "name", "start", "end"} <= c for c in columns)  # the timeline
    assert any({"step", "chosen_action", "reason_code", "facts", "policy_id"} <= c for c in columns)  # the decision log
    assert page.get("component_instance")  # the map


def test_consent_button_reruns_with_consent(page):
    page.chat_input(key="agent_prompt").set_value("官网查房").run()
    assert _metric(page, "Status") == "NEED_CONSENT"
    page.button(key="agent_consent").click().run()
    assert not page.exception, page.exception
    assert _metric(page, "Status") == "NEED_MORE_INFO"  # consented, and now it asks for the site's URL
    assert len(page.session_state["agent_history"]) == 2


def _reservations(user):
    from core.packs.loader import load_region
    from core.reservations.service import ReservationService

    settings = get_settings()
    service = ReservationService.from_settings(settings, load_region("agentcity", settings.data_dir))
    return service, [(r.item_name, r.status) for r in service.reservations_of(user)]


def test_confirmation_button_says_what_it_does_and_books(page):
    page.chat_input(key="agent_prompt").set_value("帮我订和平饭店，明天19:00，两个人").run()
    assert _metric(page, "Status") == "NEED_CONFIRMATION"
    assert page.button(key="agent_confirm").label == "确认预订 / Confirm booking"
    assert "将为你预订：和平饭店" in page.session_state["agent_history"][-1]["response"].result.answer_text
    page.button(key="agent_confirm").click().run()
    assert not page.exception, page.exception
    assert _metric(page, "Status") == "OK"
    user = page.session_state["dashboard_user"]  # the console acts for the dashboard's identity
    assert _reservations(user)[1] == [("和平饭店", "confirmed")]
    page.chat_input(key="agent_prompt").set_value("取消和平饭店的预订").run()
    assert page.button(key="agent_confirm").label == "确认取消 / Confirm cancellation"
    page.button(key="agent_confirm").click().run()
    assert _metric(page, "Status") == "OK"
    assert _reservations(user)[1] == [("和平饭店", "cancelled")]


def test_reservations_made_on_other_pages_are_listed_here(page):
    from datetime import date, time, timedelta

    from core.reservations.models import ReservationRequest

    user = page.session_state["dashboard_user"]
    service, _ = _reservations(user)
    day = date.today() + timedelta(days=3)
    dry = service.dry_run(user, ReservationRequest(item_id="a-museum", date=day, time=time(10, 0), party_size=3))
    service.confirm(user, dry.reservation.id, token=dry.token, idempotency_key="elsewhere", consent=True)
    page.chat_input(key="agent_prompt").set_value("show my bookings").run()
    assert not page.exception, page.exception
    answer = page.session_state["agent_history"][-1]["response"].result.answer_text
    assert "Shanghai Museum" in answer and "3 people" in answer and "confirmed" in answer


def test_qa_button_runs_every_case(page):
    page.button(key="agent_qa").click().run()
    assert not page.exception, page.exception
    assert _metric(page, "QA passed") == "8/8"


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
