"""What the server's sessions share, for every page: the application services and the settings in force.

One ``AppServices`` per server process (providers with their caches and breakers, reservation services); it keeps
nothing of a session or a script run. Pages plan through ``components.frame.request_context()``, a context per run.
Building it starts the process's warm-up (core/app/warmup.py) on a background thread, so neither the first plan
nor the first visit of a page pays for kernels, indexes and imports, and the first page is not held up by them.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import streamlit as st

from core.app import AppServices
from core.app.warmup import start_warm_up
from core.clock import Clock, clock_from_settings
from core.config import Settings

PAGES_DIR = Path(__file__).resolve().parent.parent / "pages"
APP_SCRIPT = PAGES_DIR.parent / "app.py"  # the entry point: its imports are the first page's too
#: imported inside functions on a page's first map or chart (folium.plugins ~1 s of streamlit_folium's 1.3 s).
#: Never a module that declares a Streamlit component (streamlit_folium): declared outside a script run, a component
#: is not registered, and every map of the process then says "trouble loading the component".
LAZY_LIBRARIES = ("folium", "folium.plugins", "altair")
COMPONENT_MODULES = ("streamlit_folium",)


#: a page's top-level imports, read as text: ``import a.b as c``, ``from a.b import c, d``, ``from a import (c, d)``
_IMPORT = re.compile(r"^import\s+([\w.]+)|^from\s+([\w.]+)\s+import\s+(?:\(([^)]*)\)|([^\n#]*))", re.M)


def page_modules(pages_dir: Path = PAGES_DIR, *, entry: Path | None = None) -> list[str]:
    """The modules the pages (and ``entry``, the app's script) import at their top (``from components.route import
    form`` → components.route.form), read from their source as text, without running or parsing it: ``ast.parse``
    on this thread while Streamlit parses a page script (its magic) trips CPython 3.11's shared AST recursion
    counter ("AST constructor recursion depth mismatch")."""
    found: dict[str, None] = {}
    for path in [*([entry] if entry else []), *sorted(pages_dir.glob("*.py"))]:
        for plain, module, grouped, names in _IMPORT.findall(path.read_text(encoding="utf-8")):
            if plain:
                found[plain] = None
                continue
            if module.startswith("."):  # a relative import: no page has one to warm
                continue
            found[module] = None
            for part in (grouped or names).split(","):
                name = part.split(" as ")[0].strip()
                if name.isidentifier():
                    found[f"{module}.{name}"] = None  # kept only if it is a module (see _import_pages)
    return list(found)


def _import_pages() -> None:
    for name in [*page_modules(entry=APP_SCRIPT), *LAZY_LIBRARIES]:
        if name.startswith(COMPONENT_MODULES):
            continue
        try:
            if importlib.util.find_spec(name) is None:
                continue
        except (ImportError, ValueError):  # "a.b" where a is a module, not a package: b is a name in it
            continue
        importlib.import_module(name)


@st.cache_resource(show_spinner=False)
def app_services() -> AppServices:
    """The process's shared services (built once; they read the settings in force each time they are asked)."""
    services = AppServices()
    if services.settings.warm_up_on_start:
        start_warm_up(services, face_steps=[("page_modules", _import_pages)])
    return services


def settings() -> Settings:
    """The settings in force (a test may change them between runs)."""
    return app_services().settings


def request_clock() -> Clock:
    """The product's clock for this run: ``OMNI_NOW``'s fixed moment (tests, demos), else the machine's."""
    return clock_from_settings(settings())
