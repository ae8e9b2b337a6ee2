#!/usr/bin/env python3
"""Standalone validator for a bundled offline region pack and its demo scenarios.

Usage (from the repository root)::

    .venv/bin/python tools/validate_region.py                 # defaults to shanghai
    .venv/bin/python tools/validate_region.py --region-dir data/regions/shanghai \
        --scenarios-dir data/scenarios

Checks places.csv (schema, uniqueness, vocabularies, coordinates, opening hours,
coverage minimums), region.json (keys, bbox, estimate parameters) and every
scenario JSON (schema, and that each origin/stop/destination name or address
resolves to a place: exactly, or as a deliberate variant via alias / English
name / fuzzy match).  Exits non-zero on any error.  This is a data-quality tool,
not a unit test.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

COLUMNS = [
    "id", "name_zh", "name_en", "aliases", "address", "district", "lon", "lat",
    "category", "tags", "opening_hours", "price_per_person", "rating",
    "visit_minutes", "needs_reservation",
]
CATEGORIES = {
    "landmark", "museum", "park", "family", "restaurant", "cafe", "shopping",
    "station", "airport", "hotel", "address", "temple", "theatre", "market",
}
TAGS = {
    "kid_friendly", "indoor", "outdoor", "free", "photo_spot", "night_view",
    "historic", "art", "science", "nature", "food", "budget", "premium",
    "shopping", "transport", "accessible", "rainy_day_ok", "quiet",
    "local_favourite", "halal", "vegetarian_friendly",
}
DISTRICTS = {
    "黄浦区", "浦东新区", "徐汇区", "静安区", "长宁区", "普陀区", "虹口区", "杨浦区",
    "闵行区", "宝山区", "嘉定区", "松江区", "青浦区", "奉贤区", "金山区", "崇明区",
}
# Rough administrative extent of Shanghai municipality (WGS-84).
SHANGHAI_LON = (120.85, 122.2)
SHANGHAI_LAT = (30.67, 31.88)

# Coverage minimums: label -> (categories, minimum)
MINIMUMS = {
    "landmark+temple+theatre": ({"landmark", "temple", "theatre"}, 30),
    "museum": ({"museum"}, 15),
    "park+family": ({"park", "family"}, 15),
    "restaurant+cafe": ({"restaurant", "cafe"}, 30),
    "shopping": ({"shopping"}, 10),
    "station": ({"station"}, 9),
    "airport": ({"airport"}, 4),
    "hotel": ({"hotel"}, 10),
    "address": ({"address"}, 25),
}
MIN_TOTAL = 170
MIN_DISTRICTS = 12

ROUTE_STRATEGIES = {"shortest_distance", "fastest_time", "balanced"}
TRANSPORT_MODES = {"driving", "walking"}
ORIGIN_MODES = {"fixed", "current_location"}
FUZZY_THRESHOLD = 80.0


class Report:
    def __init__(self) -> None:
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def error(self, msg: str) -> None:
        self.errors.append(msg)

    def warn(self, msg: str) -> None:
        self.warnings.append(msg)


def norm(text: str) -> str:
    """Normalise for matching: NFKC (full-width -> half-width), casefold, drop
    whitespace and common punctuation, drop a leading city prefix."""
    t = unicodedata.normalize("NFKC", text or "").casefold()
    t = re.sub(r"[\s·・,，。.'’\"()（）\-_/]+", "", t)
    for prefix in ("上海市", "上海"):
        # Only strip the city prefix when a district / road follows, so that
        # names such as 上海中心大厦 or 上海站 keep their prefix.
        if t.startswith(prefix) and re.match(r"^(..?区|浦东新区)", t[len(prefix):]):
            t = t[len(prefix):]
    return t


def haversine_m(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    r = 6371008.8
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(a))


# --------------------------------------------------------------------------
# places.csv
# --------------------------------------------------------------------------
def load_places(path: Path, rep: Report) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        if header != COLUMNS:
            missing = [c for c in COLUMNS if c not in header]
            extra = [c for c in header if c not in COLUMNS]
            rep.error(f"places.csv columns mismatch: missing={missing} extra={extra} "
                      f"(order must be exactly {','.join(COLUMNS)})")
        rows = list(reader)
    return rows


def check_places(rows: list[dict], region: dict | None, rep: Report) -> None:
    try:
        from opening_hours import OpeningHours  # type: ignore
    except ImportError:  # pragma: no cover - environment problem
        OpeningHours = None
        rep.error("python package 'opening_hours' (opening-hours-py) is not installed")

    bbox = region.get("bbox") if region else None
    seen: dict[str, dict[str, str]] = {"id": {}, "name_zh": {}, "address": {}}
    # every searchable label -> id (names and aliases), case-insensitive
    label_owner: dict[str, str] = {}

    for i, r in enumerate(rows, start=2):  # line numbers (header is line 1)
        rid = r.get("id", "")
        where = f"line {i} ({rid or '?'})"

        if not re.fullmatch(r"sh-[a-z0-9]+(?:-[a-z0-9]+)*", rid):
            rep.error(f"{where}: id must be a lowercase ascii slug starting with 'sh-'")
        for key in ("id", "name_zh", "address"):
            val = (r.get(key) or "").strip()
            if not val:
                rep.error(f"{where}: empty {key}")
                continue
            k = val.casefold()
            if k in seen[key]:
                rep.error(f"{where}: duplicate {key} {val!r} (also {seen[key][k]})")
            else:
                seen[key][k] = rid
        if not (r.get("name_en") or "").strip():
            rep.error(f"{where}: empty name_en")

        # district / address form
        district = r.get("district", "")
        address = r.get("address", "")
        if district not in DISTRICTS:
            rep.error(f"{where}: unknown district {district!r}")
        if address.startswith("上海"):
            rep.error(f"{where}: address must not carry the 上海/上海市 prefix: {address!r}")
        if district and not address.startswith(district):
            rep.error(f"{where}: address {address!r} should start with its district {district!r}")

        # category / tags
        cat = r.get("category", "")
        if cat not in CATEGORIES:
            rep.error(f"{where}: unknown category {cat!r}")
        tags = [t for t in (r.get("tags") or "").split("|") if t]
        for t in tags:
            if t not in TAGS:
                rep.error(f"{where}: unknown tag {t!r}")
        if len(set(tags)) != len(tags):
            rep.error(f"{where}: duplicate tags")
        if cat != "address" and not tags:
            rep.warn(f"{where}: no tags")

        # coordinates
        try:
            lon, lat = float(r["lon"]), float(r["lat"])
        except (TypeError, ValueError):
            rep.error(f"{where}: lon/lat not numeric")
            lon = lat = float("nan")
        else:
            for key in ("lon", "lat"):
                if not re.fullmatch(r"\d+\.\d{5}", r[key]):
                    rep.error(f"{where}: {key} must have exactly 5 decimals: {r[key]!r}")
            if not (SHANGHAI_LON[0] <= lon <= SHANGHAI_LON[1] and SHANGHAI_LAT[0] <= lat <= SHANGHAI_LAT[1]):
                rep.error(f"{where}: coordinate ({lon}, {lat}) outside Shanghai")
            if bbox and not (bbox[0] <= lon <= bbox[2] and bbox[1] <= lat <= bbox[3]):
                rep.error(f"{where}: coordinate ({lon}, {lat}) outside region bbox {bbox}")
        r["_lon"], r["_lat"] = lon, lat

        # opening hours
        oh = r.get("opening_hours", "")
        if cat == "address":
            if oh:
                rep.error(f"{where}: address rows must have empty opening_hours")
        elif not oh:
            rep.error(f"{where}: opening_hours empty for non-address row")
        elif OpeningHours is not None:
            try:
                OpeningHours(oh)
            except Exception as exc:  # ParserError and friends
                rep.error(f"{where}: opening_hours {oh!r} does not parse: {exc}")

        # numbers
        price = r.get("price_per_person", "")
        if price != "" and not re.fullmatch(r"\d+", price):
            rep.error(f"{where}: price_per_person must be a non-negative integer or empty: {price!r}")
        if price == "" and cat not in {"address", "station", "airport"}:
            rep.error(f"{where}: price_per_person empty")
        if "free" in tags and price not in ("", "0"):
            rep.error(f"{where}: tagged free but price_per_person={price}")
        rating = r.get("rating", "")
        if rating == "":
            if cat != "address":
                rep.error(f"{where}: rating empty for non-address row")
        elif not re.fullmatch(r"\d\.\d", rating) or not (0.0 <= float(rating) <= 5.0):
            rep.error(f"{where}: rating must be 0-5 with one decimal: {rating!r}")
        vm = r.get("visit_minutes", "")
        if not re.fullmatch(r"\d+", vm or ""):
            rep.error(f"{where}: visit_minutes must be an integer: {vm!r}")
        if r.get("needs_reservation") not in ("true", "false"):
            rep.error(f"{where}: needs_reservation must be true/false")

        # labels (name + aliases) must be unique across rows, case-insensitively
        aliases = [a.strip() for a in (r.get("aliases") or "").split("|") if a.strip()]
        if len({a.casefold() for a in aliases}) != len(aliases):
            rep.error(f"{where}: duplicate alias within row")
        own = {r.get("name_zh", "").casefold(), r.get("name_en", "").casefold()}
        for label in [r.get("name_zh", ""), r.get("name_en", ""), *aliases]:
            k = label.strip().casefold()
            if not k:
                continue
            owner = label_owner.get(k)
            if owner is not None and owner != rid:
                rep.error(f"{where}: name/alias {label!r} collides with {owner}")
            label_owner.setdefault(k, rid)
        for a in aliases:
            if a.casefold() in own:
                rep.warn(f"{where}: alias {a!r} repeats the row's own name")

    # near-duplicate coordinates (likely copy/paste mistakes)
    for a_idx in range(len(rows)):
        a = rows[a_idx]
        for b in rows[a_idx + 1:]:
            if any(math.isnan(v) for v in (a["_lon"], a["_lat"], b["_lon"], b["_lat"])):
                continue
            if haversine_m(a["_lon"], a["_lat"], b["_lon"], b["_lat"]) < 15:
                rep.warn(f"{a['id']} and {b['id']} are less than 15 m apart")


def coverage(rows: list[dict], rep: Report) -> tuple[Counter, Counter]:
    cats = Counter(r["category"] for r in rows)
    districts = Counter(r["district"] for r in rows)
    for label, (group, minimum) in MINIMUMS.items():
        n = sum(cats[c] for c in group)
        if n < minimum:
            rep.error(f"coverage: {label} has {n} rows, minimum {minimum}")
    if len(rows) < MIN_TOTAL:
        rep.error(f"coverage: {len(rows)} places, minimum {MIN_TOTAL}")
    if len(districts) < MIN_DISTRICTS:
        rep.error(f"coverage: {len(districts)} districts, minimum {MIN_DISTRICTS}")
    return cats, districts


# --------------------------------------------------------------------------
# region.json
# --------------------------------------------------------------------------
def check_region(region: dict, rows: list[dict], rep: Report) -> None:
    required = ["name", "display_name", "city", "city_aliases", "country", "adcode",
                "timezone", "crs", "bbox", "center", "licence", "attribution",
                "coordinate_precision_m", "estimate"]
    for k in required:
        if k not in region:
            rep.error(f"region.json: missing key {k!r}")
    if region.get("crs") != "WGS84":
        rep.error("region.json: crs must be 'WGS84'")
    bbox = region.get("bbox")
    if not (isinstance(bbox, list) and len(bbox) == 4 and bbox[0] < bbox[2] and bbox[1] < bbox[3]):
        rep.error(f"region.json: bad bbox {bbox!r}")
        return
    center = region.get("center")
    if not (isinstance(center, list) and len(center) == 2
            and bbox[0] <= center[0] <= bbox[2] and bbox[1] <= center[1] <= bbox[3]):
        rep.error(f"region.json: center {center!r} not inside bbox")
    lons = [r["_lon"] for r in rows if not math.isnan(r["_lon"])]
    lats = [r["_lat"] for r in rows if not math.isnan(r["_lat"])]
    if lons:
        tight = [min(lons), min(lats), max(lons), max(lats)]
        margins = [tight[0] - bbox[0], tight[1] - bbox[1], bbox[2] - tight[2], bbox[3] - tight[3]]
        if min(margins) < 0:
            rep.error(f"region.json: bbox {bbox} does not contain all places {tight}")
        elif max(margins) > 0.5:
            rep.warn(f"region.json: bbox margin unusually large {margins}")
    est = region.get("estimate", {})
    limits = {"driving": ((1.2, 1.6), (10.0, 60.0)), "walking": ((1.1, 1.5), (3.0, 6.0))}
    for mode, ((c_lo, c_hi), (s_lo, s_hi)) in limits.items():
        p = est.get(mode)
        if not isinstance(p, dict):
            rep.error(f"region.json: estimate.{mode} missing")
            continue
        if not (c_lo <= float(p.get("circuity", 0)) <= c_hi):
            rep.error(f"region.json: estimate.{mode}.circuity out of range [{c_lo},{c_hi}]")
        if not (s_lo <= float(p.get("speed_kmh", 0)) <= s_hi):
            rep.error(f"region.json: estimate.{mode}.speed_kmh out of range [{s_lo},{s_hi}]")
        if float(p.get("fixed_overhead_s", -1)) < 0:
            rep.error(f"region.json: estimate.{mode}.fixed_overhead_s must be >= 0")


# --------------------------------------------------------------------------
# scenarios
# --------------------------------------------------------------------------
class PlaceIndex:
    def __init__(self, rows: list[dict]) -> None:
        self.exact: dict[str, str] = {}   # name_zh / address -> id
        self.variant: dict[str, str] = {}  # name_en / aliases -> id
        self.choices: dict[str, str] = {}  # normalised label -> id (for fuzzy)
        for r in rows:
            for key in ("name_zh", "address"):
                self.exact[norm(r[key])] = r["id"]
                self.choices[norm(r[key])] = r["id"]
            labels = [r["name_en"], *[a for a in r["aliases"].split("|") if a]]
            for lab in labels:
                self.variant.setdefault(norm(lab), r["id"])
                self.choices.setdefault(norm(lab), r["id"])

    def resolve(self, text: str) -> tuple[str | None, str, float]:
        """Return (place_id, kind, score); kind in exact|alias|fuzzy|none."""
        key = norm(text)
        if not key:
            return None, "none", 0.0
        if key in self.exact:
            return self.exact[key], "exact", 100.0
        if key in self.variant:
            return self.variant[key], "alias", 100.0
        try:
            from rapidfuzz import fuzz, process  # type: ignore
        except ImportError:
            return None, "none", 0.0
        best = process.extractOne(key, list(self.choices), scorer=fuzz.ratio)
        if best and best[1] >= FUZZY_THRESHOLD:
            return self.choices[best[0]], "fuzzy", float(best[1])
        return None, "none", float(best[1]) if best else 0.0


def check_scenarios(sdir: Path, rows: list[dict], region_name: str, rep: Report) -> list[str]:
    index = PlaceIndex(rows)
    by_id = {r["id"]: r for r in rows}
    lines: list[str] = []
    files = sorted(sdir.glob("*.json"))
    if not files:
        rep.error(f"no scenarios found in {sdir}")
    for path in files:
        tag = f"scenario {path.name}"
        try:
            sc = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            rep.error(f"{tag}: invalid JSON: {exc}")
            continue
        for k in ("id", "title", "description", "region", "request"):
            if k not in sc:
                rep.error(f"{tag}: missing key {k!r}")
        if sc.get("id") != path.stem:
            rep.error(f"{tag}: id {sc.get('id')!r} should equal file stem {path.stem!r}")
        if sc.get("region") != region_name:
            rep.error(f"{tag}: region {sc.get('region')!r} != {region_name!r}")
        title = sc.get("title", {})
        if not (isinstance(title, dict) and title.get("zh") and title.get("en")):
            rep.error(f"{tag}: title needs zh and en")
        req = sc.get("request", {})
        if req.get("route_strategy") not in ROUTE_STRATEGIES:
            rep.error(f"{tag}: bad route_strategy {req.get('route_strategy')!r}")
        if req.get("transport_mode") not in TRANSPORT_MODES:
            rep.error(f"{tag}: bad transport_mode {req.get('transport_mode')!r}")
        mode = req.get("origin_mode")
        if mode not in ORIGIN_MODES:
            rep.error(f"{tag}: bad origin_mode {mode!r}")
        for k in ("task_name", "need_deep_link", "deep_link_mode", "need_html", "max_permutations", "stops"):
            if k not in req:
                rep.error(f"{tag}: request missing {k!r}")
        stops = req.get("stops", [])
        if not isinstance(stops, list) or not stops:
            rep.error(f"{tag}: stops must be a non-empty list")
            stops = []

        endpoints: list[tuple[str, str, str]] = []  # (role, name, address)
        if mode == "fixed":
            endpoints.append(("origin", req.get("origin_name", ""), req.get("origin_address", "")))
        elif mode == "current_location":
            if req.get("origin_name") or req.get("origin_address"):
                rep.error(f"{tag}: current_location scenarios must not set origin_name/origin_address")
        for n, s in enumerate(stops, 1):
            if set(s) - {"name", "address", "city", "contact"}:
                rep.error(f"{tag}: stop {n} has unexpected keys {sorted(set(s) - {'name', 'address', 'city', 'contact'})}")
            endpoints.append((f"stop{n}", s.get("name", ""), s.get("address", "")))
        if req.get("destination_name") or req.get("destination_address"):
            endpoints.append(("destination", req.get("destination_name", ""), req.get("destination_address", "")))

        variants = 0
        resolved_ids: list[str] = []
        lines.append(f"  {path.name}: {req.get('transport_mode')}/{req.get('route_strategy')}, "
                     f"origin_mode={mode}, {len(stops)} stops")
        for role, name, addr in endpoints:
            results = []
            for field, text in (("name", name), ("address", addr)):
                if text:
                    pid, kind, score = index.resolve(text)
                    results.append((field, text, pid, kind, score))
            if not results:
                rep.error(f"{tag}: {role} has neither name nor address")
                continue
            ids = {pid for _, _, pid, _, _ in results if pid}
            if not ids:
                rep.error(f"{tag}: {role} {name or addr!r} matches no place")
                continue
            if len(ids) > 1:
                rep.error(f"{tag}: {role} name and address resolve to different places {sorted(ids)}")
            pid = next(iter(ids))
            resolved_ids.append(pid)
            desc = []
            for field, text, rpid, kind, score in results:
                if rpid is None:
                    rep.error(f"{tag}: {role} {field} {text!r} matches no place")
                    desc.append(f"{field}=UNMATCHED")
                elif kind == "exact":
                    desc.append(f"{field}=exact")
                else:
                    variants += 1
                    desc.append(f"{field}=VARIANT[{kind}{'' if kind == 'alias' else f' {score:.0f}'}] {text!r}")
            lines.append(f"    {role:<11} -> {pid:<34} ({by_id[pid]['category']}) " + "; ".join(desc))
        if len(set(resolved_ids)) != len(resolved_ids):
            dup = [k for k, v in Counter(resolved_ids).items() if v > 1]
            if not (len(dup) == 1 and resolved_ids[0] == resolved_ids[-1] == dup[0]):
                rep.error(f"{tag}: the same place appears more than once: {dup}")
        if variants == 0:
            rep.error(f"{tag}: contains no deliberate variant input (alias / English name / typo)")
        lines.append(f"    deliberate variants: {variants}")
    return lines


# --------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--region-dir", type=Path, default=REPO_ROOT / "data/regions/shanghai")
    ap.add_argument("--scenarios-dir", type=Path, default=REPO_ROOT / "data/scenarios")
    ap.add_argument("--strict", action="store_true", help="treat warnings as errors")
    args = ap.parse_args(argv)

    rep = Report()
    region_path = args.region_dir / "region.json"
    places_path = args.region_dir / "places.csv"
    region: dict | None = None
    try:
        region = json.loads(region_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        rep.error(f"cannot read {region_path}: {exc}")
    rows = load_places(places_path, rep)
    check_places(rows, region, rep)
    cats, districts = coverage(rows, rep)
    if region is not None:
        check_region(region, rows, rep)
    scen_lines = check_scenarios(args.scenarios_dir, rows, (region or {}).get("name", "shanghai"), rep)

    print(f"Region pack: {args.region_dir}")
    print(f"  places: {len(rows)}   districts: {len(districts)}")
    print("  per category: " + ", ".join(f"{k}={v}" for k, v in sorted(cats.items())))
    for label, (group, minimum) in MINIMUMS.items():
        n = sum(cats[c] for c in group)
        print(f"    {label:<24} {n:>4}  (min {minimum}) {'OK' if n >= minimum else 'FAIL'}")
    print("  per district: " + ", ".join(f"{k}={v}" for k, v in districts.most_common()))
    if region:
        print(f"  bbox: {region.get('bbox')}  center: {region.get('center')}")
    print("Scenarios:")
    for line in scen_lines:
        print(line)
    for w in rep.warnings:
        print(f"WARNING: {w}")
    for e in rep.errors:
        print(f"ERROR: {e}")
    failed = bool(rep.errors) or (args.strict and bool(rep.warnings))
    print(f"\nRESULT: {'FAIL' if failed else 'PASS'} "
          f"({len(rep.errors)} errors, {len(rep.warnings)} warnings)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
