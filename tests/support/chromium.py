"""One headless Chromium (Debian's, driven by Playwright) for a whole test run.

Each test opens its own browser context on it: its own cookies, storage, viewport, permissions and request routes,
as isolated as a new browser, without paying a browser's start for every test (a second or more on two cores).
Started on first use; ``close()`` stops it at the end of the session (tests/conftest.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from core.agent.chromium import CHROMIUM_ARGS  # the same flags as the agent's browse executor


def chromium_path() -> str:
    path = shutil.which("chromium") or "/usr/bin/chromium"
    assert Path(path).is_file(), "Chromium is required for the browser test: apt-get install -y chromium fonts-noto-cjk"
    return path


class SharedChromium:
    """The run's browser: launched on first use, launched again if it went away (a crash must not fail the rest)."""

    def __init__(self) -> None:
        self._playwright: Any = None
        self._browser: Any = None

    def browser(self) -> Any:
        if self._browser is None or not self._browser.is_connected():
            from playwright.sync_api import sync_playwright

            if self._playwright is None:
                self._playwright = sync_playwright().start()
            self._browser = self._playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        return self._browser

    def close(self) -> None:
        if self._browser is not None:
            self._browser.close()
        if self._playwright is not None:
            self._playwright.stop()
        self._browser = self._playwright = None


SHARED_CHROMIUM = SharedChromium()
