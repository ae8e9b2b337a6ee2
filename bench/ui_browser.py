"""The Chromium side of ``python -m core bench ui`` (bench/ui.py): open a page, build the form through its
widgets, click, and time the click to the finished result in the page's own clock.

Before a timed click the page gets a recorder: a capture-phase click listener takes ``performance.now()`` and a
MutationObserver on ``stApp``'s ``data-test-script-state`` logs every change (running / notRunning / ...). The
run ends on the first animation frame where the app is idle after having run, every selector of the result is
in the page and the map iframe holds at least ``min_pins`` markers (a cluster counted as the pins it holds). The
websocket bytes received in between are counted (the page's deltas: tables, charts, the folium HTML of the maps).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bench.ui_probe import read_calls

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
TIMEOUT_MS = 180_000
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'

RECORDER_JS = """() => {
  const rec = {t0: null, states: [], done: null};
  window.__bench = rec;
  document.addEventListener('click', () => { if (rec.t0 === null) rec.t0 = performance.now(); }, true);
  // the whole document, not one stApp node: a page switch may draw the app into a new node, whose states the
  // old node's observer never saw (the bench then waited out its timeout on a page already drawn)
  const obs = new MutationObserver(() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const s = app && app.getAttribute('data-test-script-state');
    const last = rec.states[rec.states.length - 1];
    if (s && (!last || last[0] !== s)) rec.states.push([s, performance.now()]);
  });
  obs.observe(document.documentElement, {attributes: true, subtree: true, childList: true,
                                         attributeFilter: ['data-test-script-state']});
  rec.stop = () => obs.disconnect();
}"""

#: the pins a map frame shows, a cluster's disc counted as the pins it holds (the count it shows)
PINS_JS = """(doc) => [...doc.querySelectorAll('.leaflet-marker-icon')].reduce((n, icon) => {
    const cluster = icon.querySelector('.omni-cluster');
    return n + (cluster ? parseInt(cluster.textContent, 10) : 1);
  }, 0)"""

DONE_JS = (
    """(spec) => {
  const PINS = """
    + PINS_JS
    + """;
  const rec = window.__bench;
  if (!rec || rec.t0 === null) return false;
  if (spec.path && !window.location.pathname.endsWith('/' + spec.path)) return false;
  // the first sight of spec.first (the half-day's first card: shown while the other cards are still drawn)
  if (spec.first && rec.first == null && document.querySelector(spec.first)) rec.first = performance.now();
  const app = document.querySelector('[data-testid="stApp"]');
  if (app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (!rec.states.some(([s, t]) => s === 'running' && t >= rec.t0)) return false;
  if (document.querySelector('[data-testid="stException"]')) { rec.failed = true; return true; }
  for (const sel of spec.present) {
    const el = document.querySelector(sel);
    if (!el || el.getClientRects().length === 0) return false;
  }
  if (spec.map) {
    const frame = document.querySelector(spec.map + ' iframe');
    const doc = frame && frame.contentDocument;
    if (!doc) return false;
    if (PINS(doc) < spec.min_pins || !doc.querySelector('path.leaflet-interactive')) return false;
  }
  rec.done = performance.now();
  return true;
}"""
)

#: what the page shows when a run did not finish in time (for the report)
STATE_JS = (
    """(spec) => {
  const PINS = """
    + PINS_JS
    + """;
  const frame = spec.map ? document.querySelector(spec.map + ' iframe') : null;
  const doc = frame && frame.contentDocument;
  return {
    script_state: document.querySelector('[data-testid="stApp"]').getAttribute('data-test-script-state'),
    states: (window.__bench || {}).states || [],
    missing: spec.present.filter(sel => !document.querySelector(sel)),
    pins: doc ? PINS(doc) : null,
    alerts: [...document.querySelectorAll('[data-testid="stAlert"], [data-testid="stException"]')]
      .map(e => e.innerText.slice(0, 300)),
  };
}"""
)


#: the map iframe after a run: when its document started (page clock, ms), and what it loaded
MAP_FRAME_JS = """(map) => {
  const frame = map ? document.querySelector(map + ' iframe') : null;
  const win = frame && frame.contentWindow;
  if (!win) return null;
  const entries = win.performance.getEntriesByType('resource');
  const nav = win.performance.getEntriesByType('navigation')[0];
  return {
    start: win.performance.timeOrigin - performance.timeOrigin,
    loaded: nav ? win.performance.timeOrigin - performance.timeOrigin + nav.loadEventEnd : null,
    resources: entries.length,
    resource_kb: entries.reduce((n, e) => n + (e.decodedBodySize || 0), 0) / 1024,
    html_kb: frame.contentDocument.documentElement.outerHTML.length / 1024,
  };
}"""


class RunTimeout(Exception):
    """A run that did not reach its finished result in time; ``state`` is what the page showed."""

    def __init__(self, state: dict[str, Any], what: str = "") -> None:
        super().__init__(what or f"no finished result within {TIMEOUT_MS // 1000} s: {state}")
        self.state = {**state, "error": what} if what else state


class Browser:
    """One Chromium for the whole bench; each run gets a fresh page (a new Streamlit session)."""

    def __init__(self, base: str, *, probe_log: Path | None, chromium: str) -> None:
        self.base = base
        self.probe_log = probe_log
        self.chromium = chromium
        self._pw: Any = None
        self._browser: Any = None
        self._probe_line = 0
        self._ws_bytes = 0

    def __enter__(self) -> Browser:
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        self._browser = self._pw.chromium.launch(executable_path=self.chromium, args=CHROMIUM_ARGS)
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._browser.close()
        finally:
            self._pw.stop()

    # --- pages -------------------------------------------------------------------------------------

    def _page(self, path: str) -> Any:
        context = self._browser.new_context(viewport={"width": 1440, "height": 1400}, locale="en-US")
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)

        def count(ws: Any) -> None:
            ws.on("framereceived", lambda payload: self._add_bytes(payload))

        page.on("websocket", count)
        page.goto(f"{self.base}/{path}")
        return page

    def _add_bytes(self, payload: Any) -> None:
        self._ws_bytes += len(payload)

    @staticmethod
    def _idle(page: Any) -> None:
        page.wait_for_selector(IDLE, state="attached")
        page.wait_for_timeout(150)  # a widget's value reaches the server before its rerun starts
        page.wait_for_selector(IDLE, state="attached")

    def _server_mark(self) -> None:
        if self.probe_log is not None:
            _, self._probe_line = read_calls(self.probe_log, since=self._probe_line)

    def _timed_click(
        self,
        page: Any,
        button: str,
        *,
        present: list[str],
        map_box: str,
        min_pins: int,
        first: str | None = None,
        path: str | None = None,
    ) -> dict:
        """Click ``button`` and wait for the result; the figures of this one run (``first``: a selector whose first
        appearance is timed too, as ``first_s``; ``path``: the page the click must lead to)."""
        self._idle(page)
        self._server_mark()
        page.evaluate(RECORDER_JS)
        self._ws_bytes = 0
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        spec = {"present": present, "map": map_box, "min_pins": min_pins, "first": first, "path": path}
        t0 = time.monotonic()
        page.locator(button).click()
        try:
            page.wait_for_function(DONE_JS, arg=spec, polling="raf", timeout=TIMEOUT_MS)
        except PlaywrightTimeout:
            raise RunTimeout(page.evaluate(STATE_JS, spec)) from None
        python_s = time.monotonic() - t0
        rec = page.evaluate("() => { window.__bench.stop(); return window.__bench; }")
        if rec.get("failed"):  # the script raised: no result will come
            raise RunTimeout(page.evaluate(STATE_JS, spec), "the page raised an exception")
        figures = self._figures(rec, python_s)
        if first is not None:
            figures["first_s"] = None if rec.get("first") is None else round((rec["first"] - rec["t0"]) / 1000, 3)
        frame = page.evaluate(MAP_FRAME_JS, map_box)
        if frame is not None:  # a new iframe (first plan of a page) or the one already there (an edit)
            figures["map_frame"] = {
                "started_s": round((frame["start"] - rec["t0"]) / 1000, 3),
                "loaded_s": None if frame["loaded"] is None else round((frame["loaded"] - rec["t0"]) / 1000, 3),
                "resources": frame["resources"],
                "resource_kb": round(frame["resource_kb"], 1),
                "html_kb": round(frame["html_kb"], 1),
            }
        return figures

    def _figures(self, rec: dict, python_s: float) -> dict[str, Any]:
        t0, done = rec["t0"], rec["done"]
        states = [(s, t) for s, t in rec["states"] if t >= t0]
        running = [t for s, t in states if s == "running"]
        idle = [t for s, t in states if s == "notRunning"]
        last_idle = max(idle) if idle else done
        plan_s = None
        calls: list[dict] = []
        if self.probe_log is not None:
            calls, self._probe_line = read_calls(self.probe_log, since=self._probe_line)
            plan_s = round(sum(c["seconds"] for c in calls), 3) if calls else None
        return {
            "total_s": round((done - t0) / 1000, 3),
            "python_s": round(python_s, 3),
            "to_running_s": round((running[0] - t0) / 1000, 3) if running else None,
            "script_s": round((last_idle - running[0]) / 1000, 3) if running else None,
            "tail_s": round((done - last_idle) / 1000, 3),
            "reruns": len(running),
            "plan_s": plan_s,
            "server_calls": [c["call"] for c in calls],
            "ws_kb": round(self._ws_bytes / 1024, 1),
        }

    def _pick(self, page: Any, box: str, index: int, *, attempts: int = 3) -> None:
        """Choose option ``index`` of the selectbox in ``box`` (Streamlit 1.67: a react-aria combobox), checked by
        the label its input then shows; a click on a list still opening is retried."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        combo = page.locator(f"{box} input[role='combobox']")
        for attempt in range(attempts):
            try:
                self._idle(page)
                combo.click(timeout=15_000)
                option = page.get_by_role("option").nth(index)
                label = option.inner_text(timeout=15_000).strip()
                option.click(timeout=15_000)
                self._idle(page)
                if label and combo.input_value(timeout=15_000).strip() == label:
                    return
            except PlaywrightTimeout:
                if attempt == attempts - 1:
                    raise
            page.keyboard.press("Escape")
        raise PlaywrightTimeout(f"option {index} of {box} was not taken")

    @staticmethod
    def _stuck(page: Any, exc: Exception) -> RunTimeout:
        """A step of the form that failed (a widget never showed up): what the page showed instead."""
        spec = {"present": [], "map": None, "min_pins": 0}
        try:
            state = page.evaluate(STATE_JS, spec)
        except Exception:  # the page itself is gone
            state = {}
        lines = str(exc).splitlines()
        waiting = [line.strip() for line in lines if "waiting for" in line][:1]
        return RunTimeout(state, " ".join([lines[0] if lines else type(exc).__name__, *waiting]))

    # --- the scenarios -----------------------------------------------------------------------------

    def route_run(self, scenario: str, *, lang: str, paste: str | None = None) -> dict[str, Any]:
        """Load the demo scenario (and replace its stops by ``paste``), plan, time it."""
        from playwright.sync_api import Error as PlaywrightError

        page = self._page(f"route_planner?scenario={scenario}&lang={lang}")
        try:
            self._idle(page)
            page.locator(".st-key-load_scenario button").click()
            page.locator(".st-key-scenario_loaded").wait_for()
            n_stops = 8
            if paste is not None:
                self._idle(page)
                page.locator(".st-key-stops_clear button").click()
                self._idle(page)
                page.locator("details:has(.st-key-paste_stops) summary").click()
                area = page.locator(".st-key-paste_stops textarea")
                area.fill(paste)
                area.press("Control+Enter")
                self._idle(page)
                page.locator(".st-key-paste_apply button").click()
                n_stops = len(paste.splitlines())
            return self._timed_click(
                page,
                ".st-key-plan button",
                present=[".st-key-best_route_card", ".st-key-comparison_table", ".st-key-provider_calls_details"],
                map_box=".st-key-route_map_box",
                min_pins=n_stops,
            )
        except PlaywrightError as exc:
            raise self._stuck(page, exc) from None
        finally:
            page.context.close()

    def itinerary_run(self, trip_index: int, *, lang: str, edit: bool) -> list[dict[str, Any]]:
        """Load the demo trip, optimise (timed), then optionally remove the first stop and re-optimise (timed)."""
        from playwright.sync_api import Error as PlaywrightError

        page = self._page(f"itinerary?lang={lang}")
        try:
            self._idle(page)
            self._pick(page, ".st-key-trip_demo", trip_index)
            page.locator(".st-key-trip_load button").click()
            result_parts = [".st-key-day_map_box", ".st-key-it_details"]
            runs = [
                self._timed_click(
                    page, ".st-key-optimise button", present=result_parts, map_box=".st-key-day_map_box", min_pins=2
                )
            ]
            if edit:
                page.locator('.st-key-edit_action [role="radiogroup"] label').nth(
                    2
                ).click()  # EDIT_ACTIONS: lock, move, remove, unlock
                runs.append(
                    self._timed_click(
                        page,
                        ".st-key-edit_apply button",
                        present=[*result_parts, ".st-key-edits_table"],
                        map_box=".st-key-day_map_box",
                        min_pins=2,
                    )
                )
            return runs
        except PlaywrightError as exc:
            raise self._stuck(page, exc) from None
        finally:
            page.context.close()

    def page_switch_run(self, url_path: str, *, lang: str) -> dict[str, Any]:
        """From the route planner, the sidebar's link to ``url_path``, until the browser is on that page and its run
        is over (a run that raised ends the wait too, and is reported as a failure)."""
        from playwright.sync_api import Error as PlaywrightError

        page = self._page(f"route_planner?lang={lang}")
        try:
            self._idle(page)
            return self._timed_click(
                page,
                f'[data-testid="stSidebarNav"] a[href$="/{url_path}"]',
                present=[],  # every page's own parts differ (the agent console's title is not under stMain)
                map_box="",
                min_pins=0,
                path=url_path,
            )
        except PlaywrightError as exc:
            raise self._stuck(page, exc) from None
        finally:
            page.context.close()

    def halfday_run(self, goal: str, *, lang: str) -> dict[str, Any]:
        """The half-day page: type ``goal``, click "Plan", until the page is idle with its cards; ``first_s``: when the
        first card appeared (the goal of issue 23 §5)."""
        from playwright.sync_api import Error as PlaywrightError

        page = self._page(f"half_day?lang={lang}")
        try:
            self._idle(page)
            area = page.locator(".st-key-hd_goal textarea")
            area.fill(goal)
            area.press("Control+Enter")
            self._idle(page)
            return self._timed_click(
                page,
                ".st-key-hd_plan button",
                present=['[class*="st-key-hd_card_"]'],
                map_box="",
                min_pins=0,
                first='[class*="st-key-hd_card_"]',
            )
        except PlaywrightError as exc:
            raise self._stuck(page, exc) from None
        finally:
            page.context.close()

    # --- page loads and the assistant (issue 32 "Speed where a person waits") ----------------------

    def page_load_run(self, path: str, *, lang: str) -> dict[str, Any]:
        """Open ``path`` in a new browser context (a new session, as a new visitor): navigation start to the first
        animation frame where the app is idle after its first run, with the page's title and the sidebar drawn."""
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        context = self._browser.new_context(viewport={"width": 1440, "height": 1400}, locale="en-US")
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        # before any of the page's own scripts: every change of the app's script state, in the page's clock
        page.add_init_script(LOAD_RECORDER_JS)
        t0 = time.monotonic()
        try:
            page.goto(f"{self.base}/{path}?lang={lang}")
            page.wait_for_function(LOADED_JS, polling="raf", timeout=TIMEOUT_MS)
            python_s = time.monotonic() - t0
            rec = page.evaluate("() => window.__load")
        except PlaywrightTimeout:
            raise RunTimeout(page.evaluate(STATE_JS, {"present": [], "map": None, "min_pins": 0})) from None
        except PlaywrightError as exc:
            raise self._stuck(page, exc) from None
        finally:
            context.close()
        if rec.get("failed"):
            raise RunTimeout({"page": path}, "the page raised an exception")
        running = [t for s, t in rec["states"] if s == "running"]
        return {
            "total_s": round(rec["done"] / 1000, 3),  # performance.now() counts from the navigation's start
            "python_s": round(python_s, 3),
            "to_running_s": round(running[0] / 1000, 3) if running else None,
            "script_s": None,
            "tail_s": None,
            "reruns": len(running),
            "plan_s": None,
            "server_calls": [],
            "ws_kb": None,
        }

    def assistant_run(self, message: str, *, lang: str) -> dict[str, Any]:
        """The assistant's page: type ``message`` into the chat box, click send, until the answer is on screen and
        the page is idle."""
        from playwright.sync_api import Error as PlaywrightError

        page = self._page(f"agent_console?lang={lang}")
        try:
            self._idle(page)
            page.locator('[data-testid="stChatInputTextArea"]').fill(message)
            return self._timed_click(
                page,
                '[data-testid="stChatInputSubmitButton"]',
                present=['[data-testid="stChatMessageAvatarAssistant"]'],
                map_box="",
                min_pins=0,
            )
        except PlaywrightError as exc:
            raise self._stuck(page, exc) from None
        finally:
            page.context.close()


#: a page load's recorder, installed before the page's scripts: the app's script states from navigation start
LOAD_RECORDER_JS = """(() => {
  const rec = {states: [], done: null, failed: false};
  window.__load = rec;
  new MutationObserver(() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const s = app && app.getAttribute('data-test-script-state');
    const last = rec.states[rec.states.length - 1];
    if (s && (!last || last[0] !== s)) rec.states.push([s, performance.now()]);
  }).observe(document, {attributes: true, subtree: true, childList: true,
                        attributeFilter: ['data-test-script-state']});
})()"""

#: the first page is drawn: the app ran and is idle, with the page's title in the main area and the sidebar's pages
LOADED_JS = """() => {
  const rec = window.__load;
  if (!rec) return false;
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (!rec.states.some(([s]) => s === 'running')) return false;
  if (document.querySelector('[data-testid="stException"]')) { rec.failed = true; rec.done = performance.now();
    return true; }
  if (!document.querySelector('h1')) return false;  // the title (the agent console's is not under stMain)
  if (!document.querySelector('[data-testid="stSidebarNav"] a')) return false;
  rec.done = performance.now();
  return true;
}"""
