"""A candidate's points (issue 19 §2): the planner sets every candidate's visiting order once
(``core.models.route.visiting_points``), start → stops → destination, each by its id in the result; a result stored
before the field existed gets the same points from its ``stop_order`` when it is read; notices name places by those
ids, and the core's English sentences name them as before."""

from __future__ import annotations

import json

import pytest

from core.config import get_settings
from core.geo.registry import make_provider
from core.models.route import LIVE_ORIGIN, Notice, PointRef, RawStop, RoutePlanResult
from core.route import notices
from core.route.compare import order_keys
from core.route.planner import plan_route
from core.route.scenarios import list_scenarios

SCENARIOS = {s.id: s for s in list_scenarios()}


@pytest.fixture(scope="module")
def shanghai():
    return make_provider("offline", region="shanghai", settings=get_settings())


def expected(result: RoutePlanResult, order: list[int], start: str | None) -> list[tuple[str, str, int | None]]:
    rows = [(start, "origin", None)] if start else []
    rows += [(f"stops.{i}", "stop", i) for i in order]
    return [*rows, ("destination", "destination", None)]


def rows(points: list[PointRef]) -> list[tuple[str, str, int | None]]:
    return [(p.id, p.role, p.index) for p in points]


@pytest.mark.parametrize(
    ("scenario", "changes", "start"),
    [
        ("sightseeing-day", {}, "origin"),
        ("family-day", {}, "origin"),
        ("my-location-errands", {"origin_lon": 121.4737, "origin_lat": 31.2304}, LIVE_ORIGIN),
        ("my-location-errands", {"origin_lon": None, "origin_lat": None}, None),  # an unknown start: no start point
    ],
)
def test_every_candidate_carries_its_points_in_visiting_order(shanghai, scenario, changes, start):
    request = SCENARIOS[scenario].request.model_copy(update=changes)
    result = plan_route(request, provider=shanghai, settings=get_settings())
    assert len(result.candidates) > 1
    for cand in [*result.candidates, result.best_route]:
        assert sorted(cand.stop_order) == list(range(len(result.resolved_stops)))
        assert rows(cand.points) == expected(result, cand.stop_order, start)
        # leg i joins points i and i + 1: its ends are those points' positions (the live start's own)
        located = result.visiting(cand)
        assert len(located) == len(cand.legs) + 1
        for leg, (_, a), (_, b) in zip(cand.legs, located, located[1:], strict=False):
            if a is not None:
                assert leg.origin_location == a.location
            if b is not None:
                assert leg.destination_location == b.location
        assert [p.label for _, p in located if p is not None] == [
            label for label in cand.full_order_labels if start != LIVE_ORIGIN or label != cand.full_order_labels[0]
        ]
    # the readers take the points: the map's comparison keys follow them
    best = result.best_route
    keys = [p.place_key for _, p in result.visiting(best) if p is not None]
    assert order_keys(result, best)[-len(keys) :] == keys
    assert len(order_keys(result, best)) == len(best.points)


def _strip_points(text: str) -> str:
    data = json.loads(text)
    for cand in [*data["candidates"], data["best_route"]]:
        del cand["points"]
    return json.dumps(data, ensure_ascii=False)


def test_a_result_stored_without_points_gets_them_from_its_stop_order(shanghai):
    result = plan_route(SCENARIOS["sightseeing-day"].request, provider=shanghai, settings=get_settings())
    old = _strip_points(result.model_dump_json())
    assert '"points"' not in old
    again = RoutePlanResult.model_validate_json(old)
    assert [c.points for c in again.candidates] == [c.points for c in result.candidates]
    assert again.best_route.points == result.best_route.points
    assert again == result


def test_a_result_without_stop_order_matches_its_labels_and_one_with_a_live_start_keeps_it(shanghai):
    request = SCENARIOS["my-location-errands"].request.model_copy(
        update={"origin_lon": 121.4737, "origin_lat": 31.2304}
    )
    result = plan_route(request, provider=shanghai, settings=get_settings())
    data = json.loads(_strip_points(result.model_dump_json()))
    for cand in [*data["candidates"], data["best_route"]]:
        cand["stop_order"] = []  # older still: the order only in the stops' labels
    again = RoutePlanResult.model_validate(data)
    assert [c.points for c in again.candidates] == [c.points for c in result.candidates]
    assert again.best_route.points[0] == PointRef(id=LIVE_ORIGIN, role="origin")


def test_notices_name_places_by_id_and_the_english_sentences_keep_the_names(shanghai):
    day = SCENARIOS["sightseeing-day"].request
    twice = day.model_copy(update={"stops": [day.stops[0], day.stops[0], *day.stops[1:]]})
    result = plan_route(twice, provider=shanghai, settings=get_settings())
    [same] = [n for n in result.notices if n.code == "SAME_PLACE_STOPS"]
    assert same.params == {"a": 1, "b": 2, "point": "stops.1"}
    # the place found is named in English where the pack has an English name (issue 31), not by its local name
    pack = shanghai.region
    points = [p for p in (result.resolved_origin, *result.resolved_stops, result.resolved_destination) if p]
    english = {p.poi_id: n for p in points if p.poi_id and (n := pack.place_by_id(p.poi_id).name_en)}
    name = english[result.resolved_stops[1].poi_id]
    assert name.isascii() and name != result.resolved_stops[1].resolved_name
    assert f"Stops 1 and 2 are the same place ({name}); both are kept." in result.warnings
    assert result.warnings == notices.english(
        result.notices, names=notices.point_names(points, {"shanghai": "Shanghai"}, english)
    )
    # no notice of a plan carries a place's label: a place is a point id
    ids = {"origin", "destination", LIVE_ORIGIN, *(f"stops.{i}" for i in range(len(result.resolved_stops)))}
    for item in result.notices:
        spec = notices.NOTICES[item.code]
        for param in ("point", *spec.points):
            if param in item.params:
                assert item.params[param] in ids, item


def test_a_fuzzy_stop_is_named_by_its_point_and_what_was_typed(shanghai):
    day = SCENARIOS["sightseeing-day"].request
    result = plan_route(
        day.model_copy(update={"stops": [RawStop(address="豫圆")]}), provider=shanghai, settings=get_settings()
    )
    [fuzzy] = [n for n in result.notices if n.code == "FUZZY_MATCH"]
    assert fuzzy.params["point"] == "stops.0" and fuzzy.params["input"] == "豫圆"
    assert not {"name", "role", "stop"} & set(fuzzy.params)


def test_a_notice_stored_before_ids_still_reads():
    old = Notice(
        code="FUZZY_MATCH",
        params={"role": "stop", "stop": 2, "input": "豫圆", "name": "豫园", "address": "", "score": 80},
    )
    assert notices.words(old, "en") == "Stop 2 '豫圆' is an approximate match: found 豫园 — check it."
