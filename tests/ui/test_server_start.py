"""The dashboard's start (components/server_start.py): the warm-up runs before Streamlit serves, and the pages get
the services it warmed (issue 32: the first visitor finds a warm server)."""

from __future__ import annotations

import json
import subprocess
import sys

from core.config import PROJECT_ROOT

#: in a fresh interpreter (nothing imported yet): warm as the start does, then a script run, as a page's, asks for
#: the process's services
_START_THEN_PAGE = """
import json, sys
from components.server_start import warm_before_serving
state = warm_before_serving()
imported = {m: m in sys.modules for m in ("components.frame", "components.route.form", "components.halfday.cards",
                                         "components.agent.words", "folium.plugins", "core.optimizer.ils")}
from streamlit.testing.v1 import AppTest

PAGE = (
    "import streamlit as st\\n"
    "from components.services import app_services\\n"
    "st.session_state['services'] = id(app_services())\\n"
)
run = AppTest.from_string(PAGE).run(timeout=120)
from components.services import app_services
from core.app.warmup import start_warm_up
print(json.dumps({
    "done": None if state is None else state.done.is_set(),
    "steps": [] if state is None else sorted(state.seconds),
    "failed": {} if state is None else state.failed,
    "imported": imported,
    "same_services": run.session_state["services"] == id(app_services()),
    "one_warm_up": state is not None and start_warm_up(app_services()) is state,
}))
"""


def _start(env_extra: dict[str, str]) -> dict:
    import os

    done = subprocess.run(
        [sys.executable, "-c", _START_THEN_PAGE],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, **env_extra},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_the_start_warms_before_serving_and_the_pages_share_what_it_warmed():
    out = _start({"OMNI_WARM_UP_ON_START": "1"})
    assert out["done"] is True and out["failed"] == {}
    assert out["steps"] == [
        "database:shanghai",
        "halfday_planning:shanghai",
        "packs_and_geocoder:shanghai",
        "page_modules",
        "place_scope:shanghai",
        "route_kernels:shanghai",
        "words_and_packs:shanghai",
    ]
    assert all(out["imported"].values()), out["imported"]  # the app's and the pages' modules, the kernels
    assert out["same_services"] is True  # a page's app_services() is the one warmed at start
    assert out["one_warm_up"] is True  # its warm-up is the one that ran, not started again


def test_with_the_warm_up_off_the_start_warms_nothing():
    out = _start({"OMNI_WARM_UP_ON_START": "0"})
    assert out["done"] is None and out["steps"] == []
    assert not out["imported"]["components.route.form"] and not out["imported"]["components.halfday.cards"]
    assert out["same_services"] is True
