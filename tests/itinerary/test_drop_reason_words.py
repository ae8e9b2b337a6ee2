"""Each place left out of an itinerary says why in its own facts (issue 23): the day it would go on, its visit's
length, what fills that day; and a reason that says "it would fit" never sits beside a bare "no small change makes
it fit" — when no fix was found, the words say what was tried."""

from __future__ import annotations

import json

import pytest

from components.itinerary.words import no_fix_words
from core.config import get_settings
from core.geo.registry import make_provider
from core.itinerary.pipeline import plan_itinerary
from core.models.itinerary import TripRequest
from core.models.itinerary_result import DroppedItem
from core.words.itinerary import reason_sentence
from tests.support.paths import ROOT


@pytest.fixture(scope="module")
def family_day():
    trip = json.loads((ROOT / "data" / "trips" / "shanghai_family_day.json").read_text(encoding="utf-8"))
    return plan_itinerary(
        TripRequest.model_validate(trip),
        provider=make_provider("offline", region="shanghai", settings=get_settings()),
        settings=get_settings(),
    )


def test_every_left_out_place_is_explained_by_its_own_facts(family_day):
    dropped = family_day.dropped_items
    assert len(dropped) >= 2 and {d.reason_code for d in dropped} == {"LOW_PRIORITY_TRADEOFF"}
    for item in dropped:
        # distinct places (a long visit split around lunch is one place)
        planned = {e.key for e in family_day.days[item.facts["best_day"]].entries if e.kind == "visit"}
        assert item.facts["planned_on_day"] == len(planned)
        en = reason_sentence(item, family_day, "en")
        assert f"its {item.facts['visit_min']} min visit would fit day {item.facts['best_day'] + 1}" in en
        assert f"not beside all {len(planned)} places planned that day" in en
        zh = reason_sentence(item, family_day, "zh")
        assert f"{item.facts['visit_min']} 分钟的游览排得下" in zh and f"当天已排的 {len(planned)} 个地点" in zh
    # places of different lengths read differently (no one sentence for every place)
    assert len({reason_sentence(d, family_day, "en") for d in dropped}) == len({d.facts["visit_min"] for d in dropped})


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_fix_found_says_what_was_tried_not_a_bare_no(family_day, lang):
    [item, *_] = family_day.dropped_items
    none_found = item.model_copy(
        update={"smallest_fix": None, "facts": item.facts | {"fix_search": "none_found", "fixes_tried": 12}}
    )
    words = no_fix_words(none_found, lang)
    assert ("No single change of the 12 tried fits it" if lang == "en" else "试过的 12 个单项改动") in words
    assert words != no_fix_words(
        DroppedItem(key="x", name="x", priority="nice", reason_code="UNREACHABLE_IN_WINDOW", explanation=""), lang
    )
    exhausted = none_found.model_copy(update={"facts": item.facts | {"fix_search": "budget_exhausted"}})
    assert ("reached its limit" if lang == "en" else "达到了上限") in no_fix_words(exhausted, lang)


def test_a_left_out_place_records_whether_a_fix_was_searched_for(family_day):
    for item in family_day.dropped_items:
        assert item.facts["fixes_tried"] >= 1
        assert (item.smallest_fix is None) == (item.facts.get("fix_search") in ("none_found", "nothing_to_try"))
