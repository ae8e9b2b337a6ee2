"""Screenshots of every page in both languages for the README: ``.venv/bin/python scripts/screenshots.py``.

Starts ``streamlit run app.py`` on a free port (its own SQLite file, offline, every request to another host
blocked), runs each page's main flow in headless Chromium (the flows of the browser sweep,
tests/support/ui_flows.py) in 中文 and in English, and saves one 1440×900 screenshot per page and language after
its representative step to docs/screenshots/<page>-<lang>.png, plus the route planner's result at a phone's width
(390 px) to docs/screenshots/route_planner-phone-<lang>.png. The PNGs are reduced to a 256-colour palette (each
well under 400 KB). Then the README's "Screenshots" section (between its markers) is rewritten with the table.

Needs Debian's chromium (apt-get install -y chromium fonts-noto-cjk), like the browser tests.
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from core.i18n import t  # noqa: E402
from tests.support.chromium import CHROMIUM_ARGS, chromium_path  # noqa: E402
from tests.support.streamlit_server import running_app  # noqa: E402
from tests.support.ui_flows import FLOWS, REPRESENTATIVE, prepare  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
README = ROOT / "README.md"
LANGS = ("zh", "en")
LANG_NAMES = {"zh": "中文", "en": "English"}
DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
MAX_BYTES = 400_000
START = "<!-- screenshots:start (scripts/screenshots.py writes this section) -->"
END = "<!-- screenshots:end -->"


def save_png(data: bytes, path: Path) -> int:
    """A screenshot as a palette PNG (256 colours, optimised); returns its size in bytes."""
    image = Image.open(io.BytesIO(data)).convert("RGB")
    for colours in (256, 128, 64):
        buffer = io.BytesIO()
        image.quantize(colors=colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
            buffer, format="PNG", optimize=True
        )
        if buffer.tell() <= MAX_BYTES:
            break
    path.write_bytes(buffer.getvalue())
    return buffer.tell()


def shoot(browser, base: str, name: str, lang: str, *, viewport: dict[str, int], until: str) -> bytes:
    """Run the page's flow up to the step ``until`` in a fresh browser context and screenshot the viewport."""
    app_host = urlparse(base).netloc
    context = browser.new_context(viewport=viewport, locale="zh-CN" if lang == "zh" else "en-US")
    try:
        context.route(
            "**/*",
            lambda route: (
                route.abort()
                if urlparse(route.request.url).scheme in ("http", "https", "ws", "wss")
                and urlparse(route.request.url).netloc != app_host
                else route.continue_()
            ),
        )
        page = context.new_page()
        prepare(page)
        for step in FLOWS[name]:
            step.run(page, base, lang)
            if step.name == until:
                page.wait_for_timeout(800)  # let maps and charts finish drawing
                return page.screenshot()
        raise ValueError(f"{name} has no step {until!r}")
    finally:
        context.close()


def readme_section() -> str:
    rows = [
        "## Screenshots",
        "",
        "Each page after its main flow, in both languages (`.venv/bin/python scripts/screenshots.py` takes them",
        "again; the browser sweep `tests/ui/test_sweep_browser.py` walks the same flows and checks their words).",
        "",
        "| Page | 中文 | English |",
        "| --- | --- | --- |",
    ]
    for name in FLOWS:
        title = f"{t(f'common.nav.{name}', 'en')} · {t(f'common.nav.{name}', 'zh')}"
        cells = [f"![{title} ({LANG_NAMES[lang]})](docs/screenshots/{name}-{lang}.png)" for lang in LANGS]
        rows.append(f"| {title} | {cells[0]} | {cells[1]} |")
    title = f"{t('common.nav.route_planner', 'en')}, 390 px · {t('common.nav.route_planner', 'zh')}"
    cells = [f'<img src="docs/screenshots/route_planner-phone-{lang}.png" width="260" alt="{title}">' for lang in LANGS]
    rows.append(f"| {title} | {cells[0]} | {cells[1]} |")
    return "\n".join([START, *rows, END])


def write_readme() -> None:
    text = README.read_text(encoding="utf-8")
    section = readme_section()
    if START in text and END in text:
        before, rest = text.split(START, 1)
        after = rest.split(END, 1)[1]
        text = before + section + after
    else:  # first run: before the section on the two commands
        anchor = "## The two commands"
        text = text.replace(anchor, section + "\n\n" + anchor, 1) if anchor in text else text + "\n" + section + "\n"
    README.write_text(text, encoding="utf-8")


def main() -> int:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = {"OMNI_DB_URL": f"sqlite:///{Path(tmp) / 'screenshots.db'}", "OMNI_DASHBOARD_USER": "screenshots"}
        with running_app(log_path=Path(tmp) / "streamlit.log", env=env) as base, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            try:
                for lang in LANGS:
                    for name in FLOWS:
                        shot = shoot(browser, base, name, lang, viewport=DESKTOP, until=REPRESENTATIVE[name])
                        size = save_png(shot, OUT / f"{name}-{lang}.png")
                        print(f"{name}-{lang}.png  {size // 1024} KB")
                    shot = shoot(browser, base, "route_planner", lang, viewport=PHONE, until="result")
                    size = save_png(shot, OUT / f"route_planner-phone-{lang}.png")
                    print(f"route_planner-phone-{lang}.png  {size // 1024} KB")
            finally:
                browser.close()
    write_readme()
    print(f"README.md: section 'Screenshots' written ({len(FLOWS) * len(LANGS) + len(LANGS)} images)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
