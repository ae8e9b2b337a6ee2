"""Grow Helsinki lines of the resolver's evaluation set from the map data (issue 20 §5.5).

``python -m bench.grow_names`` reads the OpenStreetMap extract the ``helsinki`` pack is built from (the same
reading, stop grouping and street merging as ``core.packs.build``) and prints JSONL lines in the format of
``tests/data/place_names.jsonl``: for squares, stops, stations, landmarks, museums, churches, parks and
addresses with house numbers, the ways people type them -- the Finnish name as written, in lowercase, without
its diacritics (Toolo for Töölö), the Swedish and English names (``name:sv``, ``name:en``), a partial name (a
multi-word name without its first word), a stop with its mode ("Kauppatori tram stop"), a street and house
number ("Mannerheimintie 20"). A name is used only when it names one place of the pack (or places at one spot,
listed as ``same_place``), so the expected answer is the data's, not a guess. The lines were reviewed and
committed; the script documents where they came from and regrows them after the extract changes.
"""

from __future__ import annotations

import csv
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from core.config import PROJECT_ROOT
from core.geo.coords import haversine_m
from core.geo.text import fold, normalize
from core.packs.osm import is_square, read_extract, stop_mode
from core.packs.osm_places import MODE_WORDS, assign_districts, dedupe_streets, group_stops, importance_of

PBF = PROJECT_ROOT / ".omni" / "extracts" / "Helsinki.osm.pbf"
PACK = PROJECT_ROOT / "data" / "regions" / "helsinki" / "places.csv"
PREFIX = "hel-"
ONE_SPOT_M = 30.0  # places sharing a name or an address this close are one spot (a building's shops)
KINDS = ("landmark", "museum", "temple", "theatre", "park", "station", "stop", "market", "family")
#: lines per way of typing, so that no one way swamps the set (the better-known places first)
QUOTAS = {
    "fi": 40,
    "lower": 20,
    "no_diacritics": 20,
    "sv": 25,
    "en": 25,
    "partial": 20,
    "square": 15,
    "mode": 30,
    "house_number": 30,
}


def _pack_keys(path: Path) -> tuple[dict[str, set[str]], dict[str, tuple[float, float]]]:
    keys: dict[str, set[str]] = defaultdict(set)
    where: dict[str, tuple[float, float]] = {}
    with path.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            where[row["id"]] = (float(row["lon"]), float(row["lat"]))
            for form in [row["name_zh"], row["name_en"], *row["aliases"].split("|")]:
                if form:
                    keys[normalize(form)].add(row["id"])
            line = row["address"].split(",")[0]
            if any(c.isdigit() for c in line):
                keys[normalize(line)].add(row["id"])
    return keys, where


def _one_spot(ids: set[str], where: dict[str, tuple[float, float]]) -> bool:
    pts = [where[i] for i in ids]
    return all(haversine_m(*a, *b) <= ONE_SPOT_M for a in pts for b in pts)


def grow(pbf: Path = PBF, pack: Path = PACK) -> list[dict[str, Any]]:
    extract = read_extract(pbf)
    features = list(dedupe_streets(group_stops(extract.features)))
    assign_districts(features, extract.district_areas)
    keys, where = _pack_keys(pack)
    lines: list[dict[str, Any]] = []
    seen: set[str] = set()

    counts: dict[str, int] = defaultdict(int)

    def add(text: str, pid: str, kind: str) -> None:
        owners = keys.get(normalize(text), set())
        if text in seen or not text.strip() or counts[kind] >= QUOTAS[kind]:
            return
        if owners and (pid not in owners or not _one_spot(owners, where)):
            return  # the text names another place too: not a line with one right answer
        if not owners and kind not in {"partial", "mode"}:
            return
        seen.add(text)
        counts[kind] += 1
        line: dict[str, Any] = {"text": text, "region": "helsinki", "expect": pid, "kind": kind}
        if others := sorted(owners - {pid}):
            line["same_place"] = others
        lines.append(line)

    def partial_ok(text: str, pid: str) -> bool:
        key = normalize(text)  # the part names only this place: no other place's name holds it
        return len(key) >= 6 and all(pid in ids for k, ids in keys.items() if key in k)

    for f in sorted(features, key=lambda f: (-importance_of(f), f.osm_id)):
        pid = PREFIX + f.osm_id
        fi = f.names.get("name:fi") or f.names.get("name", "")
        if is_square(f.tags) and f.category == "landmark" and fi:
            for text in (fi, fi.lower(), fold(fi), f.names.get("name:sv", ""), f.names.get("name:en", "")):
                add(text, pid, "square")
        if f.category in KINDS and fi:
            if f.category == "stop":
                mode = stop_mode(f.tags) or f.tags.get("omni:mode", "")
                add(f"{fi} {MODE_WORDS.get(mode, 'stop')}", pid, "mode")
                add(f"{fi.lower()} {mode}", pid, "mode")
                continue
            add(fi, pid, "fi")
            add(fi.lower(), pid, "lower")
            add(fold(fi), pid, "no_diacritics")
            if sv := f.names.get("name:sv"):
                add(sv, pid, "sv")
            if en := f.names.get("name:en"):
                add(en, pid, "en")
                add(en.lower(), pid, "lower")
            words = fi.split()
            if len(words) > 1 and words[1].isalpha() and partial_ok(" ".join(words[1:]), pid):
                add(" ".join(words[1:]), pid, "partial")
        elif f.category in {"address", "shopping", "restaurant", "cafe", "hotel"}:
            street, number = f.tags.get("addr:street", ""), f.tags.get("addr:housenumber", "")
            if street and number.isdigit():
                text = f"{street} {number}"
                add(text, pid, "house_number")
                add(fold(text).lower(), pid, "house_number")
    return lines


def main() -> int:
    for line in grow():
        sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
