"""The route planner's scenario picker shows the chosen demo's description in the reader's language (AppTest):
the file's ``description_zh`` in Chinese, its ``description`` in English; a file without a Chinese description
still loads, and in Chinese its English text is left out rather than shown untranslated."""

from __future__ import annotations

import json
import re

import pytest

from components.route.form import scenario_description
from core.models.route_views import Scenario
from core.route.scenarios import list_scenarios
from tests.conftest import ROOT
from tests.ui.test_route_language import planner

pytestmark = pytest.mark.ui

CJK = re.compile(r"[\u4e00-\u9fff]")


def captions(at) -> list[str]:
    return [c.value for c in at.caption]


def test_every_bundled_scenario_has_its_description_in_both_languages():
    scenarios = list_scenarios()
    assert len(scenarios) == len(list((ROOT / "data" / "scenarios").glob("*.json"))) >= 7
    for s in scenarios:
        assert s.description and s.description_zh, s.id
        assert len(CJK.findall(s.description_zh)) > len(s.description_zh) / 3, (s.id, s.description_zh)
        assert len(CJK.findall(s.description)) < len(s.description) / 10, (s.id, s.description)


def test_the_picker_shows_the_chosen_scenarios_description_in_chinese_and_in_english():
    by_id = {s.id: s for s in list_scenarios("shanghai")}
    zh = planner(lang="zh")
    zh.selectbox(key="scenario").set_value("walking-bund").run()
    assert not zh.exception, zh.exception
    shown = captions(zh)
    assert by_id["walking-bund"].description_zh in shown
    assert "人民广场" in by_id["walking-bund"].description_zh  # the Chinese text, not a copy of the English one
    assert not any(c == by_id["walking-bund"].description for c in shown)
    zh.selectbox(key="scenario").set_value("airport-run").run()
    assert by_id["airport-run"].description_zh in captions(zh)
    assert by_id["walking-bund"].description_zh not in captions(zh)

    en = planner(lang="en")
    en.selectbox(key="scenario").set_value("walking-bund").run()
    assert not en.exception, en.exception
    assert by_id["walking-bund"].description in captions(en)
    assert by_id["walking-bund"].description_zh not in captions(en)


def test_a_scenario_file_without_a_chinese_description_still_loads_and_says_nothing_untranslated_in_chinese():
    raw = json.loads((ROOT / "data" / "scenarios" / "walking-bund.json").read_text(encoding="utf-8"))
    del raw["description_zh"]
    older = Scenario.model_validate(raw)
    assert older.description_zh == ""
    assert scenario_description(older, "en") == raw["description"]
    assert scenario_description(older, "zh") == ""  # English text, not shown on a Chinese page
    chinese_only = older.model_copy(update={"description": "从人民广场步行到外滩,再到豫园。"})
    assert scenario_description(chinese_only, "zh") == "从人民广场步行到外滩,再到豫园。"
