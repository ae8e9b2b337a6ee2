"""The QA acceptance set (spec §9, core/agent/acceptance.py) without the browser: every case but the captcha one (a
headless Chromium visit, run by the operator page's browser test) passes on the test pack."""

from __future__ import annotations

import pytest

from core.agent.acceptance import QA_CASES, _run_case
from core.app.agent import agent_deps
from tests.support.agent_packs import FIXED_NOW, make_provider, make_settings


@pytest.mark.parametrize("case", [c for c in QA_CASES if not c.get("captcha")], ids=lambda c: c["case"])
def test_the_qa_case_passes(tmp_path, case):
    settings = make_settings(tmp_path)
    row = _run_case(case, agent_deps, settings, make_provider(settings), "http://127.0.0.1:9", now=FIXED_NOW)
    assert row["passed"], row
