"""Region packs: ``data/regions/<name>/region.json`` + ``places.csv`` (see data/README.md)."""

from __future__ import annotations

import csv
import json
import re
from functools import lru_cache
from pathlib import Path

from pydantic import ValidationError

from core.config import BUNDLED_DATA
from core.errors import InputError
from core.models.common import REGION_NAME_PATTERN, echo
from core.models.entrance import Entrance
from core.models.region import RegionPack, RegionPlace
from core.packs.entrances import ENTRANCES_FILE


def _regions_dir(data_dir: Path) -> Path:
    return data_dir / "regions"


def list_regions(data_dir: Path = BUNDLED_DATA) -> list[str]:
    root = _regions_dir(data_dir)
    return sorted(p.name for p in root.iterdir() if (p / "region.json").is_file()) if root.is_dir() else []


@lru_cache(maxsize=8)
def load_region(name: str, data_dir: Path = BUNDLED_DATA) -> RegionPack:
    known = list_regions(data_dir)
    if not isinstance(name, str) or not re.fullmatch(REGION_NAME_PATTERN, name) or name not in known:
        # a region is a name from the list, never a path: "/some/dir" or "../x" loads nothing
        raise InputError(f"unknown region '{echo(name)}'; available: {', '.join(known) or 'none'}", field="region")
    folder = _regions_dir(data_dir) / name
    meta_path = folder / "region.json"
    if not meta_path.is_file():
        raise InputError(
            f"unknown region '{name}'; available: {', '.join(list_regions(data_dir)) or 'none'}", field="region"
        )
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    places: list[RegionPlace] = []
    places_path = folder / "places.csv"
    doors = _entrances(folder / ENTRANCES_FILE)
    if places_path.is_file():
        with places_path.open(encoding="utf-8", newline="") as fh:
            places = [
                RegionPlace.model_validate({**row, "entrances": doors.get(row.get("id") or "", [])})
                for row in csv.DictReader(fh)
            ]
    return RegionPack.model_validate({**meta, "places": places, "folder": folder})


def _entrances(path: Path) -> dict[str, list[Entrance]]:
    """place id -> its doors, from a pack's ``entrances.csv``; a pack without the file has none."""
    if not path.is_file():
        return {}
    doors: dict[str, list[Entrance]] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        for line, row in enumerate(csv.DictReader(fh), start=2):  # line 1 is the header
            try:
                doors.setdefault(row["place_id"], []).append(
                    Entrance.model_validate({key: row[key] for key in ("osm_id", "lon", "lat", "kind")})
                )
            except (KeyError, ValidationError) as exc:  # a hand-edited or truncated file: say where, not a trace
                why = f"no column {exc}" if isinstance(exc, KeyError) else exc.errors()[0]["msg"]
                raise InputError(
                    f"{path.name} line {line} does not read: {why}", field=ENTRANCES_FILE, code="PACK_INVALID"
                ) from exc
    return doors
