"""A place given by the region pack's own id (a lab batch's ``poi_id``, a part of an airport, a choice offered from
the pack while AMap was down) is the pack's place on every provider: AMap is never asked for an id it cannot know
(it answers INVALID_PARAMS, a call of the day's quota spent and a warning that blames AMap), and the point says it
came from the pack."""

from __future__ import annotations

from bench.amap_cache import AMapShapedServer
from core.config import PROJECT_ROOT
from core.geo.registry import make_provider
from core.lab.batch import read_batch
from core.models.lab import RouteBatchItem
from core.packs.loader import load_region
from core.route.planner import resolve_stage
from tests.support.amap_settings import amap_settings


class PathServer(AMapShapedServer):
    def __init__(self) -> None:
        super().__init__()
        self.paths: list[str] = []

    def handle(self, path: str, query: dict[str, str]) -> dict:  # type: ignore[type-arg]
        self.paths.append(path)
        return super().handle(path, query)


def test_a_lab_request_by_pack_ids_asks_amap_no_detail_and_keeps_the_packs_places():
    batch = read_batch(PROJECT_ROOT / "data" / "batches" / "shanghai-sightseeing-100.jsonl")
    item = batch.items[0][1]
    assert isinstance(item, RouteBatchItem)
    pack = load_region("shanghai")
    with PathServer() as amap:
        settings = amap_settings(amap.base_url, key="pack-ids-key-0123", cache_dir=None)
        provider = make_provider("amap", settings=settings).for_request()
        trip = resolve_stage(item.request, provider=provider, settings=settings)
    assert [p for p in amap.paths if p.startswith("/v3/place/detail")] == []
    assert provider.drain_warnings() == []
    for point, place_id in zip((trip.origin, *trip.stops), item.place_ids, strict=True):
        place = pack.place_by_id(place_id)
        assert point is not None and place is not None
        assert (point.poi_id, point.lon, point.lat) == (place_id, place.lon, place.lat)
        assert point.provider == "offline"  # the pack answered, not AMap
