"""A small, controlled region pack written into a temp dir, so core tests don't depend on the
curated bundled data (which has its own tests)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

REGION = {
    "name": "testcity",
    "display_name": {"zh": "上海", "en": "Shanghai"},
    "city": "上海",
    "city_aliases": ["上海市", "Shanghai"],
    "timezone": "Asia/Shanghai",
    "bbox": [120.8, 30.6, 122.2, 31.9],
    "center": [121.47, 31.23],
    "estimate": {
        "driving": {"circuity": 1.35, "speed_kmh": 28, "fixed_overhead_s": 120},
        "walking": {"circuity": 1.25, "speed_kmh": 4.8, "fixed_overhead_s": 0},
    },
}

COLUMNS = [
    "id",
    "name_zh",
    "name_en",
    "aliases",
    "address",
    "district",
    "lon",
    "lat",
    "category",
    "tags",
    "opening_hours",
    "price_per_person",
    "rating",
    "visit_minutes",
    "needs_reservation",
]

PLACES = [
    (
        "t-peoples-square",
        "人民广场",
        "People's Square",
        "People Square",
        "黄浦区人民大道120号",
        "黄浦区",
        121.4737,
        31.2304,
        "landmark",
    ),
    ("t-bund", "外滩", "The Bund", "外滩观景平台|Bund", "黄浦区中山东一路", "黄浦区", 121.4903, 31.2400, "landmark"),
    (
        "t-pearl",
        "东方明珠广播电视塔",
        "Oriental Pearl TV Tower",
        "东方明珠|Pearl Tower",
        "浦东新区世纪大道1号",
        "浦东新区",
        121.4998,
        31.2397,
        "landmark",
    ),
    ("t-yuyuan", "豫园", "Yu Garden", "Yuyuan Garden", "黄浦区安仁街218号", "黄浦区", 121.4921, 31.2272, "landmark"),
    ("t-museum", "上海博物馆", "Shanghai Museum", "上博", "黄浦区人民大道201号", "黄浦区", 121.4755, 31.2283, "museum"),
    ("t-xintiandi", "新天地", "Xintiandi", "", "黄浦区太仓路181弄", "黄浦区", 121.4747, 31.2196, "shopping"),
    (
        "t-xianxia-99",
        "长宁区仙霞路99号",
        "99 Xianxia Road",
        "",
        "长宁区仙霞路99号",
        "长宁区",
        121.4059,
        31.2089,
        "address",
    ),
    (
        "t-pvg-t2",
        "浦东国际机场T2航站楼",
        "Pudong Airport T2",
        "PVG T2",
        "浦东新区迎宾大道6000号",
        "浦东新区",
        121.8083,
        31.1512,
        "airport",
    ),
    (
        "t-hongqiao-rail",
        "上海虹桥站",
        "Shanghai Hongqiao Railway Station",
        "虹桥火车站",
        "闵行区申贵路1500号",
        "闵行区",
        121.3200,
        31.1940,
        "station",
    ),
    (
        "t-jingan-temple",
        "静安寺",
        "Jing'an Temple",
        "Jingan Temple",
        "静安区南京西路1686号",
        "静安区",
        121.4454,
        31.2234,
        "temple",
    ),
    ("t-century-park", "世纪公园", "Century Park", "", "浦东新区锦绣路1001号", "浦东新区", 121.5515, 31.2157, "park"),
    ("t-tianzifang", "田子坊", "Tianzifang", "", "黄浦区泰康路210弄", "黄浦区", 121.4664, 31.2089, "shopping"),
    (
        "t-peace-hotel",
        "和平饭店",
        "Peace Hotel",
        "Fairmont Peace Hotel",
        "黄浦区南京东路20号",
        "黄浦区",
        121.4860,
        31.2405,
        "hotel",
    ),
]
# A grid of ordinary addresses (synthetic but plausible) for larger delivery rounds.
for i in range(30):
    PLACES.append(
        (
            f"t-addr-{i}",
            f"测试路{i + 1}号",
            f"{i + 1} Test Road",
            "",
            f"徐汇区测试路{i + 1}号",
            "徐汇区",
            round(121.40 + 0.012 * (i % 6), 4),
            round(31.16 + 0.011 * (i // 6), 4),
            "address",
        )
    )


def write_region(root: Path, region: dict, rows) -> Path:
    """Write ``regions/<name>/region.json`` and ``places.csv`` (rows in COLUMNS order) under ``root``."""
    folder = root / "regions" / region["name"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "region.json").write_text(json.dumps(region, ensure_ascii=False), encoding="utf-8")
    with (folder / "places.csv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        w.writerows(rows)
    return root


def write_pack(root: Path, name: str = "testcity") -> Path:
    rows = [
        [pid, zh, en, aliases, addr, district, lon, lat, cat, "", "", "", "", "", "false"]
        for pid, zh, en, aliases, addr, district, lon, lat, cat in PLACES
    ]
    return write_region(root, {**REGION, "name": name}, rows)
