"""The half day's scope sentences name the place (issue 31 §1): the refusal of a goal in a city no installed region
covers says which place and which regions, and the switch says which place and which region, in both languages.
Run through the use case, as the page renders its stream."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from components.halfday.text import error_sentence, event_line
from core.app import AppServices
from core.app.halfday import plan_half_day
from core.config import Settings
from core.models.halfday.plans import HalfDayRequest

MOMENT = datetime(2026, 12, 3, 1, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    db = tmp_path_factory.mktemp("scope") / "words.db"
    return AppServices(Settings(region="shanghai", provider="offline", db_url=f"sqlite:///{db}", cache_dir=None))


def _events(services, goal):
    ctx = services.context(user="erin", region="shanghai", clock=lambda: MOMENT)
    return list(plan_half_day(ctx, HalfDayRequest(goal=goal, on_degraded="continue")))


def test_the_refusal_names_the_place_and_the_regions_installed(services):
    done = _events(services, "周日下午去里斯本坐电车")[-1]
    error = done.data.error
    zh, en = error_sentence(error, "zh"), error_sentence(error, "en")
    assert zh.startswith("你的目标提到了里斯本，已安装的地区都不包含它") and "已安装的地区：赫尔辛基、上海" in zh
    assert en.startswith("Your goal names 里斯本, which no installed region covers")
    assert "The regions installed: Helsinki and Shanghai" in en


def test_the_switch_names_the_place_and_the_region_planned_in(services):
    events = _events(services, "An afternoon in Helsinki: a design shop and a bakery")
    lines = {lang: [event_line(e, lang) for e in events] for lang in ("zh", "en")}
    assert (
        "⚠ Your goal names Helsinki, which the Helsinki region covers, so these plans are made in Helsinki."
        in (lines["en"])
    )
    assert "⚠ 你的目标提到了Helsinki，它在赫尔辛基地区之内，所以这些方案改在赫尔辛基做。" in lines["zh"]
