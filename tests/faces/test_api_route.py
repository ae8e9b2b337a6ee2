"""POST /route/plan: the route planner through the API, with the person's own order beside the best (issue 32,
X8): the same facts as the core's result, in JSON."""

from __future__ import annotations

import re
from typing import Any

from tests.conftest import auth

STOPS = ["外滩", "东方明珠", "豫园", "新天地"]


def _body(**kw: Any) -> dict[str, Any]:
    return {
        "origin_mode": "fixed",
        "origin_address": "静安寺",
        "destination_address": "上海博物馆",
        "stops": STOPS,
        "need_deep_link": False,
        **kw,
    }


def test_the_own_order_comes_back_beside_the_best(client):
    best = client.post("/route/plan", json=_body(), headers=auth("alice"))
    assert best.status_code == 200, best.text
    assert best.json()["own_route"] is None and best.json()["own_difference"] is None
    best_order = best.json()["best_route"]["stop_order"]
    mine = list(reversed(best_order))
    answer = client.post("/route/plan", json=_body(own_order=mine), headers=auth("alice"))
    assert answer.status_code == 200, answer.text
    body = answer.json()
    own, diff, top = body["own_route"], body["own_difference"], body["best_route"]
    assert own["chosen_by"] == "person" and own["stop_order"] == mine and diff["own_order"] == mine
    assert own["total_distance_m"] == sum(leg["distance_m"] for leg in own["legs"])
    assert diff["delta_distance_m"] == own["total_distance_m"] - top["total_distance_m"]
    assert diff["delta_duration_s"] == own["total_duration_s"] - top["total_duration_s"]
    assert sum(leg["delta_distance_m"] for leg in diff["legs"]) == diff["delta_distance_m"]
    assert sum(leg["delta_duration_s"] for leg in diff["legs"]) == diff["delta_duration_s"]
    assert diff["delta_distance_m"] >= 0  # the best for shortest distance is never longer than another order
    # the estimate is named as one, per leg and overall
    assert diff["straight_line_estimate"] is True and all(leg["straight_line_estimate"] for leg in own["legs"])
    # the best order asked as one's own differs by nothing
    same = client.post("/route/plan", json=_body(own_order=best_order), headers=auth("alice")).json()
    assert same["own_difference"]["same_as_best"] is True
    assert (same["own_difference"]["delta_distance_m"], same["own_difference"]["delta_duration_s"]) == (0, 0)


def test_keep_order_and_a_refused_own_order(client):
    kept = client.post("/route/plan", json=_body(keep_order=True), headers=auth("alice")).json()
    assert kept["own_route"]["stop_order"] == [0, 1, 2, 3]
    bad = client.post("/route/plan", json=_body(own_order=[0, 1, 1, 2]), headers=auth("alice"))
    assert bad.status_code == 422
    error = bad.json()["error"]
    assert error["field"] == "own_order" and "stop index 1 more than once" in error["message"]


def test_with_a_locale_the_warnings_and_summary_are_the_reader_s_sentences(client):
    """Accept-Language zh-CN: the summary and every warning are Chinese sentences (they were the core's English);
    the codes stay in notices, one per warning; without a locale the API answers as the CLI prints."""
    zh = client.post("/route/plan", json=_body(), headers={**auth("alice"), "Accept-Language": "zh-CN"}).json()
    en = client.post("/route/plan", json=_body(), headers={**auth("alice"), "Accept-Language": "en"}).json()
    plain = client.post("/route/plan", json=_body(), headers=auth("alice")).json()
    assert zh["warnings"] and len(zh["warnings"]) == len(zh["notices"]) == len(en["warnings"])
    han = re.compile(r"[\u4e00-\u9fff]")
    english_word = re.compile(r"\b[a-z]{4,}\b")  # a Chinese sentence naming Chinese places has none
    assert han.search(zh["summary"]) and not english_word.search(zh["summary"])
    assert all(han.search(w) and not english_word.search(w) for w in zh["warnings"]), zh["warnings"]
    assert not han.search(en["summary"]) and "km" in en["summary"]
    assert (
        [n["code"] for n in zh["notices"]]
        == [n["code"] for n in en["notices"]]
        == [n["code"] for n in plain["notices"]]
    )
    assert zh["best_route"]["stop_order_labels"] == plain["best_route"]["stop_order_labels"]


def test_the_summary_and_the_search_note_are_worded_at_the_edge(client):
    """Issue 31: the core returns facts (its summary and the optimiser's note are empty); the API words them, in
    English without a locale (as the CLI prints), in the reader's language with one."""
    from core.i18n import t

    plain = client.post("/route/plan", json=_body(), headers=auth("alice")).json()
    zh = client.post("/route/plan", json=_body(), headers={**auth("alice"), "Accept-Language": "zh-CN"}).json()
    han = re.compile(r"[\u4e00-\u9fff]")
    assert plain["summary"].startswith("Best order: ") and "km" in plain["summary"]
    assert plain["optimizer"]["note"] and not han.search(plain["optimizer"]["note"])
    assert plain["optimizer"]["note"] in plain["summary"]  # how the orders were searched, said once in the summary
    assert zh["summary"].startswith("最佳顺序") and han.search(zh["optimizer"]["note"])
    n = len(plain["warnings"])
    assert plain["summary"].endswith(t("route.summary.warnings", "en", n=n))
