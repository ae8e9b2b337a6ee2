"""The browser sweep (issue 12 §6, issue 32): every page of app.py in headless Chromium, in Chinese and in English,
through its main flow (tests/support/ui_flows.py), at 1440 px and, for the route planner and the itinerary, at 390 px
too, with a screenshot per step in test-artifacts/sweep/<page>-<lang>[-390]-<nn>-<step>.png and, after each step,
checks on what the main view shows a person (tests/support/sweep_checks.py, shared with the AppTest sweep in
tests/ui/test_sweep.py, which also reads the tables):

- no reason code (an UPPER_SNAKE word such as CLOSED_ON_DAY), no ``None``/``True``/``False``, no ``nan``, no place
  id of a region pack (``sh-yuyuan-garden``), no raw JSON or Python dict, no traceback;
- in Chinese, no sentence of the English catalog (locales/en); in English, no Chinese character (place names are
  given in English where the pack has them; a Chinese name only in brackets beside the English one, or where the
  pack has no English name);
- no JavaScript error, no console error, no resource answering 404 (a marker image in a map's frame), and no
  request leaving the machine.

What only a browser shows is read here: the text that components draw (maps' legends and captions, the lab's map),
JavaScript and console errors, resources answering 404, requests leaving the machine. The AppTest sweep reads every
page's main view in both languages on every run, so here each page runs once, in one language, the languages
alternating over the pages (the route planner, whose map legends and captions carry most words, in both), and the
two pages that reflow most once more at 390 px, each in the language it is not swept in at 1440 px: each language is
read by a browser on every page that differs between them, and the run stays within CI's time.

Every page is opened by its URL, with app.py's frame checked (ui_flows.open_page); the first test opens a page URL
first after the server's start (the route planner, not the home page), the case of components/legacy_pages.py.

One ``streamlit run app.py`` serves the whole module (tests/support/streamlit_server.py) on its own SQLite file. The
main view's text is read as a person sees it: a collapsed "Details" expander's body and the icons' ligature names
are not in it. Tables drawn on a canvas (st.dataframe) are not read here; the AppTest sweep reads them.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from urllib.parse import urlparse

import pytest
from PIL import Image

from tests.support.chromium import SHARED_CHROMIUM
from tests.support.streamlit_server import running_app
from tests.support.sweep_checks import problems_in
from tests.support.ui_flows import FLOWS, main_text, prepare
from tests.ui.test_browser import ARTIFACTS

pytestmark = [pytest.mark.ui, pytest.mark.browser, pytest.mark.slow]

SWEEP = ARTIFACTS / "sweep"
LANGS = ("zh", "en")

# Defects the sweep found on pages that are being changed by others (route planner, itinerary): (page, lang, check)
# → what is shown. Such a check is expected to fail until it is fixed, and the test fails once it no longer does.
KNOWN: dict[tuple[str, str, str], str] = {}
# Console errors seen on those pages, not on every run (a race): page → (what the error says, why). When they are
# the only errors, the test is an expected failure; any other error fails it.
KNOWN_CONSOLE: dict[str, tuple[re.Pattern[str], str]] = {}


@pytest.fixture(scope="module")
def sweep_server(tmp_path_factory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("sweep") / "sweep.db"
    with running_app(
        log_path=SWEEP / "streamlit.log",
        env={"OMNI_DB_URL": f"sqlite:///{db}", "OMNI_DASHBOARD_USER": "sweep-tester"},
    ) as base:
        yield base


@pytest.fixture(scope="module")
def chromium():
    """The run's Chromium (tests/support/chromium.py); each page of the sweep opens its own context on it."""
    return SHARED_CHROMIUM.browser()


def _is_streamlit_probe(url: str) -> bool:
    """Streamlit's own probes of ``<page>/_stcore/health`` and ``host-config`` when a page URL is opened first
    (they answer 404 before it falls back to the root): not an error of the app."""
    return "/_stcore/" in urlparse(url).path


#: page → the languages its main flow is swept in at 1440 px (see the module's docstring)
WIDE_LANGS = {
    "route_planner": LANGS,
    "itinerary": ("zh",),
    "agent_console": ("en",),
    "half_day": ("zh",),
    "strategy_lab": ("en",),
    "home": ("zh",),
}
# the home page last: the first test opens a page URL first after the server's start
ORDER = [(name, lang) for name in [*[n for n in FLOWS if n != "home"], "home"] for lang in WIDE_LANGS[name]]


@pytest.mark.parametrize("name,lang", ORDER, ids=[f"{n}-{lang}" for n, lang in ORDER])
def test_page_main_flow_speaks_plainly(sweep_server, chromium, name, lang):
    sweep(sweep_server, chromium, name, lang, width=1440)


#: on a phone (390 px wide), the pages whose tables and panels reflow most, each in its other language
PHONE = [("route_planner", "zh"), ("itinerary", "en")]


@pytest.mark.parametrize("name,lang", PHONE, ids=[f"{n}-{lang}-390" for n, lang in PHONE])
def test_page_main_flow_speaks_plainly_on_a_phone(sweep_server, chromium, name, lang):
    sweep(sweep_server, chromium, name, lang, width=390)


LAND = (238, 240, 234)  # components/lab/map.LAND


def _near(colour: tuple[int, int, int], target: tuple[int, int, int], tolerance: int = 12) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(colour, target))


def _lab_map_colours(page) -> set[tuple[int, int, int]]:
    deck = page.locator(".st-key-lab_map_box [data-testid='stDeckGlJsonChart']")
    drawn = Image.open(io.BytesIO(deck.screenshot())).convert("RGB")
    return {colour for _, colour in drawn.getcolors(maxcolors=1 << 20)}


#: page → what its canvas must show once the flow is done (a drawn map, not a blank canvas), read from its pixels:
#: the lab's pydeck map of the batch's routes on the pack's own streets (deck.gl is bundled: no tiles, no CDN)
DRAWN = {
    "strategy_lab": {
        "many colours": lambda page: len(_lab_map_colours(page)) > 50,
        "land under the streets": lambda page: any(_near(c, LAND) for c in _lab_map_colours(page)),
        "a fastest-time route (orange)": lambda page: any(
            r > 200 and 90 < g < 170 and b < 110 for r, g, b in _lab_map_colours(page)
        ),
    }
}


def sweep(sweep_server: str, chromium, name: str, lang: str, *, width: int) -> None:
    """The page's main flow in ``lang`` at ``width`` px, a screenshot per step, and the checks after each step."""
    SWEEP.mkdir(parents=True, exist_ok=True)
    app_host = urlparse(sweep_server).netloc
    blocked: list[str] = []
    errors: list[str] = []
    missing: list[str] = []

    def only_local(route):
        parsed = urlparse(route.request.url)
        if parsed.scheme in ("http", "https", "ws", "wss") and parsed.netloc != app_host:
            blocked.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    def console(message):
        if message.type == "error" and not _is_streamlit_probe(message.location.get("url", "")):
            errors.append(f"console: {message.text} ({message.location.get('url')})")

    # the browser's own language is the other one: the page must follow ?lang=
    viewport = {"width": width, "height": 900 if width > 600 else 844}
    context = chromium.new_context(viewport=viewport, locale="en-US" if lang == "zh" else "zh-CN")
    try:
        context.route("**/*", only_local)
        page = context.new_page()
        prepare(page)
        page.on("console", console)
        page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
        page.on(
            "response", lambda r: missing.append(r.url) if r.status == 404 and not _is_streamlit_probe(r.url) else None
        )
        seen: dict[str, dict[str, list[str]]] = {}
        for n, step in enumerate(FLOWS[name]):
            phone = "" if width > 600 else f"-{width}"
            shot = SWEEP / f"{name}-{lang}{phone}-{n:02d}-{step.name}.png"
            try:
                step.run(page, sweep_server, lang)
            except Exception as exc:  # the step did not reach its result: say what the page shows instead
                page.screenshot(path=str(shot))
                shown = problems_in(main_text(page), lang)
                raise AssertionError(f"{name} ({lang}) step {step.name}: {exc}\nthe main view shows: {shown}") from exc
            page.screenshot(path=str(shot))
            for check, found in problems_in(main_text(page), lang).items():
                seen.setdefault(check, {})[step.name] = found
        drawn = {name: check(page) for name, check in DRAWN.get(name, {}).items()}
    finally:
        context.close()

    pattern, flaky = KNOWN_CONSOLE.get(name, (None, ""))
    expected = [e for e in errors + missing if pattern is not None and pattern.search(e)]
    assert not [e for e in errors if e not in expected], errors
    assert not [u for u in missing if u not in expected], f"not found: {missing}"
    assert not blocked, f"requests left the machine: {blocked}"
    assert all(drawn.values()), f"not drawn on {name}: {[what for what, ok in drawn.items() if not ok]}"
    known = {check: why for (page_name, lang_, check), why in KNOWN.items() if (page_name, lang_) == (name, lang)}
    unexpected = {check: steps for check, steps in seen.items() if check not in known}
    assert not unexpected, f"the main view of {name} ({lang}) shows: {unexpected}"
    fixed = sorted(set(known) - set(seen))
    assert not fixed, f"fixed, remove from KNOWN: {fixed}"
    if known:
        pytest.xfail("; ".join(f"{check}: {why}" for check, why in sorted(known.items())))
    if expected:
        pytest.xfail(f"{flaky}: {expected}")
