"""The bundled Shanghai pack and demo scenarios: the data the offline app runs on."""

import subprocess
import sys
from collections import Counter

import pytest
from opening_hours import OpeningHours

from core.config import Settings
from core.geo.registry import make_provider
from core.packs.loader import list_regions, load_region
from core.route.planner import plan_route
from core.route.scenarios import list_scenarios, load_scenario
from tests.support.paths import ROOT as PROJECT_ROOT

ROOT = PROJECT_ROOT


@pytest.fixture(scope="module")
def pack():
    return load_region("shanghai", ROOT / "data")


def test_pack_is_listed_and_large_enough(pack):
    assert "shanghai" in list_regions(ROOT / "data")
    assert len(pack.places) >= 150
    assert pack.timezone == "Asia/Shanghai" and pack.crs == "WGS84"


def test_pack_covers_the_required_kinds(pack):
    cats = Counter(p.category for p in pack.places)
    assert cats["address"] >= 20
    assert cats["restaurant"] + cats["cafe"] >= 30
    assert cats["museum"] >= 10 and cats["park"] + cats["family"] >= 10
    assert cats["hotel"] >= 5 and cats["station"] >= 3 and cats["shopping"] >= 5
    airports = [p.name_en for p in pack.places if p.category == "airport"]
    assert any("Pudong" in a for a in airports) and any("Hongqiao" in a for a in airports)
    prices = sorted(p.price_per_person for p in pack.places if p.category == "restaurant" and p.price_per_person)
    assert prices[0] < 50 and prices[-1] > 500  # budget to premium


def test_every_place_is_inside_the_bbox_and_has_valid_hours(pack):
    lon0, lat0, lon1, lat1 = pack.bbox
    ids = set()
    for p in pack.places:
        assert lon0 <= p.lon <= lon1 and lat0 <= p.lat <= lat1, p.id
        assert p.id not in ids
        ids.add(p.id)
        if p.opening_hours:
            OpeningHours(p.opening_hours)  # raises on invalid OSM syntax
        assert p.visit_minutes is None or p.visit_minutes >= 0


def test_validator_passes_strict():
    proc = subprocess.run(
        [sys.executable, "-m", "core", "pack", "validate", "shanghai", "--strict"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_at_least_three_demo_scenarios_of_the_required_kinds():
    ids = {s.id for s in list_scenarios("shanghai", data_dir=ROOT / "data")}
    assert {"delivery-round", "sightseeing-day", "airport-run"} <= ids


@pytest.mark.parametrize("scenario_id", [s.id for s in list_scenarios(data_dir=ROOT / "data")])
def test_each_scenario_plans_offline(scenario_id):
    scenario = load_scenario(scenario_id, data_dir=ROOT / "data")
    settings = Settings(data_dir=ROOT / "data", region=scenario.region)
    result = plan_route(scenario.request, provider=make_provider("offline", settings=settings), settings=settings)
    n = len(scenario.request.stops)
    assert result.success and len(result.resolved_stops) == n
    assert sorted(result.best_route.stop_order) == list(range(n))
    assert result.best_route.total_distance_m > 0
    assert all(p.source in {"geo", "text_search", "search_detail", "manual_fallback"} for p in result.resolved_stops)
    assert all(p.confidence_note for p in result.resolved_stops)
