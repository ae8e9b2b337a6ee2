"""The batch generator draws real places of a pack, reproducibly, and the batch format reads back with its schema."""

from __future__ import annotations

import json

import pytest

from core.__main__ import main
from core.config import get_settings
from core.geo.registry import make_provider
from core.lab.batch import read_batch
from core.lab.generate import generate_batch, resolvable_places
from core.models.lab import RouteBatchItem, TripBatchItem, schemas
from core.packs.loader import load_region
from core.route.resolver import resolve_points
from tests.support.paths import ROOT


def test_the_same_seed_writes_a_byte_identical_file_and_another_seed_does_not(tmp_path):
    args = ["lab", "generate", "--region", "helsinki", "--kind", "delivery", "--n", "12", "--stops", "5-25"]
    assert main([*args, "--seed", "7", "--out", str(tmp_path / "a.jsonl")]) == 0
    assert main([*args, "--seed", "7", "--out", str(tmp_path / "b.jsonl")]) == 0
    assert main([*args, "--seed", "8", "--out", str(tmp_path / "c.jsonl")]) == 0
    a = (tmp_path / "a.jsonl").read_bytes()
    assert a == (tmp_path / "b.jsonl").read_bytes()
    assert a != (tmp_path / "c.jsonl").read_bytes()
    assert len(a.decode("utf-8").splitlines()) == 12


def test_every_place_is_a_pack_place_named_so_it_resolves_to_that_place():
    pack = load_region("helsinki")
    items = generate_batch(region="helsinki", kind="delivery", n=4, stops=(5, 9), seed=3, settings=get_settings())
    provider = make_provider("offline", region="helsinki", settings=get_settings())
    for item in items:
        assert isinstance(item, RouteBatchItem)
        request = item.request
        assert 5 <= len(request.stops) <= 9
        assert request.round_trip and request.origin_mode == "fixed"
        assert len(item.place_ids) == len(request.stops) + 1 and len(set(item.place_ids)) == len(item.place_ids)
        places = [pack.place_by_id(pid) for pid in item.place_ids]
        assert all(p is not None for p in places)
        resolved = resolve_points(request, provider=provider, default_city=pack.city, settings=get_settings())
        assert resolved.origin is not None
        got = [resolved.origin, *resolved.stops]
        assert [p.poi_id for p in got] == item.place_ids
        for point, place in zip(got, places, strict=True):  # coordinates are the pack's own
            assert (point.lon, point.lat) == (place.lon, place.lat)


def test_sightseeing_days_start_at_a_hotel_and_visit_sights():
    pack = load_region("shanghai")
    items = generate_batch(region="shanghai", kind="sightseeing", n=5, stops=(3, 8), seed=1, settings=get_settings())
    for item in items:
        origin, *sights = (pack.place_by_id(pid) for pid in item.place_ids)
        assert origin is not None and origin.category == "hotel"
        assert all(
            s is not None and s.category in {"landmark", "museum", "park", "temple", "theatre", "family", "market"}
            for s in sights
        )
        assert item.request.transport_mode == "walking"


def test_trip_days_are_trip_requests_over_pack_ids():
    items = generate_batch(region="shanghai", kind="trip-day", n=2, stops=(4, 4), seed=2, settings=get_settings())
    assert all(isinstance(i, TripBatchItem) for i in items)
    trip = items[0].request
    assert isinstance(trip, type(items[0].request)) and len(trip.places) == 4
    assert trip.hotel is not None and trip.hotel.place_id == items[0].place_ids[0]
    assert [p.place_id for p in trip.places] == items[0].place_ids[1:]


def test_only_places_the_gazetteer_resolves_to_themselves_are_drawn():
    pack = load_region("helsinki")
    usable = {p.id for p in resolvable_places(pack)}
    assert 0 < len(usable) < len(pack.places)
    by_address: dict[str, list[str]] = {}
    for place in pack.places:
        by_address.setdefault(place.address.strip().casefold(), []).append(place.id)
    shared = [ids for ids in by_address.values() if len(ids) > 1]
    assert shared, "the helsinki pack has places sharing an address (e.g. shops in one building)"
    for ids in shared:  # a request naming a shared address could land on the other place: never drawn
        assert not set(ids) & usable


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--kind", "picnic"], "kind"),
        (["--stops", "9-3"], "stops"),
        (["--stops", "five"], "stops"),
        (["--region", "shanghai", "--kind", "sightseeing", "--stops", "150"], "stops"),
    ],
)
def test_bad_generator_input_is_a_structured_error(tmp_path, capsys, args: list[str], field: str):
    base = {"--region": "helsinki", "--kind": "delivery", "--n": "2", "--stops": "5-6"}
    for flag, value in zip(args[::2], args[1::2]):
        base[flag] = value
    argv = ["lab", "generate", *[x for kv in base.items() for x in kv], "--out", str(tmp_path / "x.jsonl")]
    assert main(argv) == 2
    err = json.loads(capsys.readouterr().err.strip().splitlines()[-1])["error"]
    assert err["field"] == field


def test_the_shipped_schemas_are_the_models_and_the_shipped_batches_read_back():
    for name, schema in schemas().items():
        shipped = ROOT / "core" / "lab" / "schema" / f"{name}.schema.json"
        assert json.loads(shipped.read_text(encoding="utf-8")) == json.loads(json.dumps(schema)), name
    for name, n in (("helsinki-delivery-200.jsonl", 200), ("shanghai-sightseeing-100.jsonl", 100)):
        batch = read_batch(ROOT / "data" / "batches" / name)
        assert len(batch.items) == n and not batch.invalid


def test_a_csv_batch_reads_as_the_same_requests(tmp_path):
    import csv

    items = generate_batch(region="helsinki", kind="delivery", n=2, stops=(3, 4), seed=5, settings=get_settings())
    path = tmp_path / "b.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["id", "region", "kind", "seed", "place_ids", "request"])
        writer.writeheader()
        for item in items:
            writer.writerow(
                {
                    "id": item.id,
                    "region": item.region,
                    "kind": item.kind,
                    "seed": item.seed,
                    "place_ids": "|".join(item.place_ids),
                    "request": item.request.model_dump_json(),
                }
            )
        writer.writerow({"id": "broken", "region": "helsinki", "kind": "route", "request": "{not json"})
    batch = read_batch(path)
    assert [item for _, item in batch.items] == items
    (bad,) = batch.invalid
    assert (bad.id, bad.code, bad.index) == ("broken", "INVALID_INPUT", 2)


@pytest.mark.parametrize(("name", "region"), [("helsinki-delivery-200.jsonl", "helsinki")])
def test_every_request_of_the_shipped_batch_resolves_to_its_own_places(name: str, region: str):
    """A lab over a batch whose own requests fail is not a measurement: every place is named by its pack id, so
    a growing gazetteer (new stops and squares sharing a name) cannot make a request ambiguous."""
    from core.config import get_settings
    from core.route.planner import resolve_stage

    provider = make_provider("offline", region=region, settings=get_settings())
    batch = read_batch(ROOT / "data" / "batches" / name)
    assert len(batch.items) == 200 and not batch.invalid
    for _, item in batch.items:
        assert isinstance(item, RouteBatchItem)
        trip = resolve_stage(item.request, provider=provider, settings=get_settings())  # raises AMBIGUOUS_PLACE
        assert trip.origin is not None
        assert [p.poi_id for p in (trip.origin, *trip.stops)] == item.place_ids, item.id
        assert trip.destination.poi_id == item.place_ids[0], item.id
