"""System 1: trip CRUD on the persisted draft (SQLite), weather honesty, travel time, BM25 RAG."""

from __future__ import annotations

import re
import sqlite3

import pytest

from core.agent import route_and_run
from core.agent.rag import BM25Index, KBDoc, knowledge_base, tokenize
from core.agent.trip_edit_text import parse_trip_edit
from core.agent.when import sun_times
from core.app.agent import agent_deps
from core.packs.loader import load_region
from core.stores.trips import TripStore, open_store
from tests.support.agent_packs import FIXED_NOW, agent_runner, make_settings
from tests.support.db import db_at


@pytest.fixture
def env(tmp_path):
    return agent_runner(tmp_path)


def test_store_creates_its_schema_on_start(tmp_path):
    url = f"sqlite:///{tmp_path / 'sub' / 'x.db'}"
    TripStore(db_at(url))
    tables = {r[0] for r in sqlite3.connect(tmp_path / "sub" / "x.db").execute("SELECT name FROM sqlite_master")}
    assert {"trips", "trip_edits", "dry_runs", "commitments"} <= tables


def test_crud_round_trip_is_persisted(env):
    r = env("加上豫园")
    assert r.route.route == "SYSTEM1_API" and r.result.status == "OK"
    trip_id = r.result.payload.trip["trip_id"]
    assert r.result.payload.trip["nodes"][0]["place_id"] == "a-yuyuan"
    env("add the Bund to day 1")
    env("加上上海博物馆")
    r = env("把豫园移到第二天", trip_id=trip_id)
    assert r.result.status == "OK" and "第2天" in r.result.answer_text
    r = env("把上海博物馆设为必去", trip_id=trip_id)
    assert r.result.status == "OK"
    r = env("行程重命名为周末之旅", trip_id=trip_id)
    assert r.result.payload.trip["title"] == "周末之旅"
    r = env("swap day 1 and day 2", trip_id=trip_id)
    assert r.result.status == "OK"
    r = env("remove the Bund", trip_id=trip_id)
    assert r.result.status == "OK"
    # what the store now holds (a fresh connection to the same file)
    store = TripStore(db_at(env.settings.db_url))
    draft = store.get_trip(trip_id, user_id="alice")
    assert draft.title == "周末之旅"
    nodes = {n.name: n for n in draft.nodes}
    assert set(nodes) == {"豫园", "上海博物馆"}
    assert nodes["豫园"].day == 1  # moved to day 2, then days 1 and 2 swapped
    assert nodes["上海博物馆"].priority == "must"
    assert [e["op"] for e in store.list_edits(trip_id)] == [
        "add",
        "add",
        "add",
        "move",
        "prioritize",
        "rename",
        "swap_days",
        "delete",
    ]


def test_delete_of_a_place_not_in_the_draft_names_it(env):
    r = env("删除清水寺")
    assert r.route.route == "SYSTEM1_API"
    assert r.result.status == "NEED_MORE_INFO"
    assert "清水寺" in r.result.answer_text and "草稿" in r.result.answer_text
    env("加上外滩")
    r = env("删除清水寺")
    assert r.result.status == "NEED_MORE_INFO"
    assert "清水寺" in r.result.answer_text and "外滩" in r.result.answer_text  # lists what the draft has
    r = env("Remove Kiyomizu-dera from my trip")
    assert "Kiyomizu-dera" in r.result.answer_text and r.result.status == "NEED_MORE_INFO"


def test_adding_an_unknown_place_says_it_has_no_coordinates(env):
    r = env("加上清水寺")
    assert r.result.status == "OK"
    node = r.result.payload.trip["nodes"][0]
    assert node["resolved"] is False and node["place_id"] is None
    assert "知识库里没有" in r.result.answer_text


def test_other_users_trip_is_not_editable(env):
    trip_id = env("加上外滩").result.payload.trip["trip_id"]
    r = env("删除外滩", trip_id=trip_id, user_id="mallory")
    assert r.result.status == "NEED_MORE_INFO"
    assert [n.name for n in open_store(db_at(env.settings.db_url)).get_trip(trip_id, user_id="alice").nodes] == ["外滩"]


@pytest.mark.parametrize(
    "message,op,target,day",
    [
        ("删除清水寺", "delete", "清水寺", None),
        ("把外滩从行程里删掉", "delete", "外滩", None),
        ("豫园不去了", "delete", "豫园", None),
        ("remove the Bund from my trip", "delete", "Bund", None),
        ("加上豫园到第3天", "add", "豫园", 3),
        ("add Yu Garden to day 2", "add", "Yu Garden", 2),
        ("把豫园移到第二天", "move", "豫园", 2),
        ("move the Bund to day 3", "move", "Bund", 3),
        ("把豫园设为必去", "prioritize", "豫园", None),
    ],
)
def test_parse_trip_edit(message, op, target, day):
    e = parse_trip_edit(message)
    assert (e.op, e.target, e.day) == (op, target, day)


def test_weather_offline_is_honest_and_never_forecasts(env):
    r = env("明天天气")
    assert r.route.route == "SYSTEM1_API" and r.result.status == "OK"
    text = r.result.answer_text
    assert "没有可用的实时天气数据源" in text and "不会编造" in text
    assert "2025-06-21" in text
    assert not re.search(r"-?\d+\s*(°|℃|度)", text)  # no temperature is invented
    kinds = {e["type"]: e for e in r.result.payload.evidence}
    assert kinds["weather"]["available"] is False
    assert kinds["sun_times"]["source"] == "astronomical_calculation"
    en = env("What's the weather tomorrow?")
    assert "No live weather source" in en.result.answer_text


def test_weather_uses_the_provider_when_it_has_a_source(env):
    from datetime import date

    from core.geo.base import DayForecast
    from core.geo.composite import MapServices

    class StubWeather:
        name = "stubweather"

        def weather_forecast(self, city):
            return [
                DayForecast(
                    city="上海",
                    adcode="310000",
                    date=date(2025, 6, 21),
                    day_weather="晴",
                    night_weather="多云",
                    day_temp_c=31,
                    night_temp_c=24,
                    source="stubweather:forecast",
                )
            ]

    inner = env.provider
    provider = MapServices(geocoder=inner.geocoder, router=inner.router, region=inner.region, weather=StubWeather())
    r = route_and_run({"message": "明天天气", "user_id": "u"}, agent_deps(env.settings, provider), now=FIXED_NOW)
    assert "晴 31°C" in r.result.answer_text and "stubweather:forecast" in r.result.answer_text
    weather = next(e for e in r.result.payload.evidence if e["type"] == "weather")
    assert weather["day_temp_c"] == 31 and weather["source"] == "stubweather:forecast"


def test_sunset_calculation_matches_known_values():
    from datetime import date

    rise, sets = sun_times(date(2025, 6, 21), lon=121.47, lat=31.23, tz="Asia/Shanghai")
    assert (rise.hour, sets.hour) == (4, 19)
    assert abs((sets.hour * 60 + sets.minute) - (19 * 60 + 1)) <= 3  # Shanghai, June solstice: ~19:01
    rise, sets = sun_times(date(2025, 12, 21), lon=121.47, lat=31.23, tz="Asia/Shanghai")
    assert abs((sets.hour * 60 + sets.minute) - (16 * 60 + 55)) <= 4  # ~16:55


def test_travel_time_through_the_provider(env):
    r = env("从外滩到豫园步行要多久")
    assert r.result.status == "OK"
    ev = r.result.payload.evidence[0]
    assert (ev["from"], ev["to"], ev["mode"], ev["source"]) == ("外滩", "豫园", "walking", "offline_estimate")
    leg = env.provider.route((121.4880, 31.2402), (121.4921, 31.2272), mode="walking")
    assert ev["duration_s"] == leg.duration_s
    assert f"{round(leg.duration_s / 60)} 分钟" in r.result.answer_text and "直线估算" in r.result.answer_text


def test_travel_time_to_an_unknown_place_asks(env):
    r = env("从外滩到清水寺要多久")
    assert r.result.status == "NEED_MORE_INFO" and "清水寺" in r.result.answer_text


def test_rag_answers_with_cited_evidence(env):
    r = env("豫园几点开门")
    assert r.route.route == "SYSTEM1_RAG" and r.result.status == "OK"
    assert r.result.payload.evidence[0]["doc_id"] == "a-yuyuan"
    assert "周二-周日 09:00-16:30; 周一 休息" in r.result.answer_text  # the pack's Tu-Su 09:00-16:30; Mo off, in words
    r = env("上海博物馆门票多少钱")
    assert r.result.payload.evidence[0]["name"] == "上海博物馆" and "免费" in r.result.answer_text


def test_rag_says_so_when_the_kb_has_nothing(env):
    r = env("推荐新宿拉面")
    assert r.route.route == "SYSTEM1_RAG" and r.result.status == "OK"
    assert "没有关于「新宿拉面」的资料" in r.result.answer_text
    assert r.result.payload.candidates == [] and r.result.payload.evidence == []
    en = env("Recommend ramen in Shinjuku")
    assert "no facts about" in en.result.answer_text and "ramen in Shinjuku" in en.result.answer_text


def test_rag_ranks_by_preferences(env):
    r = env("雨天适合带孩子去哪里")
    names = [c["name"] for c in r.result.payload.candidates]
    assert names[0] == "东方明珠广播电视塔"  # the only place both rainy-day-ok and kid-friendly


def test_rag_reads_extra_kb_facts(tmp_path):
    settings = make_settings(tmp_path)
    (settings.kb_dir / "agentcity.json").write_text(
        '{"facts": [{"id": "f1", "title": "外滩灯光", "text": "外滩沿线建筑夜间亮灯。", "keywords": ["灯光", "夜景"], "place_id": "a-bund"}]}',
        encoding="utf-8",
    )
    kb = knowledge_base(load_region(settings.region, settings.data_dir), kb_dir=settings.kb_dir)
    hits = kb.search("外滩灯光")
    assert hits.covered and hits.hits[0].doc.doc_id == "f1"


def test_bm25_basics():
    assert tokenize("外滩 Bund") == ["外滩", "bund"]
    docs = [KBDoc("a", "a", "外滩 夜景 外滩"), KBDoc("b", "b", "豫园 园林"), KBDoc("c", "c", "外滩 酒店")]
    idx = BM25Index(docs)
    s = idx.scores(["外滩"])
    assert s[0] > s[2] > 0 and s[1] == 0  # term frequency counts, saturating
    assert idx.coverage(["外滩", "不存在"], 0) < 0.6


def test_system1_is_marked_fast(env):
    r = env("豫园几点开门")
    assert r.observability.system_mode == "SYSTEM1" and r.route.ui_hint.mode == "fast"
    assert r.observability.tool_calls == 1 and r.observability.browser_steps == 0
