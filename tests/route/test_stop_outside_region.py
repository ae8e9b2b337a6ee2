"""A stop found outside the region's bounds is named in a warning (issue 31, scope before answer): its point was
found, but this region's data cannot vouch for it."""

from __future__ import annotations

from core.config import Settings
from core.geo.registry import make_provider
from core.models.route import RoutePlanRequest
from core.route.notices import point_names, words
from core.route.planner import resolve_stage


def test_a_stop_outside_the_bounds_is_warned_by_its_number_and_the_region():
    settings = Settings(region="shanghai", provider="offline", cache_dir=None)
    provider = make_provider("offline", settings=settings)
    # the pack's bounds narrowed to the centre: the Bund and People's Square inside, Yu Garden's east edge too,
    # Zhujiajiao (Qingpu, 40 km west) outside
    provider.region = provider.region.model_copy(update={"bbox": (121.40, 31.15, 121.55, 31.30)})
    request = RoutePlanRequest.model_validate(
        {
            "origin_mode": "fixed",
            "origin_address": "人民广场",
            "destination_address": "外滩",
            "stops": ["豫园", "朱家角古镇"],
        }
    )
    trip = resolve_stage(request, provider=provider, settings=settings)
    outside = [n for n in trip.notices if n.code == "STOP_OUTSIDE_REGION"]
    assert [n.params for n in outside] == [{"n": 2, "point": "stops.1", "region": "shanghai"}]
    said = words(outside[0], "en", names=point_names([*trip.stops]))
    assert said.startswith("Stop 2 (") and "outside the region" in said
