"""The half-day page under faults (half_day_planner.md §4.1), with AppTest, in Chinese and English.

Level 2: the routing service fails, so part of the plan would rest on local estimates: the run pauses at the
question, the two buttons answer it (continue: the plans, with the warning; stop: a sentence and Retry). Level 3: a
tool breaks its schema twice: besides Retry, the goal goes to the travel agent (its answer shown, a chat box to go
on) and the configured support contact is shown."""

from __future__ import annotations

import pytest

from core.errors import ProviderUnavailable
from core.i18n import t

# the page's fixtures (page, faults) are used by their names: imported here, they are this module's too
from tests.ui.test_half_day_page import GOAL_EN, GOAL_ZH, faults, main_text, page, plan  # noqa: F401

pytestmark = pytest.mark.ui

CONTACT = "help@omni.test · +86 21 5555 0100"


class FailingRouter:
    name = "broken-router"

    def matrix(self, points, *, mode):
        raise ProviderUnavailable("routing service unreachable")

    def route(self, origin, destination, *, mode):
        raise ProviderUnavailable("routing service unreachable")


@pytest.fixture(params=["zh", "en"])
def page_lang(request) -> str:
    return request.param


@pytest.fixture
def broken_router(monkeypatch):
    """Every planner the page makes routes through a service that fails."""
    from core.app import halfday as halfday_app
    from core.geo.composite import MapServices

    made = halfday_app.planner

    def on_broken_router(ctx):
        planner = made(ctx)
        live = planner.provider
        planner.provider = MapServices(geocoder=live.geocoder, router=FailingRouter(), region=live.region)
        return planner

    monkeypatch.setattr(halfday_app, "planner", on_broken_router)


def _goal(lang: str) -> str:
    return GOAL_ZH if lang == "zh" else GOAL_EN


@pytest.mark.parametrize("answer", ["continue", "stop"])
def test_level2_the_run_waits_for_the_persons_choice(page, page_lang, broken_router, answer):  # noqa: F811
    at = plan(page, _goal(page_lang))
    run = at.session_state["hd_run"]
    assert run["done"] is None and "hd_result" not in at.session_state  # paused: no plan shown yet
    assert [w.value for w in at.warning] == [t("halfday.warning.degraded_data", page_lang)]
    go_on, stop = at.button(key="hd_degraded_continue"), at.button(key="hd_degraded_stop")
    assert (go_on.label, stop.label) == (
        t("halfday.degraded.continue", page_lang),
        t("halfday.degraded.stop", page_lang),
    )

    at.button(key=f"hd_degraded_{answer}").click().run()
    assert not at.exception, at.exception
    run = at.session_state["hd_run"]
    chosen = [e.data for e in run["events"] if e.type == "observation" and e.data.type == "choice"]
    assert [(c.choice, c.by) for c in chosen] == [(answer, "person")]
    if answer == "continue":
        result = at.session_state["hd_result"]
        assert result.travel_source == "offline_estimate" and len(result.plans) >= 2
        assert t("halfday.warning.travel_from_local_estimate", page_lang) in [w.value for w in at.warning]
    else:
        assert "hd_result" not in at.session_state
        assert [e.value for e in at.error] == [t("halfday.error.degraded_declined", page_lang)]
        assert at.button(key="hd_retry") is not None
        assert not at.chat_input  # a person's stop is no failure: no conversation instead
    assert not _has(at, "hd_degraded_continue") and not _has(at, "hd_degraded_stop")  # answered: the question goes


def _has(at, key: str) -> bool:
    return any(b.key == key for b in at.button)


def test_level3_the_goal_goes_to_the_agent_and_the_contact_is_shown(page, page_lang, faults, monkeypatch):  # noqa: F811
    from core.config import get_settings

    monkeypatch.setenv("OMNI_HALFDAY_SUPPORT_CONTACT", CONTACT)
    get_settings.cache_clear()
    faults["analyze_user_profile"] = lambda _inp: {"party": "not a party"}
    at = plan(page, _goal(page_lang))
    error = at.session_state["hd_run"]["done"].error
    assert error.fallback == "conversation" and error.contact == CONTACT
    text = main_text(at)
    assert t("halfday.contact.line", page_lang, contact=CONTACT) in text
    assert t("halfday.fallback.intro", page_lang) in text
    turns = at.session_state["hd_fallback"]["turns"]
    assert [role for role, _ in turns] == ["you", "assistant"] and turns[0][1] == _goal(page_lang)
    assert turns[1][1] and turns[1][1] in text  # the agent's answer, shown
    assert at.button(key="hd_retry") is not None

    at.chat_input(key="hd_fallback_chat").set_value("2 people, 300 per person").run()
    assert not at.exception, at.exception
    turns = at.session_state["hd_fallback"]["turns"]
    assert [role for role, _ in turns] == ["you", "assistant", "you", "assistant"]
    assert turns[2][1] == "2 people, 300 per person" and turns[3][1] in main_text(at)


def test_level3_without_a_contact_the_page_says_none_is_configured(page, page_lang, faults, monkeypatch):  # noqa: F811
    from core.config import get_settings

    monkeypatch.delenv("OMNI_HALFDAY_SUPPORT_CONTACT", raising=False)
    get_settings.cache_clear()
    faults["analyze_user_profile"] = lambda _inp: {"party": "not a party"}
    at = plan(page, _goal(page_lang))
    assert t("halfday.contact.none", page_lang) in main_text(at)
    assert "None" not in main_text(at)
