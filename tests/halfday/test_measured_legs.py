"""A half-day plan on AMap asks only for what decides or is shown (issue 33): it is screened on the pack's estimates,
then only the legs of the plans shown are measured, one call per destination with their origins batched; the plans
are checked again on those legs (a plan a measured leg breaks is left out, and the person is told which and why, in
both languages); the answers are cached, so the same plan again asks nothing. Against the AMap stand-in on
127.0.0.1 (unpaced: what is counted is requests, never seconds)."""

from __future__ import annotations

import threading

import pytest

from components.halfday.text import event_line
from core.geo.coords import gcj02_to_wgs84
from core.geo.registry import make_provider
from core.halfday.toolbox.rank_places_for_plan import measure_asks
from core.models.halfday.events import ObservationEvent, WarningObservation
from core.models.halfday.plans import HalfDayRequest
from core.words.halfday import DROPPED, WARNINGS, dropped_words, has_words, result_words
from standins.amap import AMapLimitedStandIn
from tests.halfday.conftest import NOW, planner_on
from tests.support.amap_settings import amap_settings

#: goals of our own in both languages, each from its own start, with several legs a plan
GOALS = [
    ("周日下午三点到七点，和同事看看老建筑，再一起吃晚饭", "人民广场"),
    ("Saturday 10am to 3pm with my mum: a gallery, a garden, and lunch somewhere quiet", "静安寺"),
]


class Recorder:
    """The stand-in's distance requests: (type, destination, origins), each point back in WGS-84."""

    def __init__(self, amap: AMapLimitedStandIn) -> None:
        self.calls: list[tuple[str, tuple[float, float], list[tuple[float, float]]]] = []
        self._lock = threading.Lock()
        inner = amap.handle

        def handle(path: str, query: dict[str, str]):
            if path == "/v3/distance":
                dest = _wgs(query["destination"])
                origins = [_wgs(o) for o in query["origins"].split("|")]
                with self._lock:
                    self.calls.append((query.get("type", "1"), dest, origins))
            return inner(path, query)

        amap.handle = handle  # type: ignore[method-assign]


def _wgs(text: str) -> tuple[float, float]:
    lon, lat = (float(x) for x in text.split(","))
    w = gcj02_to_wgs84(lon, lat)
    return round(float(w[0]), 4), round(float(w[1]), 4)


def _spot(lon: float, lat: float) -> tuple[float, float]:
    return round(lon, 4), round(lat, 4)


def _planner(amap: AMapLimitedStandIn, tmp_path, **overrides):
    # generous waits: a loaded machine must not turn a slow answer into an estimate (what is asserted is requests)
    values = {
        "db_url": f"sqlite:///{tmp_path / 'halfday.db'}",
        "cache_dir": None,
        "halfday_provider_budget_s": 60.0,
        "http_timeout_s": 30.0,
        **overrides,
    }
    settings = amap_settings(amap.base_url, **values)
    root = make_provider("amap", settings=settings)
    return root, settings


def _plan(root, settings, goal: str, origin: str):
    planner = planner_on(root.for_request(), settings)
    result, events = planner.plan(HalfDayRequest(goal=goal, origin=origin, now=NOW, on_degraded="continue"))
    assert result is not None, events[-1]
    return result, events


def _legs(result):
    return [s.travel for p in result.plans for s in p.steps if s.travel is not None and s.travel.mode != "none"]


def _points(result) -> set[tuple[float, float]]:
    spots = {_spot(s.lon, s.lat) for p in result.plans for s in p.steps}
    if result.origin is not None:
        spots.add(_spot(result.origin.lon, result.origin.lat))
    return spots


@pytest.mark.parametrize(("goal", "origin"), GOALS)
def test_a_plan_asks_amap_only_for_the_legs_of_the_plans_it_shows_one_call_a_destination(tmp_path, goal, origin):
    with AMapLimitedStandIn() as amap:
        recorder = Recorder(amap)
        root, settings = _planner(amap, tmp_path)
        result, _ = _plan(root, settings, goal, origin)
    legs = _legs(result)
    assert len(result.plans) >= 2 and len(legs) >= 4
    # before: a walking and a driving matrix of every candidate (dozens of calls for a handful of legs)
    assert 0 < len(recorder.calls) <= len(legs)
    assert {leg.source for leg in legs} == {"amap"}  # every leg shown is AMap's figure
    shown = _points(result)
    ends = {_spot(s.lon, s.lat) for p in result.plans for s in p.steps}
    for _mode, dest, origins in recorder.calls:
        assert dest in ends  # a destination a shown leg ends at
        assert set(origins) <= shown  # batched: the plans' own points, nothing else
    # one call a destination and mode: the origins of a destination go together
    assert len({(mode, dest) for mode, dest, _ in recorder.calls}) == len(recorder.calls)


def test_the_same_plan_again_asks_nothing_in_the_process_or_on_the_shared_disk_cache(tmp_path):
    goal, origin = GOALS[0]
    with AMapLimitedStandIn() as amap:
        root, settings = _planner(amap, tmp_path, cache_dir=str(tmp_path / "cache"))
        cold, _ = _plan(root, settings, goal, origin)
        asked = len(amap.requests)
        warm, _ = _plan(root, settings, goal, origin)
        again = len(amap.requests)
        other_root, _ = _planner(amap, tmp_path, cache_dir=str(tmp_path / "cache"))  # another process's services
        elsewhere, _ = _plan(other_root, settings, goal, origin)
        last = len(amap.requests)
    assert asked > 0
    assert again == asked and last == asked  # before: the walking columns past 5 km were asked on every plan
    for result in (warm, elsewhere):
        assert [[s.place_id for s in p.steps] for p in result.plans] == [
            [s.place_id for s in p.steps] for p in cold.plans
        ]
        assert [leg.model_dump() for leg in _legs(result)] == [leg.model_dump() for leg in _legs(cold)]


def _leg_between_stops(result):
    """A shown plan's first leg between two stops: (plan, from step, to step)."""
    for plan in result.plans:
        if len(plan.steps) >= 2:
            return plan, plan.steps[0], plan.steps[1]
    raise AssertionError("no plan with two stops")


def test_a_plan_whose_measured_leg_breaks_it_is_left_out_and_the_person_is_told_which_and_why(tmp_path):
    goal, origin = GOALS[1]
    with AMapLimitedStandIn() as amap:  # measured as estimated: the plans the screening composes, as they stand
        root, settings = _planner(amap, tmp_path)
        before, _ = _plan(root, settings, goal, origin)
    plan, a, b = _leg_between_stops(before)
    slow = (_spot(a.lon, a.lat), _spot(b.lon, b.lat))

    def jammed(o, d, _mode):  # that one leg takes eight times as long on the road as the estimate says
        return 8.0 if (_spot(*o), _spot(*d)) == slow else 1.0

    with AMapLimitedStandIn(slow_legs=jammed) as amap:
        root, settings = _planner(amap, tmp_path)
        result, events = _plan(root, settings, goal, origin)
    assert "PLAN_DROPPED_ON_MEASURED_LEGS" in result.warnings
    dropped = next(d for d in result.dropped_plans if d.place_ids == [s.place_id for s in plan.steps])
    assert (dropped.from_place_id, dropped.to_place_id) == (a.place_id, b.place_id)
    assert dropped.source == "amap" and dropped.measured_minutes > 2 * dropped.estimated_minutes
    assert dropped.reason in {"window", "leg_over_budget", "travel_over_budget"}
    assert result.plans, "the others are shown"
    for shown in result.plans:
        assert [s.place_id for s in shown.steps] != dropped.place_ids
        for prev, step in zip(shown.steps, shown.steps[1:], strict=False):  # every plan shown fits its legs
            assert step.travel is not None and prev.end.hour * 60 + prev.end.minute + step.travel.minutes <= (
                step.start.hour * 60 + step.start.minute
            )
        assert shown.steps[-1].end <= result.slots.end
    # in words, both languages: the plan's stops, the leg, who measured it and its minutes
    en, zh = dropped_words(dropped, "en"), dropped_words(dropped, "zh")
    assert a.name_en in en and b.name_en in en and "AMap" in en and f"{dropped.measured_minutes} min" in en
    assert a.name_zh in zh and b.name_zh in zh and "高德" in zh and f"{dropped.measured_minutes}分钟" in zh
    said = [e for e in events if isinstance(e, ObservationEvent) and isinstance(e.data, WarningObservation)]
    dropped_said = [e for e in said if e.data.code == "PLAN_DROPPED_ON_MEASURED_LEGS"]
    assert dropped_said and all(event_line(e, "en").startswith("⚠ Left out the plan") for e in dropped_said)
    assert all("已去掉方案" in event_line(e, "zh") for e in dropped_said)
    assert result_words(result, "en").dropped == [dropped_words(d, "en") for d in result.dropped_plans]


def test_past_its_calls_a_plan_keeps_the_other_legs_estimated_says_so_and_asks_nothing_again(tmp_path):
    goal, origin = GOALS[0]
    with AMapLimitedStandIn() as amap:
        recorder = Recorder(amap)
        # paced fast (no test waits on it), and an allowance of 3 calls at that rate
        root, settings = _planner(amap, tmp_path, amap_qps=100, halfday_measure_pacing_s=0.03)
        result, events = _plan(root, settings, goal, origin)
        asked = len(amap.requests)
        _plan(root, settings, goal, origin)
        again = len(amap.requests)
    legs = _legs(result)
    assert len(recorder.calls) == 3 < len(legs)
    sources = [leg.source for leg in legs]
    assert "amap" in sources and "offline_estimate" in sources and set(sources) == {"amap", "offline_estimate"}
    assert "LEGS_LEFT_ESTIMATED" in result.warnings
    # an estimated leg says so in words; a measured one does not
    words = result_words(result, "zh")
    marks = [w.straight_line_estimate for p in words.plans for w in p.steps]
    steps = [s for p in result.plans for s in p.steps]
    assert marks == [s.travel is not None and s.travel.source == "offline_estimate" for s in steps]
    assert again == asked  # the same columns chosen again, all cached
    composed = next(
        e for e in events if isinstance(e, ObservationEvent) and getattr(e.data, "tool", None) == "rank_places_for_plan"
    )
    assert composed.data.facts.legs_measured is not None and composed.data.facts.legs_measured < len(legs)
    assert f"{composed.data.facts.legs_measured} of {len(legs)} legs measured" in event_line(composed, "en")
    assert f"{len(legs)} 段路程中实测 {composed.data.facts.legs_measured} 段" in event_line(composed, "zh")


def test_the_calls_a_plan_may_make_follow_the_service_s_pacing():
    assert measure_asks(1.0, 8.0) == 8
    assert measure_asks(3.0, 8.0) == 24
    assert measure_asks(0.1, 8.0) == 1  # at least one
    assert measure_asks(None, 8.0) is None  # unpaced: every leg shown
    assert measure_asks(1.0, 0.0) is None  # the allowance switched off


def test_only_a_service_paid_by_the_destination_is_screened(tmp_path):
    settings = amap_settings("http://127.0.0.1:9", db_url=f"sqlite:///{tmp_path / 'x.db'}", cache_dir=None)
    assert make_provider("amap", settings=settings).pays_per_destination
    assert not make_provider("offline", region="shanghai", settings=settings).pays_per_destination


def test_the_new_warnings_and_reasons_have_words_in_both_languages():
    for code in ("PLAN_DROPPED_ON_MEASURED_LEGS", "LEGS_LEFT_ESTIMATED"):
        assert has_words(WARNINGS, code)
    for reason in ("window", "leg_over_budget", "travel_over_budget"):
        assert has_words(DROPPED, reason)
