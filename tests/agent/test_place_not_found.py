"""A place the message names that the region's data does not have under that name (issue 31): resolved where the
data's name is the same place said another way (赫尔辛基火车站 / 赫尔辛基中央车站, Helsinki train station /
Helsinki Central Railway Station), else said in the answer as not found, in the reply's language, with the places
that really resemble it offered (never planned in its stead, and never read as an interest such as 博物馆)."""

from __future__ import annotations

import pytest

from core.agent import route_and_run
from core.app.agent import agent_deps
from core.config import Settings
from core.geo.registry import make_provider
from tests.support.agent_packs import FIXED_NOW


@pytest.fixture(scope="module")
def ask(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("not-found")

    def run(region: str, message: str):
        settings = Settings(  # type: ignore[call-arg]
            region=region,
            provider="offline",
            cache_dir=None,
            db_url=f"sqlite:///{tmp / 'trips.db'}",
            agent_event_log=tmp / "events.jsonl",
        )
        provider = make_provider("offline", region=region, settings=settings)
        return route_and_run({"message": message, "user_id": "alice"}, agent_deps(settings, provider), now=FIXED_NOW)

    return run


def visits(r) -> list[str]:
    return [e["key"] for e in r.result.payload.timeline if e["kind"] == "visit"]


def wishes(r) -> dict[str, object]:
    return {(w.wish.kind, w.wish.code or w.wish.phrase): w for w in r.result.payload.wishes}


STATION = "hel-w122595198"  # 赫尔辛基中央车站 / Helsinki Central Railway Station
STATION_NODE = "hel-n25389429"  # the same station's node ("Helsinki", Helsinki railway station)


@pytest.mark.parametrize(
    "message",
    [
        "规划明天赫尔辛基一日游：赫尔辛基火车站、赫尔辛基大教堂",
        "Plan a day in Helsinki tomorrow: Helsinki train station and Ateneum",
    ],
)
def test_a_station_named_with_another_word_of_station_is_planned_once(ask, message):
    r = ask("helsinki", message)
    assert r.result.status == "OK", r.result.answer_text
    planned = visits(r)
    assert STATION in planned and STATION_NODE not in planned, r.result.answer_text  # one spot, planned once
    assert wishes(r)[("place", STATION)].status == "met"


def test_a_place_the_data_does_not_have_is_said_as_not_found_in_chinese(ask):
    r = ask("helsinki", "规划明天赫尔辛基一日游：赫尔辛基西站和赫尔辛基大教堂")
    outcome = wishes(r)[("place_not_found", "赫尔辛基西站")]
    assert (outcome.status, outcome.reason, outcome.place_ids) == ("not_met", "not_found", [])
    assert "· “赫尔辛基西站”：没有找到，本地区资料里没有这个名字的地方，所以没有排进行程" in r.result.answer_text
    assert STATION not in visits(r) and STATION_NODE not in visits(r)  # another station is not planned in its stead


def test_a_place_the_data_does_not_have_is_said_as_not_found_in_english(ask):
    r = ask("helsinki", "Plan a day in Helsinki tomorrow: Helsinki West Station and Ateneum")
    outcome = wishes(r)[("place_not_found", "Helsinki West Station")]
    assert (outcome.status, outcome.reason) == ("not_met", "not_found")
    assert "· “Helsinki West Station”: not found: the region's data has no place of that name" in r.result.answer_text
    assert STATION_NODE not in visits(r) and STATION not in visits(r)  # "station" alone names no place


def test_a_misspelt_place_is_offered_what_it_resembles_never_planned_as_it(ask):
    r = ask("shanghai", "规划明天上海一日游：龙华庙、外滩")
    outcome = wishes(r)[("place_not_found", "龙华庙")]
    assert (outcome.reason, outcome.place_ids) == ("not_found", ["sh-longhua-temple"])
    assert "您是不是指龙华寺？" in r.result.answer_text
    assert "sh-longhua-temple" not in visits(r)


def test_a_museum_the_data_does_not_have_is_not_read_as_an_interest_met_by_another(ask):
    r = ask("helsinki", "规划明天赫尔辛基一日游：芬兰设计博物馆、赫尔辛基大教堂")
    said = wishes(r)
    assert said[("place_not_found", "芬兰设计博物馆")].reason == "not_found"
    assert ("interest", "museum") not in said, r.result.answer_text
