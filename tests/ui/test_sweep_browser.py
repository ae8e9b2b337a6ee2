"""The browser sweep (issue 12 §6): every page of app.py in headless Chromium, in Chinese and in English, through its
main flow (tests/support/ui_flows.py), with a screenshot per step in test-artifacts/sweep/<page>-<lang>-<nn>-<step>.png
and, after each step, checks on what the main view shows a person:

- no reason code (an UPPER_SNAKE word such as CLOSED_ON_DAY), no ``None``, no ``nan``, no place id of a region pack
  (``sh-yuyuan-garden``), no raw JSON or Python dict, no traceback;
- in Chinese, no sentence of the English catalog (locales/en); in English, no Chinese character at all (place names
  are given in English where the pack has them, the Chinese name only in a tooltip, which is not in the main view's
  text);
- no JavaScript error, no console error, no resource answering 404 (a marker image in a map's frame), and no
  request leaving the machine.

Every page is opened by its URL, with app.py's frame checked (ui_flows.open_page); the first test opens a page URL
first after the server's start (the route planner, not the home page), the case of components/legacy_pages.py.

One ``streamlit run app.py`` serves the whole module (tests/support/streamlit_server.py) on its own SQLite file. The
main view's text is read as a person sees it: a collapsed "Details" expander's body and the icons' ligature names
are not in it. Tables drawn on a canvas (st.dataframe) are not read here; their words are unit-tested.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from urllib.parse import urlparse

import pytest

from core.i18n import LOCALES_DIR, read_catalog
from tests.support.chromium import SHARED_CHROMIUM
from tests.support.paths import ROOT
from tests.support.streamlit_server import running_app
from tests.support.ui_flows import FLOWS, main_text, prepare
from tests.ui.test_browser import ARTIFACTS

pytestmark = [pytest.mark.ui, pytest.mark.browser, pytest.mark.slow]

SWEEP = ARTIFACTS / "sweep"
LANGS = ("zh", "en")

CODE = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|(?<![\w/.-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/.-])")
SETTING = re.compile(r"^OMNI_[A-Z0-9_]+$")  # an environment variable the person sets (home's note) is not a code
NONE = re.compile(r"\bNone\b")
NAN = re.compile(r"\b(?:nan|NaN)\b")
RAW_JSON = re.compile(r"""[{\[]\s*["'][^"'\n]{1,60}["']\s*:""")
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+")
CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")
ID_LIKE = re.compile(r"\b[a-z]{2,4}-[a-z0-9]+(?:-[a-z0-9]+)*\b")
PLACEHOLDER = re.compile(r"\{[a-z_0-9]+\}")
IN_BRACKETS = re.compile(r"[(（]([^()（）]{1,40})[)）]")


def pack_places() -> tuple[set[str], set[str]]:
    """Every place id of the region packs (data/regions/*/places.csv, read from the files themselves), and every
    Chinese name and alias of their places."""
    ids: set[str] = set()
    names: set[str] = set()
    for path in sorted((ROOT / "data" / "regions").glob("*/places.csv")):
        with path.open(encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                ids.add(row["id"])
                names.update(n for n in [row.get("name_zh") or "", *(row.get("aliases") or "").split("|")] if n)
    return ids, {n for n in names if CJK.search(n)}


def english_sentences() -> set[str]:
    """Fragments of the English catalog a Chinese page must not show: each English message's text between its
    placeholders, when it is a sentence (three words or more) and not also part of the Chinese message (a brand, a
    unit, a domain)."""
    found: set[str] = set()
    for path in sorted((LOCALES_DIR / "en" / "LC_MESSAGES").glob("*.po")):
        english = read_catalog(path, "en")
        chinese = read_catalog(LOCALES_DIR / "zh" / "LC_MESSAGES" / path.name, "zh")
        for key, text in english.items():
            for fragment in PLACEHOLDER.split(text):
                fragment = fragment.strip(" .,:;·—()")
                if len(fragment.split()) >= 3 and fragment not in chinese.get(key, ""):
                    found.add(fragment)
    return found


PLACE_IDS, CHINESE_NAMES = pack_places()
ENGLISH = english_sentences()


def problems_in(text: str, lang: str) -> dict[str, list[str]]:
    """What the main view should never show, by check (an empty dict: nothing)."""
    found = {
        "code": sorted({c for c in CODE.findall(text) if not SETTING.match(c)}),  # CLOSED_ON_DAY, local_food
        "None": NONE.findall(text),
        "nan": NAN.findall(text),
        "place id": sorted({i for i in ID_LIKE.findall(text) if i in PLACE_IDS}),
        "raw JSON": RAW_JSON.findall(text),
        "traceback": TRACEBACK.findall(text),
    }
    if lang == "zh":
        found["English sentence"] = sorted(s for s in ENGLISH if s in text)
    else:
        # a place's Chinese name in brackets beside its English one ("its short alias (上海博物馆)") is allowed
        text = IN_BRACKETS.sub(lambda m: "" if m.group(1) in CHINESE_NAMES else m.group(0), text)
        found["Chinese"] = sorted({line.strip() for line in text.splitlines() if CJK.search(line)})
    return {check: seen for check, seen in found.items() if seen}


def test_the_checks_catch_what_they_are_for():
    """The sweep's checks find each kind of leak (and the pack ids and catalog sentences are really loaded)."""
    assert (
        {"sh-yuyuan-garden", "sh-bund"} <= PLACE_IDS
        and {"外滩", "上海博物馆"} <= CHINESE_NAMES
        and any(i.startswith("hel-") for i in PLACE_IDS)
    )
    assert "Plans ready" not in ENGLISH  # two words: too short to be told from a name
    assert problems_in("why: local_food", "en") == {"code": ["local_food"]}
    leaks = problems_in(
        'Reason: CLOSED_ON_DAY for sh-yuyuan-garden · price None · nan km\n{"stop": 1}\nFile "x.py", line 3', "en"
    )
    assert set(leaks) == {"code", "None", "nan", "place id", "raw JSON", "traceback"}
    assert leaks["code"] == ["CLOSED_ON_DAY"] and leaks["place id"] == ["sh-yuyuan-garden"]
    assert problems_in("设置 OMNI_AMAP_KEY 即可使用高德", "zh") == {}
    assert set(problems_in("外滩 Bund", "en")) == {"Chinese"}
    assert problems_in("the Bund (外滩)", "en") == {} and set(problems_in("the Bund (规划完成)", "en")) == {"Chinese"}
    english = next(iter(sorted(ENGLISH)))
    assert set(problems_in(f"规划完成 {english}", "zh")) == {"English sentence"}


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


# the home page last: the first test opens a page URL first after the server's start
ORDER = [(name, lang) for name in [*[n for n in FLOWS if n != "home"], "home"] for lang in LANGS]


@pytest.mark.parametrize("name,lang", ORDER, ids=[f"{n}-{lang}" for n, lang in ORDER])
def test_page_main_flow_speaks_plainly(sweep_server, chromium, name, lang):
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
    context = chromium.new_context(viewport={"width": 1440, "height": 900}, locale="en-US" if lang == "zh" else "zh-CN")
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
            shot = SWEEP / f"{name}-{lang}-{n:02d}-{step.name}.png"
            try:
                step.run(page, sweep_server, lang)
            except Exception as exc:  # the step did not reach its result: say what the page shows instead
                page.screenshot(path=str(shot))
                shown = problems_in(main_text(page), lang)
                raise AssertionError(f"{name} ({lang}) step {step.name}: {exc}\nthe main view shows: {shown}") from exc
            page.screenshot(path=str(shot))
            for check, found in problems_in(main_text(page), lang).items():
                seen.setdefault(check, {})[step.name] = found
    finally:
        context.close()

    pattern, flaky = KNOWN_CONSOLE.get(name, (None, ""))
    expected = [e for e in errors + missing if pattern is not None and pattern.search(e)]
    assert not [e for e in errors if e not in expected], errors
    assert not [u for u in missing if u not in expected], f"not found: {missing}"
    assert not blocked, f"requests left the machine: {blocked}"
    known = {check: why for (page_name, lang_, check), why in KNOWN.items() if (page_name, lang_) == (name, lang)}
    unexpected = {check: steps for check, steps in seen.items() if check not in known}
    assert not unexpected, f"the main view of {name} ({lang}) shows: {unexpected}"
    fixed = sorted(set(known) - set(seen))
    assert not fixed, f"fixed, remove from KNOWN: {fixed}"
    if known:
        pytest.xfail("; ".join(f"{check}: {why}" for check, why in sorted(known.items())))
    if expected:
        pytest.xfail(f"{flaky}: {expected}")
