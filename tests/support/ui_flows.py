"""Each page's main flow in Chromium, step by step, shared by the browser sweep (tests/ui/test_sweep_browser.py) and
scripts/screenshots.py.

A flow is a list of ``Step(name, run)``: ``run(page, base, lang)`` drives the page (Playwright's sync API) and
returns once what the step shows is on screen; the caller takes the screenshot and reads the main view after it.
The selectors are the widgets' ``key=`` (``.st-key-<key>``), never their words, so one flow serves both languages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

UI_TIMEOUT_MS = 60_000
MAIN = '[data-testid="stMainBlockContainer"]'  # the main view (with a chat input it is not in stMain)

AGENT_QUESTION = {
    "en": "plan a 1 day trip to the Bund, Yu Garden and Jing'an Temple",
    "zh": "规划1天行程：外滩、豫园和静安寺",
}
LAB_BATCH = "helsinki-delivery-200.jsonl"  # a shipped batch (data/batches) on a road network: the strategies differ
LAB_REQUESTS = 2


@dataclass(frozen=True)
class Step:
    name: str
    run: Callable[[object, str, str], None]


def prepare(page) -> None:
    """Generous waits for a page on a busy machine (upper bounds to give up, not performance assertions)."""
    from playwright.sync_api import expect

    expect.set_options(timeout=UI_TIMEOUT_MS)
    page.set_default_timeout(UI_TIMEOUT_MS)


def settle(page) -> None:
    """Wait until Streamlit has finished the current script run: its 'Running…' status widget is gone and no element
    of the page is still marked stale (the status widget shows only once a run has lasted a moment, so a run under
    way on a slow machine can show none yet; its elements not yet drawn again are ``data-stale="true"``)."""
    page.wait_for_timeout(300)  # let a click reach the server and a rerun start
    page.wait_for_function(
        '() => !document.querySelector(\'[data-testid="stStatusWidget"] [data-testid="stStatusWidgetRunningIcon"]\')'
        " && !document.querySelector('[data-testid=\"stSkeleton\"]')"
        " && !document.querySelector('[data-stale=\"true\"]')",
        timeout=UI_TIMEOUT_MS,
    )


def open_page(page, url: str, ready: str) -> None:
    """Open a page's URL directly (as a shared link is): the page comes with app.py's frame, the sidebar with the
    region and st.navigation's links (components/legacy_pages.py), even on a server's first visit."""
    from playwright.sync_api import expect

    page.goto(url)
    expect(page.locator(ready).first).to_be_visible(timeout=UI_TIMEOUT_MS)
    for frame_part in (page.locator(".st-key-region"), page.locator('[data-testid="stSidebarNav"]')):
        if (page.viewport_size or {}).get("width", 0) >= 768:
            expect(frame_part).to_be_visible()
        else:  # a phone: the sidebar starts collapsed
            expect(frame_part).to_be_attached()
    settle(page)


def scroll_to(page, selector: str) -> None:
    page.locator(selector).first.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(200)


# --- home ------------------------------------------------------------------------------------------------------------
def _home_overview(page, base: str, lang: str) -> None:
    open_page(page, f"{base}/?lang={lang}", '[data-testid="stPageLink"]')


# --- route planner ---------------------------------------------------------------------------------------------------
def _route_scenario(page, base: str, lang: str) -> None:
    from playwright.sync_api import expect

    open_page(page, f"{base}/route_planner?scenario=sightseeing-day&lang={lang}", ".st-key-load_scenario button")
    page.locator(".st-key-load_scenario button").click()
    expect(page.locator(".st-key-scenario_loaded")).to_be_visible()
    settle(page)


def _route_plan(page, base: str, lang: str) -> None:
    from playwright.sync_api import expect

    page.locator(".st-key-plan button").click()
    expect(page.locator(".st-key-best_route_card")).to_be_visible()
    frame = page.frame_locator(".st-key-route_map_box iframe")
    expect(frame.locator("path.leaflet-interactive").first).to_be_visible()
    expect(frame.locator(".omni-pin").nth(2)).to_be_visible()  # start, stops and destination are pinned
    settle(page)
    scroll_to(page, ".st-key-route_map_box")


def _route_result_table(page, base: str, lang: str) -> None:
    from playwright.sync_api import expect

    table = page.locator(".st-key-comparison_table")
    expect(table).to_be_visible()
    scroll_to(page, ".st-key-comparison_table")


# --- itinerary -------------------------------------------------------------------------------------------------------
def _itinerary_demo(page, base: str, lang: str) -> None:
    open_page(page, f"{base}/itinerary?lang={lang}", ".st-key-trip_load button")
    page.locator(".st-key-trip_load button").click()
    settle(page)


def _itinerary_plan(page, base: str, lang: str) -> None:
    from playwright.sync_api import expect

    page.locator(".st-key-optimise button").click()
    expect(page.locator(".st-key-day_map_box iframe")).to_be_visible()
    expect(page.locator(".st-key-edit_apply button")).to_be_visible()
    settle(page)
    scroll_to(page, ".st-key-day_select")


def _itinerary_edit(page, base: str, lang: str) -> None:
    """One edit: the first stop removed (the radio's third choice, whatever its words), then re-optimised."""
    from playwright.sync_api import expect

    page.locator(".st-key-edit_action label").nth(2).click()
    settle(page)
    page.locator(".st-key-edit_apply button").click()
    expect(page.locator(".st-key-edit_undo button:enabled")).to_be_visible()  # (a stale copy may linger)
    settle(page)
    scroll_to(page, ".st-key-day_select")


# --- agent console ---------------------------------------------------------------------------------------------------
def _agent_ask(page, base: str, lang: str) -> None:
    from playwright.sync_api import expect

    open_page(page, f"{base}/agent_console?lang={lang}", '[data-testid="stChatInputTextArea"]')
    settle(page)
    restored = page.locator(".st-key-agent_new_conversation button")
    if restored.count():  # the page reopened this user's last conversation (another flow's): start a new one
        restored.click()
        expect(restored).to_have_count(0)
        settle(page)
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill(AGENT_QUESTION[lang])
    box.press("Enter")
    frame = page.frame_locator(".st-key-agent_map_0_box iframe")
    pins = frame.locator(".omni-pin")
    expect(pins.nth(2)).to_be_visible()
    settle(page)
    # a numbered pin for each of the three stops, and no image pin (Leaflet's default marker would 404)
    assert sorted(pins.all_inner_texts()) == ["1", "2", "3"], pins.all_inner_texts()
    assert frame.locator("img.leaflet-marker-icon").count() == 0
    scroll_to(page, '[data-testid="stChatMessage"]')  # the question, then the answer (the chat scrolls to its end)


# --- half day --------------------------------------------------------------------------------------------------------
def _halfday_goal(page, base: str, lang: str) -> None:
    from playwright.sync_api import expect

    open_page(page, f"{base}/half_day?lang={lang}", ".st-key-hd_plan button")
    page.locator(".st-key-hd_example_kids button").click()
    expect(page.locator(".st-key-hd_goal textarea")).not_to_have_value("")
    settle(page)


def _halfday_plans(page, base: str, lang: str) -> None:
    from playwright.sync_api import expect

    page.locator(".st-key-hd_plan button").click()
    card = page.locator('[class*="st-key-hd_card_"]').first
    expect(card).to_be_visible()
    expect(card.frame_locator('[class*="st-key-hd_map_"] iframe').locator(".omni-pin").first).to_be_visible()
    settle(page)


def _halfday_card(page, base: str, lang: str) -> None:
    scroll_to(page, '[class*="st-key-hd_card_"]')


# --- strategy lab ----------------------------------------------------------------------------------------------------
def _lab_batch(page, base: str, lang: str) -> None:
    from playwright.sync_api import expect

    open_page(page, f"{base}/strategy_lab?lang={lang}", ".st-key-lab_shipped")
    page.locator(".st-key-lab_shipped").click()
    page.get_by_role("option", name=LAB_BATCH).click()
    settle(page)
    limit = page.locator(".st-key-lab_limit input")
    limit.fill(str(LAB_REQUESTS))
    limit.press("Enter")
    expect(limit).to_have_value(str(LAB_REQUESTS))
    settle(page)


def _lab_run(page, base: str, lang: str) -> None:
    from playwright.sync_api import expect

    page.locator(".st-key-lab_run button").click()
    expect(page.locator(".st-key-lab_difference_chart")).to_be_visible()
    settle(page)
    scroll_to(page, ".st-key-lab_difference_chart")


def _lab_charts(page, base: str, lang: str) -> None:
    from playwright.sync_api import expect

    expect(page.locator(".st-key-lab_gap_chart")).to_be_visible()
    expect(page.locator(".st-key-lab_pareto_chart")).to_be_visible()
    scroll_to(page, ".st-key-lab_pareto_chart")


def _lab_map(page, base: str, lang: str) -> None:
    from playwright.sync_api import expect

    deck = page.locator(".st-key-lab_map_box [data-testid='stDeckGlJsonChart']")
    expect(deck.locator("canvas").first).to_be_visible()
    scroll_to(page, ".st-key-lab_map_box")
    page.wait_for_timeout(1500)  # let deck.gl draw before the screenshot (not an assertion)


# page (its docs/screenshots name) → its steps; the step whose screenshot represents the page in the README
FLOWS: dict[str, list[Step]] = {
    "home": [Step("overview", _home_overview)],
    "route_planner": [
        Step("scenario", _route_scenario),
        Step("result", _route_plan),
        Step("candidates", _route_result_table),
    ],
    "itinerary": [
        Step("demo", _itinerary_demo),
        Step("plan", _itinerary_plan),
        Step("edit", _itinerary_edit),
    ],
    "agent_console": [Step("answer", _agent_ask)],
    "half_day": [
        Step("goal", _halfday_goal),
        Step("plans", _halfday_plans),
        Step("card", _halfday_card),
    ],
    "strategy_lab": [
        Step("batch", _lab_batch),
        Step("run", _lab_run),
        Step("charts", _lab_charts),
        Step("map", _lab_map),
    ],
}
REPRESENTATIVE = {
    "home": "overview",
    "route_planner": "result",
    "itinerary": "plan",
    "agent_console": "answer",
    "half_day": "card",
    "strategy_lab": "charts",
}


MAIN_TEXT_JS = """() => {
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  if (!main) return null;
  const icons = [...main.querySelectorAll(
    '[data-testid="stIconMaterial"], [data-testid="stAlertDynamicIcon"], [data-testid^="stExpanderIcon"], ' +
    'span[role="img"][aria-label$=" icon"]')];
  const shown = icons.map(e => e.style.display);
  icons.forEach(e => { e.style.display = 'none'; });  // icon ligatures ("arrow_forward") are not words
  const text = main.innerText;
  icons.forEach((e, i) => { e.style.display = shown[i]; });
  return text;
}"""


def main_text(page) -> str:
    """The visible text of the main view (not the sidebar; a collapsed expander's body is not visible), without
    the Material icons' ligature names."""
    text = page.evaluate(MAIN_TEXT_JS)
    assert text is not None, "the page has no main view"
    return text
