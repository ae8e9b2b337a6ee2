"""bench walk-detours: the pairs it measures and the reference it measures them against."""

from __future__ import annotations

import itertools

import pytest

from bench.walk_detours import MAX_APART_M, MIN_APART_M, WalkGraph, pick_pairs, pick_places
from core.geo.base import LonLat
from core.geo.coords import haversine_m
from core.packs.loader import load_region
from tests.support.paths import ROOT

PBF = ROOT / ".omni" / "extracts" / "Helsinki.osm.pbf"


@pytest.fixture(scope="module")
def places() -> list:
    return pick_places(list(load_region("helsinki").places))


@pytest.fixture(scope="module")
def graph() -> WalkGraph:
    assert PBF.is_file(), "make install (scripts/build_packs.py) keeps the extract here"
    return WalkGraph(PBF)


def test_the_pairs_are_nearby_landmarks_including_the_issues_examples(places):
    pairs = pick_pairs(places)
    assert len(pairs) >= 30
    assert all(MIN_APART_M < haversine_m(a.lon, a.lat, b.lon, b.lat) <= MAX_APART_M for a, b in pairs)
    named = {frozenset((a.name_en or a.name_zh, b.name_en or b.name_zh)) for a, b in pairs}
    assert frozenset(("Helsinki Senate Square", "Helsinki Cathedral")) in named
    assert frozenset(("Stockmann", "Helsinki Senate Square")) in named
    assert len({p.name_en or p.name_zh for p in places}) == len(places)  # one per name


def test_the_reference_is_a_metric_on_ground_level_ways(places, graph):
    """Symmetric (walking goes both ways) and obeying the triangle inequality over all the bench's places: a
    wrong start or end part-way along a way breaks one or the other."""
    spots = [graph.place(LonLat(p.lon, p.lat)) for p in places]
    assert any(0.05 < t < 0.95 for _, _, t, _ in spots)  # some start part-way along a way, not at a node
    dist = [graph.distances_from(s) for s in spots]
    n = len(spots)
    d = [[graph.between(spots[i], spots[j], dist[i]) for j in range(n)] for i in range(n)]
    for i, j in itertools.combinations(range(n), 2):
        assert d[i][j] == pytest.approx(d[j][i], abs=0.01)
        assert all(d[i][j] <= d[i][k] + d[k][j] + 0.01 for k in range(n))
    # every place lands on a way next to it, not across the block
    assert all(gap < 70 for *_, gap in spots)
