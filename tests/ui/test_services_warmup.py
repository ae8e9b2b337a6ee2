"""The dashboard's warm-up step (components/services.py): the modules the pages import, read from their source."""

from __future__ import annotations

from components.services import LAZY_LIBRARIES, page_modules


def test_page_modules_are_read_from_the_pages_imports(tmp_path):
    (tmp_path / "a.py").write_text(
        "import streamlit as st\nfrom components.route import charts, form\nfrom . import local\n", encoding="utf-8"
    )
    (tmp_path / "b.py").write_text("from components.language import t\nx = 1\n", encoding="utf-8")
    assert page_modules(tmp_path) == [
        "streamlit",
        "components.route",
        "components.route.charts",
        "components.route.form",
        "components.language",
        "components.language.t",  # not a module: the warm-up skips it (find_spec refuses)
    ]


def test_the_real_pages_import_their_components_and_the_lazy_libraries_are_installed():
    import importlib.util

    modules = page_modules()
    for page_component in ("components.route.form", "components.itinerary.form", "components.halfday.cards"):
        assert page_component in modules
    assert all(importlib.util.find_spec(name) is not None for name in LAZY_LIBRARIES)


def test_the_warm_up_never_declares_a_streamlit_component():
    """A component declared outside a script run (the warm-up's thread) is never registered: streamlit_folium's maps
    then fail to load for the whole process. Checked in a fresh interpreter: nothing else has imported it there."""
    import subprocess
    import sys

    from core.config import PROJECT_ROOT

    code = (
        "import sys; from components.services import _import_pages; _import_pages(); "
        "assert 'components.route.form' in sys.modules and 'folium.plugins' in sys.modules; "
        "print(sorted(m for m in sys.modules if m.startswith('streamlit_folium')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
