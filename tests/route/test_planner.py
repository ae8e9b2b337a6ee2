import itertools

import numpy as np
import pytest
from pydantic import ValidationError

from core.app import route as route_app
from core.config import Settings, get_settings
from core.errors import InputError, ResolutionError
from core.geo.registry import make_provider
from core.models.route import RoutePlanRequest
from core.route.planner import plan_route
from tests.support.region_packs import write_pack

SIGHTS = ["外滩", "东方明珠", "豫园", "上海博物馆", "新天地", "田子坊", "静安寺"]


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    return Settings(data_dir=write_pack(tmp_path_factory.mktemp("data")), region="testcity")


@pytest.fixture()
def provider(settings):
    return make_provider("offline", settings=settings)


def _req(stops, **kw):
    base = dict(
        origin_mode="fixed",
        origin_address="人民广场",
        destination_address="浦东国际机场T2航站楼",
        stops=[{"address": s} for s in stops],
    )
    base.update(kw)
    return RoutePlanRequest.model_validate(base)


def _brute_force(result, provider, metric):
    """Independent check: evaluate every order on the provider's own matrix."""
    pts = [(result.resolved_origin.lon, result.resolved_origin.lat)] if result.resolved_origin else []
    pts += [(s.lon, s.lat) for s in result.resolved_stops] + [
        (result.resolved_destination.lon, result.resolved_destination.lat)
    ]
    m = provider.router.matrix(pts, mode=result.transport_mode)
    mat = np.asarray(m.distances_m if metric == "distance" else m.durations_s)
    off = 1 if result.resolved_origin else 0
    n = len(result.resolved_stops)
    best = min(
        sum(mat[a, b] for a, b in zip(([0] if off else []) + [i + off for i in p], [i + off for i in p] + [n + off]))
        for p in itertools.permutations(range(n))
    )
    return best


@pytest.mark.parametrize("n", [2, 4, 5, 7])
def test_best_route_is_optimal(provider, settings, n):
    result = plan_route(_req(SIGHTS[:n]), provider=provider, settings=settings)
    assert result.success
    best = result.best_route
    assert best.total_distance_m == pytest.approx(_brute_force(result, provider, "distance"), abs=n + 1)
    assert sorted(best.stop_order) == list(range(n))
    assert best.full_order_labels[0] == "人民广场" and best.full_order_labels[-1] == "浦东国际机场T2航站楼"
    assert len(best.legs) == n + 1
    assert sum(l.distance_m for l in best.legs) == best.total_distance_m
    assert all(l.source == "offline_estimate" for l in best.legs)
    assert result.optimizer.exact is True
    assert result.optimizer.method == ("enumeration" if n <= 4 else "held_karp")


def test_fastest_time_is_optimal_on_time(provider, settings):
    result = plan_route(_req(SIGHTS[:6], route_strategy="fastest_time"), provider=provider, settings=settings)
    assert result.best_route.total_duration_s == pytest.approx(_brute_force(result, provider, "time"), abs=8)
    assert "fastest_time" in result.best_route.best_for


def test_candidates_show_each_strategys_best_plus_top_k(provider, settings):
    result = plan_route(_req(SIGHTS), provider=provider, settings=settings)
    strategies = {s for c in result.candidates for s in c.best_for}
    assert strategies == {"shortest_distance", "fastest_time", "balanced"}
    assert len(result.candidates) <= settings.top_k + 1 + 2
    assert [c.rank for c in result.candidates] == sorted(c.rank for c in result.candidates)
    assert result.candidates[0] == result.best_route
    assert result.best_route.delta_distance_m == 0
    for c in result.candidates[1:]:
        assert c.delta_distance_m == c.total_distance_m - result.best_route.total_distance_m
        assert c.ranking_reason.startswith(f"#{c.rank}:")
    orders = [tuple(c.stop_order) for c in result.candidates]
    assert len(set(orders)) == len(orders)


def test_many_stops_use_the_heuristic_and_say_so(provider, settings):
    stops = [f"徐汇区测试路{i + 1}号" for i in range(22)]
    result = plan_route(_req(stops, destination_address="外滩"), provider=provider, settings=settings)
    assert result.optimizer.method == "heuristic" and result.optimizer.exact is False
    from core.words.route import summary_paragraph

    assert "heuristic" in summary_paragraph(result, lang="en")  # the summary, worded at the edge
    assert sorted(result.best_route.stop_order) == list(range(22))


def test_replanning_the_same_points_makes_no_new_calls(provider, settings):
    req = _req(SIGHTS[:5])
    first = plan_route(req, provider=provider, settings=settings)
    assert first.provider_calls.matrix == 1
    assert first.provider_calls.geocode >= 7
    assert first.provider_calls.route == len(first.best_route.legs)
    second = plan_route(req, provider=provider, settings=settings)
    assert second.provider_calls.total == 0
    assert second.provider_calls.cache_hits > 0
    assert second.best_route == first.best_route


def test_offline_figures_carry_a_warning(provider, settings):
    result = plan_route(_req(SIGHTS[:3]), provider=provider, settings=settings)
    assert result.metric_source == "offline_estimate"
    assert any("straight-line estimate" in w.lower() for w in result.warnings)


def test_current_location_without_coordinates_compares_stops_only(provider, settings):
    req = _req(SIGHTS[:4], origin_mode="current_location", origin_address=None)
    result = plan_route(req, provider=provider, settings=settings)
    assert result.resolved_origin is None and result.live_origin is None
    assert len(result.best_route.legs) == 4  # stops -> destination only
    assert result.best_route.full_order_labels[0] in SIGHTS
    assert result.notices[0].code == "START_UNKNOWN"
    assert result.warnings[0].startswith("Start position unknown (current location without coordinates)")
    from core.words.route import summary_paragraph

    assert "not guaranteed" in summary_paragraph(result, lang="en")
    assert "最优" in summary_paragraph(result, lang="zh")
    assert "slat=" not in result.deep_links.android_route_plan


def test_current_location_with_coordinates_starts_there(provider, settings):
    req = _req(SIGHTS[:4], origin_mode="current_location", origin_address=None, origin_lon=121.4059, origin_lat=31.2089)
    result = plan_route(req, provider=provider, settings=settings)
    assert result.live_origin.location == "121.405900,31.208900"
    assert result.best_route.legs[0].origin_location == "121.405900,31.208900"
    assert len(result.best_route.legs) == 5


def test_round_trip_returns_to_the_origin(provider, settings):
    req = RoutePlanRequest(
        origin_mode="fixed", origin_address="人民广场", round_trip=True, stops=[{"address": s} for s in SIGHTS[:5]]
    )
    result = plan_route(req, provider=provider, settings=settings)
    assert result.round_trip
    assert result.best_route.full_order_labels[0] == result.best_route.full_order_labels[-1] == "人民广场"
    assert result.best_route.total_distance_m == pytest.approx(_brute_force(result, provider, "distance"), abs=7)


def test_stop_resolving_to_the_destination_is_rejected(provider, settings):
    with pytest.raises(InputError) as info:
        plan_route(_req(["豫园", "Pearl Tower"], destination_address="东方明珠"), provider=provider, settings=settings)
    assert info.value.field == "stops.1"


def test_unresolvable_stop_is_named(provider, settings):
    with pytest.raises(ResolutionError) as info:
        plan_route(_req(["豫园", "zzzz qqq 不存在的地方"]), provider=provider, settings=settings)
    assert info.value.field == "stops.1" and "不存在的地方" in info.value.message


def test_progress_is_reported(provider, settings):
    seen = []
    plan_route(_req(SIGHTS[:3]), provider=provider, settings=settings, progress=lambda m, f: seen.append((m, f)))
    fracs = [f for _, f in seen]
    assert fracs == sorted(fracs) and fracs[-1] == 1.0 and len(seen) >= 4
    assert [stage.code for stage, _ in seen] == ["resolve", "matrix", "orders", "draw", "done"]
    assert all(stage.made is None for stage, _ in seen)  # offline: no paced calls to count


def test_a_face_gets_the_stages_in_its_own_language(settings):
    from core.app.context import AppServices

    services = AppServices(settings=settings)
    for lang, first in (("zh", "正在查找地点"), ("en", "Finding the places")):
        labels: list[str] = []
        route_app.plan_route(
            services.context(lang=lang), _req(SIGHTS[:3]), progress=lambda label, _f, kept=labels: kept.append(label)
        )
        assert labels[0] == first and len(labels) == 5, labels


def test_walking_mode_uses_walking_estimates(provider, settings):
    drive = plan_route(_req(SIGHTS[:3]), provider=provider, settings=settings)
    walk = plan_route(_req(SIGHTS[:3], transport_mode="walking"), provider=provider, settings=settings)
    assert walk.best_route.total_duration_s > 3 * drive.best_route.total_duration_s
    assert "t=2" in walk.deep_links.android_route_plan


def test_duplicate_stops_do_not_produce_twin_candidates(provider, settings):
    result = plan_route(_req(["外滩", "外滩", "豫园"]), provider=provider, settings=settings)
    [same] = [n for n in result.notices if n.code == "SAME_PLACE_STOPS"]
    assert same.params == {"a": 1, "b": 2, "point": "stops.1"}  # the place by its point's id, no label
    # named as the place found, in English where the pack has an English name (issue 31)
    found = provider.region.place_by_id(result.resolved_stops[0].poi_id)
    assert f"Stops 1 and 2 are the same place ({found.name_en or found.name_zh})" in " ".join(result.warnings)
    # Swapping the two 外滩 stops is not another route: every candidate is a different sequence of places.
    sequences = [tuple(c.full_order_labels) for c in result.candidates]
    assert len(sequences) == len(set(sequences)) == 3
    assert "tied" not in result.best_route.ranking_reason


def test_round_trip_with_another_destination_is_rejected(provider, settings):
    with pytest.raises(InputError) as info:
        plan_route(
            _req(["豫园", "新天地"], destination_address="外滩", round_trip=True), provider=provider, settings=settings
        )
    assert info.value.field == "destination_address" and "round trip" in info.value.message


def test_round_trip_stop_at_the_origin_is_rejected_like_a_typed_one(provider, settings):
    # "黄浦区人民大道120号" is the address of 人民广场: the same place typed differently.
    req = RoutePlanRequest(
        origin_mode="fixed",
        origin_address="黄浦区人民大道120号",
        round_trip=True,
        stops=[{"address": "人民广场"}, {"address": "豫园"}],
    )
    with pytest.raises(InputError) as info:
        plan_route(req, provider=provider, settings=settings)
    assert info.value.field == "stops.0" and "round trip" in info.value.message
    with pytest.raises(ValidationError) as typed:
        RoutePlanRequest(
            origin_mode="fixed", origin_address="人民广场", round_trip=True, stops=[{"address": "人民广场"}]
        )
    assert "round trip" in str(typed.value)


def test_heuristic_best_reason_does_not_claim_optimality(provider, settings):
    stops = [f"徐汇区测试路{i + 1}号" for i in range(22)]
    result = plan_route(_req(stops, destination_address="外滩"), provider=provider, settings=settings)
    assert result.optimizer.exact is False
    assert "not proven optimal" in result.best_route.ranking_reason


def test_live_start_outside_the_region_is_flagged(provider, settings):
    req = _req(SIGHTS[:2], origin_mode="current_location", origin_address=None, origin_lon=0.0, origin_lat=0.0)
    result = plan_route(req, provider=provider, settings=settings)
    [far] = [n for n in result.notices if n.code == "START_OUTSIDE_REGION"]
    assert far.params["where"] == "0.000000,0.000000" and far.params["region"] == provider.region.name
    assert any("outside the region" in w and "0.000000,0.000000" in w for w in result.warnings)
    inside = plan_route(
        _req(SIGHTS[:2], origin_mode="current_location", origin_address=None, origin_lon=121.47, origin_lat=31.23),
        provider=provider,
        settings=settings,
    )
    assert not any("outside the region" in w for w in inside.warnings)


def test_long_walking_legs_are_flagged(provider, settings):
    walk = plan_route(_req(["外滩", "豫园"], transport_mode="walking"), provider=provider, settings=settings)
    flagged = [w for w in walk.warnings if w.startswith("Walking:")]
    [long_walk] = [n for n in walk.notices if n.code == "LONG_WALK"]
    assert len(flagged) == 1 and long_walk.params["n"] == 1 and long_walk.params["km"] == "10"
    assert "浦东国际机场T2航站楼" in long_walk.detail  # the ~40 km walk to the airport, named in the detail
    assert f"the whole walk is {walk.best_route.total_distance_m / 1000:.1f} km" in flagged[0]
    short = plan_route(
        _req(["外滩", "豫园"], destination_address="新天地", transport_mode="walking"),
        provider=provider,
        settings=settings,
    )
    assert not any(w.startswith("Walking:") for w in short.warnings)


def test_deltas_match_the_totals_shown(provider, settings):
    result = plan_route(_req(SIGHTS[:5], route_strategy="fastest_time"), provider=provider, settings=settings)
    best = result.best_route
    for c in result.candidates:
        assert c.delta_distance_m == c.total_distance_m - best.total_distance_m
        assert c.delta_duration_s == c.total_duration_s - best.total_duration_s


def test_the_result_names_the_index_of_its_best_candidate(provider):
    from core.models.route import RoutePlanRequest
    from core.route.planner import plan_route

    request = RoutePlanRequest(
        origin_mode="fixed", origin_address="人民广场", destination_address="外滩", stops=["豫园", "新天地", "静安寺"]
    )
    result = plan_route(request, provider=provider, settings=get_settings())
    assert result.candidates[result.best_index] == result.best_route


def test_the_core_words_no_summary_and_no_search_note(provider, settings):
    """Issue 31: the planner returns codes and facts; its summary and the optimiser's note are made at the edge
    (core.words.route.summary_paragraph, search_words) in the reader's language."""
    from core.words.route import search_words, summary_paragraph

    result = plan_route(_req(SIGHTS[:4]), provider=provider, settings=settings)
    assert result.summary == "" and result.optimizer is not None and result.optimizer.note == ""
    for lang in ("en", "zh"):
        said = summary_paragraph(result, lang=lang)
        assert search_words(result.optimizer, lang) in said
        assert f"{result.best_route.total_distance_m / 1000:.1f}" in said
