"""``python -m core pack build --pbf FILE.osm.pbf --name NAME``: a region pack from any OpenStreetMap extract.

What lands in ``data/regions/NAME/``: ``places.csv`` (the gazetteer: every named station, square, church,
museum, street, shop, building with an address ... with its names in every language the data carries, its
opening hours, cuisine, diet and minimum age where tagged and its OSM id), ``entrances.csv`` (the doors of its
buildings and areas, OSM nodes: core/packs/entrances.py), ``region.json`` (coverage, data date,
attribution, the road network), ``basemap.geojson`` (streets, water and parks for the offline map) and
``valhalla_tiles/`` (the road graph Valhalla routes on, built by the wheel's ``valhalla_build_tiles``).
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from core.errors import InputError
from core.models.common import REGION_NAME_PATTERN
from core.packs.entrances import ENTRANCE_COLUMNS, ENTRANCES_FILE
from core.packs.loader import load_region
from core.packs.names import NamesApplied, apply_chinese_names, read_names
from core.packs.osm import (
    Extract,
    Feature,
    address_of,
    cuisine_of,
    min_age_of,
    product_tags,
    read_extract,
    simplified_chinese,
)
from core.packs.osm_places import assign_districts, dedupe_streets, group_stops, importance_of
from core.packs.validate import COLUMNS

TILE_DIR = "valhalla_tiles"
BASEMAP = "basemap.geojson"
ODBL = "ODbL-1.0"


class PackBuildReport(BaseModel):
    name: str
    folder: str
    places: int
    entrances: int = Field(description="doors kept (entrances.csv), of places_with_entrances buildings and areas")
    places_with_entrances: int
    by_category: dict[str, int]
    basemap_features: int
    tiles: int
    data_date: str | None
    bbox: tuple[float, float, float, float]
    dropped_opening_hours: int = Field(description="opening_hours tags the parser could not read (left out)")
    chinese_names: NamesApplied | None = Field(default=None, description="the curated Chinese names' table applied")
    osm_objects: int


def valhalla_bin(tool: str) -> Path:
    """A Valhalla executable shipped inside the pinned wheel (``valhalla/bin``)."""
    import valhalla

    path = Path(valhalla.__file__).parent / "bin" / tool
    if not path.is_file():
        raise InputError(f"{tool} is not in the installed Valhalla wheel ({path})", field="valhalla")
    return path


def build_tiles(pbf: Path, tile_dir: Path) -> int:
    """Valhalla tiles for the extract in ``tile_dir`` (replaced); the number of tile files written."""
    from core.geo.valhalla import write_config

    if tile_dir.exists():
        shutil.rmtree(tile_dir)
    tile_dir.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="omni-tiles-") as tmp:
        config = write_config(tile_dir, Path(tmp) / "valhalla.json")
        done = subprocess.run(
            [str(valhalla_bin("valhalla_build_tiles")), "-c", str(config), str(pbf.resolve())],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout)[-800:]
        raise InputError(f"valhalla_build_tiles failed on {pbf.name}: {tail}", field="pbf")
    return sum(1 for p in tile_dir.rglob("*.gph") if p.is_file())


def _valid_hours(expr: str | None) -> str | None:
    if not expr:
        return None
    from opening_hours import OpeningHours

    try:
        OpeningHours(expr)
    except Exception:  # the parser's errors are its own types; any of them means "not readable"
        return None
    return expr


def _row(feature: Feature, prefix: str) -> dict[str, Any]:
    names = feature.names
    primary = names.get("name") or next(iter(names.values()))
    name_en = names.get("name:en", "")
    hans, chinese_forms = simplified_chinese(names)  # shown in Simplified script, the original kept as an alias
    name_zh = hans or primary
    seen = {name_zh.casefold(), name_en.casefold()}
    aliases = []
    for value in [*names.values(), *chinese_forms]:
        if value.casefold() not in seen:  # one alias per spelling, whatever its case
            seen.add(value.casefold())
            aliases.append(value)
    if name_zh != primary and primary not in aliases:
        aliases.insert(0, primary)
    tags = feature.tags
    return {
        "id": f"{prefix}{feature.osm_id}",
        "name_zh": name_zh,
        "name_en": name_en,
        "aliases": "|".join(a.replace("|", "/") for a in aliases),
        "address": address_of(tags),
        "district": feature.district,
        "lon": f"{feature.lon:.6f}",
        "lat": f"{feature.lat:.6f}",
        "category": feature.category,
        "tags": "|".join(product_tags(tags, feature.category)),
        "opening_hours": _valid_hours(tags.get("opening_hours")) or "",
        "price_per_person": "",
        "rating": "",
        "visit_minutes": "",
        "needs_reservation": "false",
        "cuisine": "|".join(cuisine_of(tags)),
        "min_age": "" if (age := min_age_of(tags)) is None else str(age),
        "importance": str(importance_of(feature)),
        "approximate": "true" if feature.approximate else "false",
    }


def _region_json(
    *,
    name: str,
    extract: Extract,
    city: str,
    city_zh: str | None,
    country: str,
    timezone: str,
    source: str,
    tiles: int,
) -> dict[str, Any]:
    assert extract.bbox is not None
    west, south, east, north = extract.bbox
    date = extract.data_date or "unknown"
    return {
        "name": name,
        "display_name": {"en": city, "zh": city_zh or city},
        "city": city,
        "city_aliases": [a for a in dict.fromkeys([city_zh or "", city.lower()]) if a and a != city],
        "country": country,
        "timezone": timezone,
        "crs": "WGS84",
        "bbox": [round(west, 6), round(south, 6), round(east, 6), round(north, 6)],
        "center": [round((west + east) / 2, 6), round((south + north) / 2, 6)],
        "licence": ODBL,
        "attribution": f"© OpenStreetMap contributors (ODbL 1.0), {source}, data as of {date}",
        "coordinate_precision_m": 10,
        "data_date": extract.data_date,
        "coverage": {
            "en": f"{city}: the OpenStreetMap extract's box, "
            f"{west:.4f}–{east:.4f} E, {south:.4f}–{north:.4f} N; outside it legs are estimates",
            "zh": f"{city_zh or city}：OpenStreetMap 数据范围 东经 {west:.4f}–{east:.4f}，北纬 {south:.4f}–{north:.4f}；"
            "范围外的路段为估算",
        },
        # for points the network cannot reach: straight line x circuity at an urban speed, labelled an estimate
        "estimate": {
            "driving": {"circuity": 1.3, "speed_kmh": 25.0, "fixed_overhead_s": 60},
            "walking": {"circuity": 1.2, "speed_kmh": 4.8, "fixed_overhead_s": 0},
            "cycling": {"circuity": 1.25, "speed_kmh": 15.0, "fixed_overhead_s": 30},
        },
        "network": {"engine": "valhalla", "tiles": TILE_DIR, "tile_count": tiles, "source": source},
        "validation": {"id_prefix": f"{name[:3]}-", "curated": False},
        "basemap": BASEMAP,
    }


def _write_csv(path: Path, columns: Sequence[str], rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def _door_rows(features: list[Feature], extract: Extract, prefix: str) -> list[dict[str, Any]]:
    """The doors of the places kept (entrances.csv), place by place in outline order."""
    return [
        {
            "place_id": f"{prefix}{f.osm_id}",
            "osm_id": e.osm_id,
            "lon": f"{e.lon:.7f}",
            "lat": f"{e.lat:.7f}",
            "kind": e.kind,
        }
        for f in features
        for e in extract.entrances.get(f.osm_id, [])
    ]


def _checked_extract(pbf: Path, name: str) -> Extract:
    """The extract read, once the pack's name and the file are known good and it holds named features."""
    import re

    if not re.fullmatch(REGION_NAME_PATTERN, name):
        raise InputError(f"a pack name is lower-case letters, digits and '-', not '{name}'", field="name")
    if not pbf.is_file():
        raise InputError(f"no such extract: {pbf}", field="pbf")
    extract = read_extract(pbf)
    if extract.bbox is None or not extract.features:
        raise InputError(f"{pbf.name} holds no named features", field="pbf")
    return extract


def build_pack(
    pbf: Path,
    *,
    name: str,
    data_dir: Path,
    city: str | None = None,
    city_zh: str | None = None,
    country: str = "",
    timezone: str = "UTC",
    source: str | None = None,
    tiles: bool = True,
    names_zh: Path | None = None,
) -> PackBuildReport:
    """Build (or rebuild) the pack ``name`` from ``pbf`` under ``data_dir/regions``; ``names_zh``: a table of
    curated Chinese names (core/packs/names.py)."""
    extract = _checked_extract(pbf, name)
    assert extract.bbox is not None, "_checked_extract refuses an extract without a box"
    folder = data_dir / "regions" / name
    folder.mkdir(parents=True, exist_ok=True)
    prefix = f"{name[:3]}-"
    features = list(dedupe_streets(group_stops(extract.features)))
    assign_districts(features, extract.district_areas)
    rows = [_row(f, prefix) for f in features]
    applied = apply_chinese_names(rows, read_names(names_zh), prefix=prefix) if names_zh else None
    rows.sort(key=lambda r: (r["category"], r["name_zh"], r["id"]))
    dropped = sum(
        1 for f in extract.features if f.tags.get("opening_hours") and not _valid_hours(f.tags["opening_hours"])
    )
    _write_csv(folder / "places.csv", COLUMNS, rows)
    door_rows = _door_rows(features, extract, prefix)
    # stable: outline order within a place
    _write_csv(folder / ENTRANCES_FILE, ENTRANCE_COLUMNS, sorted(door_rows, key=lambda r: r["place_id"]))
    (folder / BASEMAP).write_text(
        json.dumps(
            {"type": "FeatureCollection", "features": extract.basemap}, ensure_ascii=False, separators=(",", ":")
        ),
        encoding="utf-8",
    )
    tile_count = build_tiles(pbf, folder / TILE_DIR) if tiles else 0
    meta = _region_json(
        name=name,
        extract=extract,
        city=city or name.capitalize(),
        city_zh=city_zh,
        country=country,
        timezone=timezone,
        source=source or pbf.name,
        tiles=tile_count,
    )
    if not tiles:
        meta.pop("network")
    (folder / "region.json").write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    load_region.cache_clear()
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["category"]] = counts.get(r["category"], 0) + 1
    return PackBuildReport(
        name=name,
        folder=str(folder),
        places=len(rows),
        entrances=len(door_rows),
        places_with_entrances=len({r["place_id"] for r in door_rows}),
        by_category=dict(sorted(counts.items())),
        basemap_features=len(extract.basemap),
        tiles=tile_count,
        data_date=extract.data_date,
        bbox=extract.bbox,
        dropped_opening_hours=dropped,
        chinese_names=applied,
        osm_objects=extract.objects,
    )
