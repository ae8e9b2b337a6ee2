"""Trip edits that say OK are the edits made: places told apart by what they resolve to, several places in one
edit, and concurrent edits of one trip that all land (on the bundled Shanghai pack)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from core.agent import route_and_run
from core.app.agent import agent_deps
from core.config import Settings
from core.geo.registry import make_provider
from core.stores.trips import TripStore
from tests.support.clock import SUITE_NOW
from tests.support.db import db_at
from tests.support.paths import ROOT


@pytest.fixture
def run(tmp_path):
    settings = Settings(
        data_dir=ROOT / "data",
        region="shanghai",
        db_url=f"sqlite:///{tmp_path / 'trips.db'}",
        agent_event_log=tmp_path / "events.jsonl",
        kb_dir=tmp_path / "kb",
    )
    provider = make_provider("offline", region="shanghai", settings=settings)

    def send(message: str, **kw):
        kw.setdefault("user_id", "alice")
        return route_and_run({"message": message, **kw}, agent_deps(settings, provider), now=SUITE_NOW)

    send.store = TripStore(db_at(settings.db_url))
    return send


def nodes(run, trip_id):
    return [n.name for n in run.store.get_trip(trip_id, user_id="alice").nodes]


@pytest.mark.parametrize("first,second", [("上海博物馆", "上海博物馆东馆"), ("外滩", "外滩美术馆")])
def test_a_place_whose_name_contains_another_is_another_place(run, first, second):
    trip_id = run(f"添加{first}").result.payload.trip["trip_id"]
    r = run(f"添加{second}", trip_id=trip_id)
    assert r.result.status == "OK" and "已经在行程里" not in r.result.answer_text
    assert len(nodes(run, trip_id)) == 2
    again = run(f"添加{first}", trip_id=trip_id)
    assert "已经在行程里" in again.result.answer_text and len(nodes(run, trip_id)) == 2


def test_several_places_in_one_edit_are_all_added_and_all_removed(run):
    made = run("加上外滩、豫园和新天地")
    trip_id = made.result.payload.trip["trip_id"]
    assert made.result.status == "OK"
    assert sorted(nodes(run, trip_id)) == sorted(["外滩", "豫园", "新天地"])
    r = run("删除外滩、豫园和新天地", trip_id=trip_id)
    assert r.result.status == "OK" and nodes(run, trip_id) == []
    assert r.result.answer_text.count("已从行程删除") == 3


def test_a_name_with_and_in_it_stays_one_place(run):
    trip_id = run("加上和平饭店").result.payload.trip["trip_id"]
    assert nodes(run, trip_id) == ["和平饭店"]


def test_a_list_with_an_unknown_part_is_not_split_into_guesses(run):
    trip_id = run("加上外滩").result.payload.trip["trip_id"]
    r = run("删除外滩和火星基地", trip_id=trip_id)  # one part is no place at all: nothing is removed on a guess
    assert r.result.status == "NEED_MORE_INFO" and nodes(run, trip_id) == ["外滩"]


def test_concurrent_edits_of_one_trip_all_land(run):
    trip_id = run("加上外滩").result.payload.trip["trip_id"]
    places = [
        "豫园",
        "新天地",
        "田子坊",
        "武康大楼",
        "静安寺",
        "上海博物馆",
        "上海科技馆",
        "世纪公园",
        "东方明珠广播电视塔",
        "上海中心大厦",
    ]
    with ThreadPoolExecutor(max_workers=len(places)) as pool:
        results = list(pool.map(lambda p: run(f"添加{p}", trip_id=trip_id), places))
    assert [r.result.status for r in results] == ["OK"] * len(places)
    stored = nodes(run, trip_id)  # canonical names: 上海博物馆 is stored as 上海博物馆(人民广场馆)
    assert len(stored) == len(places) + 1
    assert all(any(name.startswith(p) for name in stored) for p in ["外滩", *places])


@pytest.mark.parametrize(
    "message,place,day",
    [("把外滩加到我的行程", "外滩", None), ("把豫园加进行程里", "豫园", None), ("把新天地加到第二天", "新天地", 2)],
)
def test_every_way_of_saying_add_adds_without_asking_for_the_days(run, message, place, day):
    r = run(message)
    assert r.result.status == "OK", r.result.answer_text
    trip_id = r.result.payload.trip["trip_id"]
    assert nodes(run, trip_id) == [place]
    assert ("第2天" in r.result.answer_text) == (day == 2)


def test_an_english_edit_names_the_places_in_english(run):
    r = run("Add the Bund to my trip", conversation_context={"locale": "en-GB"})
    trip_id = r.result.payload.trip["trip_id"]
    assert r.result.answer_text.startswith("Added “The Bund” to the trip")
    again = run("add Yu Garden to day 2", trip_id=trip_id, conversation_context={"locale": "en-GB"})
    assert again.result.answer_text.endswith("The draft now has: The Bund, Yu Garden.")
    assert nodes(run, trip_id) == ["外滩", "豫园"]  # the trip keeps the pack's names; the words follow the reader
