"""A small region pack with opening hours for the itinerary tests (written into a temp dir).

Dates used by the tests: 2025-06-02 is a Monday, 2025-06-03 a Tuesday, 2025-06-04 a Wednesday.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from core.geo.offline import OfflineProvider
from core.packs.loader import load_region
from tests.support.region_packs import write_region

MONDAY = date(2025, 6, 2)
TUESDAY = date(2025, 6, 3)
WEDNESDAY = date(2025, 6, 4)

REGION = {
    "name": "itintest",
    "display_name": {"zh": "测试", "en": "Itinerary test city"},
    "city": "上海",
    "city_aliases": ["Shanghai"],
    "country": "CN",
    "timezone": "Asia/Shanghai",
    "bbox": [120.8, 30.6, 122.2, 31.9],
    "center": [121.47, 31.23],
    "estimate": {
        "driving": {"circuity": 1.35, "speed_kmh": 28, "fixed_overhead_s": 120},
        "walking": {"circuity": 1.25, "speed_kmh": 4.8, "fixed_overhead_s": 0},
    },
}


# id, name_en, lon, lat, category, opening_hours, visit_minutes
PLACES = [
    ("i-hotel", "Peace Hotel", 121.4860, 31.2405, "hotel", "24/7", 0),
    ("i-bund", "The Bund", 121.4903, 31.2400, "landmark", "24/7", 60),
    ("i-pearl", "Oriental Pearl", 121.4998, 31.2397, "landmark", "Mo-Su 09:00-21:30", 90),
    ("i-yuyuan", "Yu Garden", 121.4921, 31.2272, "landmark", "Tu-Su 09:00-16:30; Mo off", 90),
    ("i-museum", "Shanghai Museum", 121.4755, 31.2283, "museum", "Tu-Su 09:00-17:00; Mo off", 120),
    ("i-xintiandi", "Xintiandi", 121.4747, 31.2196, "shopping", "Mo-Su 10:00-22:00", 60),
    ("i-jingan", "Jing'an Temple", 121.4454, 31.2234, "temple", "Mo-Su 07:30-17:00", 45),
    ("i-century", "Century Park", 121.5515, 31.2157, "park", "Mo-Su 07:00-18:00", 90),
    ("i-tianzifang", "Tianzifang", 121.4664, 31.2089, "shopping", "Mo-Su 10:00-22:00", 60),
    ("i-nightbar", "Night Bar", 121.4800, 31.2350, "bar", "Mo-Su 21:00-02:00", 60),
    ("i-morning", "Morning Market", 121.4700, 31.2300, "market", "Mo-Su 05:00-08:00", 45),
    ("i-far", "Far Water Town", 121.0500, 31.1100, "landmark", "Mo-Su 10:00-12:00", 30),
    ("i-tiny", "Tiny Gallery", 121.4780, 31.2320, "museum", "Mo-Su 14:00-14:30", 60),
]
# A grid of sights, always open 09:00-21:00, for larger trips.
for i in range(36):
    PLACES.append(
        (
            f"i-grid-{i}",
            f"Grid Sight {i}",
            round(121.43 + 0.012 * (i % 6), 4),
            round(31.19 + 0.010 * (i // 6), 4),
            "landmark",
            "Mo-Su 09:00-21:00",
            45 + 15 * (i % 3),
        )
    )


def write_itinerary_pack(root: Path, name: str = "itintest") -> Path:
    rows = [
        [pid, en, en, "", f"{en} address", "", lon, lat, cat, "", oh, "", "", visit, "false"]
        for pid, en, lon, lat, cat, oh, visit in PLACES
    ]
    return write_region(root, {**REGION, "name": name}, rows)


def make_test_provider(root: Path, name: str = "itintest") -> OfflineProvider:
    write_itinerary_pack(root, name)
    return OfflineProvider(load_region(name, root))


def trip(places, *, days=None, hotel="i-hotel", **extra) -> dict:
    """A TripRequest payload: ``places`` are place ids or dicts; ``days`` dates or day dicts."""
    days = days or [MONDAY]
    return {
        "hotel": {"place_id": hotel},
        "days": [{"date": d.isoformat()} if isinstance(d, date) else d for d in days],
        "places": [{"place_id": p} if isinstance(p, str) else p for p in places],
        **extra,
    }


def independent_robust_minutes(nominal_s: float, *, factor: float, buffer_min: int) -> int:
    """The policy's formula, written out again for the tests (ceil of nominal x factor + buffer)."""
    import math

    return 0 if nominal_s <= 0 else math.ceil(round(nominal_s / 60.0 * factor + buffer_min, 9))
