"""Journeys in Chromium (issue 23 §2): choices are state, not widget leftovers.

On each page a person makes choices, switches the language both ways, goes to another page and back, and (on the
strategy lab) reloads; what they see must keep the chosen values, in the words of the language now shown, and the
plan must be made with them. One Streamlit server and one browser page serve the whole module (a session, as a
person's tab is); the expected words come from the catalogs (core.i18n.t), never from the page itself.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from components.lab.words import mode_name, strategy_name
from components.route_words import STRATEGY_KEYS, TRANSPORT_KEYS
from core.i18n import t
from tests.support.ui_flows import LAB_BATCH, MAIN, UI_TIMEOUT_MS, prepare, settle
from tests.ui.test_browser import offline_page

pytestmark = [pytest.mark.ui, pytest.mark.browser]

#: what must never reach the main view: a code (snake_case), a Python None
CODE_LIKE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b|\bNone\b")


@pytest.fixture(scope="module")
def app_page(app_servers, tmp_path_factory) -> Iterator[tuple[object, str]]:
    """A server of the module's own (its own database and lab folder: the journeys check what a reload gives back,
    which nothing another module saved may change) and one Chromium tab for the module's journeys."""
    root = tmp_path_factory.mktemp("journeys")
    base = app_servers.serve(
        {"OMNI_DB_URL": f"sqlite:///{root / 'dashboard.db'}", "OMNI_CACHE_DIR": str(root / "cache")}
    )
    with offline_page(base, width=1440, height=1600) as run:
        prepare(run.page)
        yield run.page, base
        assert not run.errors, f"JavaScript errors: {run.errors}"
        assert not run.blocked, f"requests left the machine: {run.blocked}"


# --- what a person does and sees ----------------------------------------------------------------------------------
def switch_language(page, lang: str) -> None:
    page.locator(".st-key-ui_lang_choice").get_by_text("中文" if lang == "zh" else "English", exact=True).click()
    settle(page)


def go_to(page, url_path: str, ready: str) -> None:
    """Another page of the same session, through the sidebar's menu (a new address would be a new session)."""
    page.locator(f'[data-testid="stSidebarNav"] a[href$="/{url_path}"]').click()
    page.locator(ready).first.wait_for()
    settle(page)


def one_select_box(page, key: str):
    """The select box ``key`` once the page shows one: while a rerun replaces the page, the old element can stand
    beside the new one for a moment (seen after loading a scenario: the default's box beside the scenario's)."""
    from playwright.sync_api import expect

    box = page.locator(f".st-key-{key} input[role='combobox']")
    expect(box).to_have_count(1)
    return box


def choose(page, key: str, words: str) -> None:
    one_select_box(page, key).click()
    page.get_by_role("option", name=words, exact=True).click()
    settle(page)


def shown(page, key: str) -> str:
    """The words a select box shows."""
    return str(one_select_box(page, key).input_value())


def checked(page, key: str) -> str:
    """The words of a radio's chosen option ('' when none is chosen)."""
    labels = page.locator(f".st-key-{key} label:has(input:checked)")
    return labels.first.inner_text().strip() if labels.count() else ""


def expect_checked(page, key: str, words: str) -> None:
    """The radio shows ``words`` as chosen (waited for: the browser redraws the radio after the run)."""
    from playwright.sync_api import expect

    expect(page.locator(f".st-key-{key} label:has(input:checked)")).to_have_text(words)


def expect_shown(page, key: str, words: str) -> None:
    from playwright.sync_api import expect

    expect(page.locator(f".st-key-{key} input[role='combobox']")).to_have_value(words)


def tags(page, key: str) -> list[str]:
    """The words of a multiselect's chosen tags, in order."""
    found = page.locator(f".st-key-{key} [data-testid='stMultiSelectTagsContainer'] span[title]:visible")
    return list(dict.fromkeys(s.strip() for s in found.all_inner_texts()))


def lab_tags(page, want: tuple[list[str], list[str]]) -> tuple[list[str], list[str]]:
    """The lab's strategy and mode tags, once they read ``want`` or the page's time is up (a rerun under load may
    draw one multiselect after the other): what they read last."""
    deadline = time.monotonic() + UI_TIMEOUT_MS / 1000
    while True:
        shown = (tags(page, "lab_strategies"), tags(page, "lab_modes"))
        if shown == want or time.monotonic() > deadline:
            return shown
        page.wait_for_timeout(200)


def no_codes_in_main_view(page) -> None:
    """The main view's text has no code-like token (code blocks aside: the lab's CLI command is a command; and
    Material icons, whose names are drawn as glyphs by the icon font)."""
    text = page.locator(MAIN).evaluate(
        """e => { const c = e.cloneNode(true);
                 c.querySelectorAll('pre, code, [data-testid="stCode"], iframe').forEach(x => x.remove());
                 document.body.appendChild(c);
                 c.querySelectorAll('*').forEach(x => {
                   if (getComputedStyle(x).fontFamily.includes('Material')) x.remove(); });
                 const s = c.innerText; c.remove(); return s; }"""
    )
    found = sorted(set(CODE_LIKE.findall(text)))
    assert not found, f"code-like tokens in the main view: {found}"


# --- the journeys -------------------------------------------------------------------------------------------------
def test_route_planner_keeps_strategy_mode_start_link_and_demo_through_language_and_page_switches(app_page):
    from playwright.sync_api import expect

    page, base = app_page
    page.goto(f"{base}/route_planner?scenario=sightseeing-day&lang=en")
    page.locator(".st-key-load_scenario button").click()
    expect(page.locator(".st-key-scenario_loaded")).to_be_visible()
    settle(page)
    choose(page, "route_strategy", t(STRATEGY_KEYS["fastest_time"], "en"))
    choose(page, "transport_mode", t(TRANSPORT_KEYS["cycling"], "en"))
    choose(page, "deep_link_mode", t("route.deep_link.route_plan", "en"))
    demo_en = shown(page, "scenario")
    assert demo_en == "Classic Shanghai sightseeing day"

    switch_language(page, "zh")
    expect_shown(page, "route_strategy", t(STRATEGY_KEYS["fastest_time"], "zh"))
    expect_shown(page, "transport_mode", t(TRANSPORT_KEYS["cycling"], "zh"))
    expect_shown(page, "deep_link_mode", t("route.deep_link.route_plan", "zh"))
    expect_checked(page, "origin_mode", t("route.origin_mode.fixed", "zh"))
    expect_shown(page, "scenario", "经典上海一日游")

    page.locator(".st-key-plan button").click()
    card = page.locator(".st-key-best_route_card")
    expect(card).to_be_visible()
    settle(page)
    words = card.inner_text()
    assert t(STRATEGY_KEYS["fastest_time"], "zh") in words and t(TRANSPORT_KEYS["cycling"], "zh") in words
    no_codes_in_main_view(page)

    switch_language(page, "en")
    expect_shown(page, "scenario", demo_en)  # the demo the caption names, not another one
    expect(page.locator(".st-key-scenario_loaded")).to_contain_text(demo_en)
    expect_shown(page, "route_strategy", t(STRATEGY_KEYS["fastest_time"], "en"))
    expect(page.locator(".st-key-best_route_card")).to_contain_text(t(STRATEGY_KEYS["fastest_time"], "en"))

    go_to(page, "itinerary", ".st-key-trip_load button")
    go_to(page, "route_planner", ".st-key-plan button")
    expect_shown(page, "route_strategy", t(STRATEGY_KEYS["fastest_time"], "en"))
    expect_shown(page, "transport_mode", t(TRANSPORT_KEYS["cycling"], "en"))
    expect_shown(page, "deep_link_mode", t("route.deep_link.route_plan", "en"))
    expect_checked(page, "origin_mode", t("route.origin_mode.fixed", "en"))
    expect_shown(page, "scenario", demo_en)
    no_codes_in_main_view(page)


def test_itinerary_keeps_day_and_action_through_language_and_page_switches(app_page):
    from playwright.sync_api import expect

    page, base = app_page
    go_to(page, "itinerary", ".st-key-trip_load button")
    choose(page, "trip_demo", t("itinerary.demo.shanghai_3day_30places", "en"))
    page.locator(".st-key-trip_load button").click()
    settle(page)
    choose(page, "trip_mode", t("itinerary.mode.walking", "en"))
    page.locator(".st-key-optimise button").click()
    expect(page.locator(".st-key-edit_apply button")).to_be_visible()
    settle(page)
    page.locator(".st-key-day_select label:has(input[type=radio])").nth(1).click()  # the second day
    settle(page)
    page.locator(".st-key-edit_action label:has(input[type=radio])").nth(1).click()  # move
    settle(page)
    day_en = checked(page, "day_select")
    assert day_en and checked(page, "edit_action") == t("itinerary.edit.action.move", "en")

    switch_language(page, "zh")
    expect_checked(page, "edit_action", t("itinerary.edit.action.move", "zh"))
    page.locator(".st-key-day_select label:has(input:checked)").wait_for()
    day_zh = checked(page, "day_select")
    assert day_zh and day_zh != day_en  # the same day, in Chinese words
    expect_shown(page, "trip_mode", t("itinerary.mode.walking", "zh"))
    no_codes_in_main_view(page)

    switch_language(page, "en")
    expect_checked(page, "day_select", day_en)
    go_to(page, "strategy_lab", ".st-key-lab_source")
    go_to(page, "itinerary", ".st-key-day_select")
    expect_checked(page, "day_select", day_en)
    expect_checked(page, "edit_action", t("itinerary.edit.action.move", "en"))
    expect_shown(page, "trip_mode", t("itinerary.mode.walking", "en"))


def test_strategy_lab_keeps_its_tags_through_switches_and_its_settings_and_results_through_a_reload(app_page):
    from playwright.sync_api import expect

    page, base = app_page
    go_to(page, "strategy_lab", ".st-key-lab_source")
    choose(page, "lab_shipped", LAB_BATCH)
    limit = page.locator(".st-key-lab_limit input")
    limit.fill("1")
    limit.press("Enter")
    settle(page)
    # strategies: remove "balanced"; modes: add cycling
    assert tags(page, "lab_strategies")[-1] == strategy_name("balanced", "en")
    page.locator(".st-key-lab_strategies input").click()
    page.keyboard.press("Backspace")  # the last tag goes
    page.keyboard.press("Escape")
    settle(page)
    page.locator(".st-key-lab_modes input").click()
    page.get_by_role("option", name=mode_name("cycling", "en"), exact=True).click()
    page.keyboard.press("Escape")
    settle(page)
    want = {
        lang: (
            [strategy_name(s, lang) for s in ("shortest_distance", "fastest_time")],
            [mode_name(m, lang) for m in ("driving", "cycling")],
        )
        for lang in ("en", "zh")
    }
    assert lab_tags(page, want["en"]) == want["en"]

    switch_language(page, "zh")
    assert lab_tags(page, want["zh"]) == want["zh"]
    go_to(page, "route_planner", ".st-key-plan button")
    go_to(page, "strategy_lab", ".st-key-lab_strategies")
    assert lab_tags(page, want["zh"]) == want["zh"]
    expect_shown(page, "lab_shipped", LAB_BATCH)
    assert page.locator(".st-key-lab_limit input").input_value() == "1"

    page.locator(".st-key-lab_run button").click()
    expect(page.locator(".st-key-lab_difference_chart")).to_be_visible()
    settle(page)
    switch_language(page, "en")
    assert lab_tags(page, want["en"]) == want["en"]

    page.reload()  # a new session of the same browser: the server gives the settings and the results back
    page.locator(".st-key-lab_strategies").wait_for()
    settle(page)
    assert lab_tags(page, want["en"]) == want["en"]
    assert page.locator(".st-key-lab_limit input").input_value() == "1"
    expect(page.locator(".st-key-lab_difference_chart")).to_be_visible()
    expect(page.locator(".st-key-lab_stale")).to_have_count(0)  # made by these very settings
    no_codes_in_main_view(page)


def type_into(page, key: str, text: str) -> None:
    """Type into a text box or area and commit it as a person does (leaving the field)."""
    box = page.locator(f".st-key-{key} input, .st-key-{key} textarea").first
    box.fill(text)
    box.press("Tab")
    settle(page)


def test_what_was_typed_on_each_page_survives_the_other_pages_and_a_language_switch(app_page):
    """Issue 32 §1: typed inputs on the route planner (start, destination, the stops table), the half day (goal,
    start) and the itinerary (days) are there after visiting the other pages, in both languages; the route's plan is
    not marked stale and plans again with them. (An edit in the table's grid: tests/ui/test_page_switch_keeps_inputs.)"""
    from playwright.sync_api import expect

    page, base = app_page
    page.goto(f"{base}/route_planner?lang=zh")
    page.locator(".st-key-plan button").wait_for()
    settle(page)
    type_into(page, "origin_name", "人民广场")
    type_into(page, "destination_name", "豫园")
    page.get_by_text(t("route.stops.paste_title", "zh"), exact=True).click()  # the paste box's expander
    type_into(page, "paste_stops", "外滩 |\n新天地 |")
    page.locator(".st-key-paste_apply button").click()
    expect(page.locator(".st-key-stops_editor tbody tr")).to_have_count(2)
    settle(page)
    page.locator(".st-key-plan button").click()
    expect(page.locator(".st-key-best_route_card")).to_contain_text("外滩")
    settle(page)
    expect(page.locator(".st-key-stale_result")).to_have_count(0)

    go_to(page, "half_day", ".st-key-hd_plan button")
    goal = "Sunday morning with my parents: a quiet garden, then dim sum, back by noon"
    type_into(page, "hd_goal", goal)
    type_into(page, "hd_origin", "静安寺")
    go_to(page, "itinerary", ".st-key-trip_load button")
    days = page.locator(".st-key-trip_days input")
    days.fill("3")
    days.press("Enter")
    settle(page)

    switch_language(page, "en")
    go_to(page, "route_planner", ".st-key-plan button")
    expect(page.locator(".st-key-origin_name input")).to_have_value("人民广场")
    expect(page.locator(".st-key-destination_name input")).to_have_value("豫园")
    expect(page.locator(".st-key-best_route_card")).to_be_visible()  # the plan is still shown
    expect(page.locator(".st-key-stale_result")).to_have_count(0)  # nothing changed since it was made
    switch_language(page, "zh")
    page.locator(".st-key-plan button").click()  # planning again uses the kept table
    settle(page)
    expect(page.locator(".st-key-best_route_card")).to_contain_text("外滩")
    expect(page.locator(".st-key-best_route_card")).to_contain_text("新天地")
    expect(page.locator(".st-key-stale_result")).to_have_count(0)

    go_to(page, "half_day", ".st-key-hd_plan button")
    expect(page.locator(".st-key-hd_goal textarea")).to_have_value(goal)
    expect(page.locator(".st-key-hd_origin input")).to_have_value("静安寺")
    go_to(page, "itinerary", ".st-key-trip_load button")
    expect(page.locator(".st-key-trip_days input")).to_have_value("3")
    no_codes_in_main_view(page)
