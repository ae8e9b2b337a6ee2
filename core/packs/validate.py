"""``python -m core pack validate NAME``: the data-quality check of a region pack and its demo scenarios.

It reads the pack with the app's own loader (core/packs/loader.py), so a pack that validates is a pack that
loads, and it resolves every scenario place with the app's own resolver (core/route/resolver.py over the
offline gazetteer), so "resolves" means what the planner will do; names, addresses and aliases of different
places are compared with the resolver's normalisation (core/geo/text.py). Rules that belong to one pack (its id
prefix, districts, extent, coverage minimums) are data: the optional ``validation`` section of region.json.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from core.config import Settings
from core.errors import OmniError
from core.geo.coords import haversine_m
from core.geo.text import normalize
from core.models.region import PackRules, RegionPack
from core.packs.entrances import ENTRANCES_FILE
from core.packs.loader import load_region
from core.packs.queues import QUEUES_FILE, check_queue_table, load_queues

if TYPE_CHECKING:
    from core.models.route import ResolvedPoint

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
    "cuisine",
    "min_age",
    "importance",
    "approximate",
    "parent",
]
#: trailing columns a pack may leave out (older packs, packs written before they existed), the last ones first:
#: the loader reads them as unknown (importance 0, an exact location)
OPTIONAL_COLUMNS = ("cuisine", "min_age", "importance", "approximate", "parent")
CATEGORIES = {
    "landmark",
    "museum",
    "park",
    "family",
    "restaurant",
    "cafe",
    "shopping",
    "station",
    "airport",
    "hotel",
    "address",
    "temple",
    "theatre",
    "market",
    "stop",  # a public-transport stop (tram, bus, metro, rail): one per name and mode near each other
    "district",  # a part of a city, at the point its map source gives as its centre (OSM place=suburb, …)
}
TAGS = {
    "kid_friendly",
    "indoor",
    "outdoor",
    "free",
    "photo_spot",
    "night_view",
    "historic",
    "art",
    "science",
    "nature",
    "food",
    "budget",
    "premium",
    "shopping",
    "transport",
    "accessible",
    "rainy_day_ok",
    "quiet",
    "local_favourite",
    # diet: what a restaurant can serve or what a guest may want to avoid (data/README.md)
    "halal",
    "vegetarian_friendly",
    "vegan_options",
    "light_options",
    "spicy",
    "alcohol",
}
#: what a curated pack's ``cuisine`` column may say (lowercase codes; several are separated by '|')
CUISINES = {
    "shanghainese",
    "cantonese",
    "huaiyang",
    "sichuan",
    "yunnan",
    "hunan",
    "beijing",
    "dim_sum",
    "noodles",
    "dumplings",
    "snacks",
    "seafood",
    "hotpot",
    "vegetarian",
    "western",
    "french",
    "italian",
    "japanese",
    "bakery",
    "dessert",
    "coffee",
    "tea",
    "bar",
}
#: packs built from OpenStreetMap keep the ``cuisine`` tag's own values, written as such codes
CUISINE_CODE = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")
MAX_MIN_AGE = 99
ESTIMATE_LIMITS = {
    "driving": ((1.2, 1.6), (10.0, 60.0)),
    "walking": ((1.1, 1.5), (3.0, 6.0)),
    "cycling": ((1.1, 1.5), (8.0, 25.0)),
}
OPTIONAL_MODES = {"cycling"}  # a pack without it plans no cycling, and says so
NEAR_DUPLICATE_M = 15
#: the resolver's own figures (core/route/resolver.py FAR_APART_M, ARRIVAL_M), repeated so the pack checks stay below
#: the route planner; tests/packs/test_arrival_points.py holds them equal
PARTS_FAR_APART_M = 1000.0
ARRIVAL_POINT_M = 50.0


@dataclass
class Report:
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def error(self, msg: str) -> None:
        self.errors.append(msg)

    def warn(self, msg: str) -> None:
        self.warnings.append(msg)

    def failed(self, *, strict: bool) -> bool:
        return bool(self.errors) or (strict and bool(self.warnings))


def _raw_rows(path: Path, rep: Report) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        header = list(reader.fieldnames or [])
        required = len(COLUMNS) - len(OPTIONAL_COLUMNS)
        if header not in [COLUMNS[:n] for n in range(required, len(COLUMNS) + 1)]:
            missing = [c for c in COLUMNS if c not in header]
            extra = [c for c in header if c not in COLUMNS]
            rep.error(
                f"places.csv columns mismatch: missing={missing} extra={extra} "
                f"(order must be exactly {','.join(COLUMNS)}; the last ones may be left out, from the end)"
            )
        return list(reader)


def _check_row_format(i: int, r: dict[str, str], rules: PackRules, rep: Report) -> None:
    """What the loader accepts but the pack's conventions forbid (text formats, vocabularies, empties)."""
    rid = r.get("id", "")
    where = f"line {i} ({rid or '?'})"
    if rules.id_prefix and not re.fullmatch(re.escape(rules.id_prefix) + r"[a-z0-9]+(?:-[a-z0-9]+)*", rid):
        rep.error(f"{where}: id must be a lowercase ascii slug starting with {rules.id_prefix!r}")
    if not rules.curated:  # built from OpenStreetMap: what is tagged is there, nothing else is required
        _check_vocabulary(where, r, rep, curated=False)
        return
    if not (r.get("name_en") or "").strip():
        rep.error(f"{where}: empty name_en")
    district, address = r.get("district", ""), r.get("address", "")
    if rules.districts and district not in rules.districts:
        rep.error(f"{where}: unknown district {district!r}")
    for prefix in rules.address_forbidden_prefixes:
        if address.startswith(prefix):
            rep.error(f"{where}: address must not carry the {prefix} prefix: {address!r}")
    if rules.address_starts_with_district and district and not address.startswith(district):
        rep.error(f"{where}: address {address!r} should start with its district {district!r}")
    cat = r.get("category", "")
    tags = _check_vocabulary(where, r, rep, curated=True)
    if cat != "address" and not tags:
        rep.warn(f"{where}: no tags")
    for key in ("lon", "lat"):
        if rules.coordinate_decimals and not re.fullmatch(rf"-?\d+\.\d{{{rules.coordinate_decimals}}}", r.get(key, "")):
            rep.error(f"{where}: {key} must have exactly {rules.coordinate_decimals} decimals: {r.get(key)!r}")
    oh = r.get("opening_hours", "")
    if cat == "address" and oh:
        rep.error(f"{where}: address rows must have empty opening_hours")
    elif cat != "address" and not oh:
        rep.error(f"{where}: opening_hours empty for non-address row")
    price = r.get("price_per_person", "")
    if price != "" and not re.fullmatch(r"\d+", price):
        rep.error(f"{where}: price_per_person must be a non-negative integer or empty: {price!r}")
    if price == "" and cat not in {"address", "station", "stop", "airport", "district"}:
        rep.error(f"{where}: price_per_person empty")
    if "free" in tags and price not in ("", "0"):
        rep.error(f"{where}: tagged free but price_per_person={price}")
    rating = r.get("rating", "")
    if rating == "" and cat != "address":
        rep.error(f"{where}: rating empty for non-address row")
    elif rating and (not re.fullmatch(r"\d\.\d", rating) or not 0.0 <= float(rating) <= 5.0):
        rep.error(f"{where}: rating must be 0-5 with one decimal: {rating!r}")
    if not re.fullmatch(r"\d+", r.get("visit_minutes") or ""):
        rep.error(f"{where}: visit_minutes must be an integer: {r.get('visit_minutes')!r}")
    if r.get("needs_reservation") not in ("true", "false"):
        rep.error(f"{where}: needs_reservation must be true/false")
    if "cuisine" in r and cat in {"restaurant", "cafe"} and not (r.get("cuisine") or "").strip():
        rep.warn(f"{where}: no cuisine for a {cat}")


def _check_vocabulary(where: str, r: dict[str, str], rep: Report, *, curated: bool) -> list[str]:
    """Category, tags, cuisine and min_age: a curated pack's cuisines come from CUISINES, an OSM pack's as tagged."""
    cat = r.get("category", "")
    if cat not in CATEGORIES:
        rep.error(f"{where}: unknown category {cat!r}")
    tags = [t for t in (r.get("tags") or "").split("|") if t]
    for t in tags:
        if t not in TAGS:
            rep.error(f"{where}: unknown tag {t!r}")
    if len(set(tags)) != len(tags):
        rep.error(f"{where}: duplicate tags")
    cuisine = [c for c in (r.get("cuisine") or "").split("|") if c]
    for c in cuisine:
        if curated and c not in CUISINES:
            rep.error(f"{where}: unknown cuisine {c!r} (one of {', '.join(sorted(CUISINES))})")
        elif not CUISINE_CODE.fullmatch(c):
            rep.error(f"{where}: cuisine {c!r} must be a lowercase code (letters, digits, '_')")
    if len(set(cuisine)) != len(cuisine):
        rep.error(f"{where}: duplicate cuisine")
    importance = (r.get("importance") or "").strip()
    if importance and not (re.fullmatch(r"\d+", importance) and int(importance) <= 100):
        rep.error(f"{where}: importance must be a whole number 0-100 or empty: {importance!r}")
    if (r.get("approximate") or "") not in ("", "true", "false"):
        rep.error(f"{where}: approximate must be true/false or empty")
    age = (r.get("min_age") or "").strip()
    if age and not (re.fullmatch(r"\d+", age) and int(age) <= MAX_MIN_AGE):
        rep.error(f"{where}: min_age must be whole years 0-{MAX_MIN_AGE} or empty: {age!r}")
    return tags


def check_places(pack: RegionPack, raw: list[dict[str, str]], rep: Report) -> None:
    from opening_hours import OpeningHours

    rules = pack.validation or PackRules()
    for i, r in enumerate(raw, start=2):  # line numbers (the header is line 1)
        _check_row_format(i, r, rules, rep)
    seen: dict[str, dict[str, str]] = {"id": {}, "name_zh": {}, "address": {}}
    label_owner: dict[str, str] = {}
    shared = Counter[str]()  # OSM packs: names and addresses several places share (the resolver asks which)
    west, south, east, north = rules.extent or pack.bbox
    for p in pack.places:
        for key in ("id", "name_zh", "address"):
            # names and addresses compare as the resolver reads them (core/geo/text.py): two that differ only in
            # width, case, spaces or punctuation are one lookup key, so one of the places could never be found
            k = p.id.strip().casefold() if key == "id" else normalize(str(getattr(p, key)))
            if not k:
                if rules.curated or key != "address":
                    rep.error(f"{p.id}: empty {key}")
            elif k in seen[key]:
                if rules.curated or key == "id":
                    rep.error(f"{p.id}: duplicate {key} {getattr(p, key)!r} (also {seen[key][k]})")
                else:
                    shared[key] += 1
            else:
                seen[key][k] = p.id
        if not (west <= p.lon <= east and south <= p.lat <= north):
            rep.error(f"{p.id}: coordinate ({p.lon}, {p.lat}) outside {pack.name}")
        lon0, lat0, lon1, lat1 = pack.bbox
        if not (lon0 <= p.lon <= lon1 and lat0 <= p.lat <= lat1):
            rep.error(f"{p.id}: coordinate ({p.lon}, {p.lat}) outside region bbox {list(pack.bbox)}")
        if p.opening_hours:
            try:
                OpeningHours(p.opening_hours)
            except Exception as exc:  # ParserError and friends
                rep.error(f"{p.id}: opening_hours {p.opening_hours!r} does not parse: {exc}")
        if len({a.casefold() for a in p.aliases}) != len(p.aliases):
            rep.error(f"{p.id}: duplicate alias within row")
        own = {p.name_zh.casefold(), p.name_en.casefold()}
        for label in [p.name_zh, p.name_en, *p.aliases]:
            k = normalize(label)  # one lookup key for the resolver: two places on one key make it ambiguous
            if not k:
                continue
            owner = label_owner.setdefault(k, p.id)
            if owner != p.id:
                if rules.curated:
                    rep.error(f"{p.id}: name/alias {label!r} collides with {owner}")
                else:
                    shared["name"] += 1
        for alias in p.aliases:
            if alias.casefold() in own:
                rep.warn(f"{p.id}: alias {alias!r} repeats the row's own name")
    check_parts(pack, rep)
    for key, n in sorted(shared.items()):
        rep.warn(f"{n} place(s) share a {key} with another (OpenStreetMap data: the resolver offers the choice)")
    if not rules.curated:
        return
    places = pack.places
    for i, a in enumerate(places):
        for b in places[i + 1 :]:
            if a.parent != b.id and b.parent != a.id and haversine_m(a.lon, a.lat, b.lon, b.lat) < NEAR_DUPLICATE_M:
                rep.warn(f"{a.id} and {b.id} are less than {NEAR_DUPLICATE_M} m apart")


def check_parts(pack: RegionPack, rep: Report) -> None:
    """The ``parent`` column: a part names a whole in the pack, of its own kind, that is not itself a part; a whole's
    point is approximate (it comes from its parts) and lies among them, no farther from a part than the parts are
    from each other (the resolver routes to it when the parts are close). A whole whose parts lie farther apart
    than ``PARTS_FAR_APART_M`` (terminals across the runways) has its point at one of them, its arrival point:
    the point between them is the airfield, where no route can end."""
    by_id = {p.id: p for p in pack.places}
    for whole_id, part_ids in pack.parts_of().items():
        whole = by_id.get(whole_id)
        if whole is None:
            rep.error(f"{', '.join(part_ids)}: parent {whole_id!r} is not a place of the pack")
            continue
        if whole_id in part_ids:
            rep.error(f"{whole_id}: is its own parent")
            continue
        if whole.parent:
            rep.error(f"{whole_id}: a whole place is itself a part of {whole.parent!r} (one level only)")
        parts = [by_id[i] for i in part_ids]
        for part in parts:
            if part.category != whole.category:
                rep.error(f"{part.id}: category {part.category!r} differs from its parent's {whole.category!r}")
        if not whole.approximate:
            rep.warn(f"{whole_id}: a whole place's point comes from its parts: mark it approximate")
        spread = max((haversine_m(a.lon, a.lat, b.lon, b.lat) for a in parts for b in parts), default=0.0)
        reach = max(haversine_m(whole.lon, whole.lat, p.lon, p.lat) for p in parts)
        if reach > max(spread, pack.coordinate_precision_m):
            rep.error(f"{whole_id}: its point is {reach:.0f} m from a part, farther than its parts are apart")
        nearest = min(haversine_m(whole.lon, whole.lat, p.lon, p.lat) for p in parts)
        if spread > PARTS_FAR_APART_M and nearest > ARRIVAL_POINT_M:
            rep.error(
                f"{whole_id}: its parts are {spread:.0f} m apart and its point is {nearest:.0f} m from the nearest:"
                f" put it at its arrival part's point (within {ARRIVAL_POINT_M:.0f} m)"
            )


#: a door this far from its place's point is not on that place's outline (the Central Railway Station's farthest
#: door is 131 m from its point)
DOOR_REACH_M = 500.0


def check_entrances(pack: RegionPack, path: Path, rep: Report) -> None:
    """``entrances.csv`` (when the pack has one): every door belongs to a place of the pack, once, near its point."""
    if not path.is_file():
        return
    by_id = {p.id: p for p in pack.places}
    seen: set[tuple[str, str]] = set()
    with path.open(encoding="utf-8", newline="") as fh:
        for line, row in enumerate(csv.DictReader(fh), start=2):
            place = by_id.get(row.get("place_id") or "")
            key = (row.get("place_id") or "", row.get("osm_id") or "")
            if place is None:
                rep.error(f"{ENTRANCES_FILE} line {line}: place {key[0]!r} is not a place of the pack")
            elif key in seen:
                rep.error(f"{ENTRANCES_FILE} line {line}: {key[1]} is listed twice for {key[0]}")
            else:
                gap = haversine_m(place.lon, place.lat, float(row["lon"]), float(row["lat"]))
                if gap > DOOR_REACH_M:
                    rep.error(f"{ENTRANCES_FILE} line {line}: {key[1]} is {gap:.0f} m from {key[0]}'s point")
            seen.add(key)


def check_coverage(pack: RegionPack, rep: Report) -> tuple[Counter[str], Counter[str]]:
    rules = pack.validation or PackRules()
    cats = Counter(p.category for p in pack.places)
    districts = Counter(p.district for p in pack.places)
    for label, minimum in rules.minimums.items():
        n = sum(cats[c] for c in label.split("+"))
        if n < minimum:
            rep.error(f"coverage: {label} has {n} rows, minimum {minimum}")
    if len(pack.places) < rules.min_total:
        rep.error(f"coverage: {len(pack.places)} places, minimum {rules.min_total}")
    if len(districts) < rules.min_districts:
        rep.error(f"coverage: {len(districts)} districts, minimum {rules.min_districts}")
    return cats, districts


def check_queues(pack: RegionPack, rep: Report) -> None:
    """``queues.json``, when the pack has one: it reads, and what it names exists (core/packs/queues.py)."""
    try:
        table = load_queues(pack)
    except OmniError as exc:
        rep.error(exc.message)
        return
    if table is None:
        rep.lines.append(f"  no {QUEUES_FILE}: no queue estimates")
        return
    errors, warnings = check_queue_table(table, pack, CATEGORIES)
    for msg in errors:
        rep.error(msg)
    for msg in warnings:
        rep.warn(msg)
    rep.lines.append(
        f"  {QUEUES_FILE}: {len(table.profiles)} profiles, {len(table.by_category)} categories, "
        f"{len(table.by_place)} places"
    )


def check_region(pack: RegionPack, rep: Report) -> None:
    if pack.crs != "WGS84":
        rep.error("region.json: crs must be 'WGS84'")
    west, south, east, north = pack.bbox
    if not (west < east and south < north):
        rep.error(f"region.json: bad bbox {list(pack.bbox)}")
        return
    if not (west <= pack.center[0] <= east and south <= pack.center[1] <= north):
        rep.error(f"region.json: center {list(pack.center)} not inside bbox")
    if pack.places:
        tight = [
            min(p.lon for p in pack.places),
            min(p.lat for p in pack.places),
            max(p.lon for p in pack.places),
            max(p.lat for p in pack.places),
        ]
        margins = [tight[0] - west, tight[1] - south, east - tight[2], north - tight[3]]
        if min(margins) < 0:
            rep.error(f"region.json: bbox {list(pack.bbox)} does not contain all places {tight}")
        elif max(margins) > 0.5:
            rep.warn(f"region.json: bbox margin unusually large {margins}")
    for mode, ((c_lo, c_hi), (s_lo, s_hi)) in ESTIMATE_LIMITS.items():
        p = pack.estimate.get(mode)
        if p is None:
            if mode in OPTIONAL_MODES:
                rep.lines.append(f"  no estimate.{mode}: {mode} cannot be planned offline")
            else:
                rep.error(f"region.json: estimate.{mode} missing")
            continue
        if not c_lo <= p.circuity <= c_hi:
            rep.error(f"region.json: estimate.{mode}.circuity out of range [{c_lo},{c_hi}]")
        if not s_lo <= p.speed_kmh <= s_hi:
            rep.error(f"region.json: estimate.{mode}.speed_kmh out of range [{s_lo},{s_hi}]")


def _resolution_kind(point: ResolvedPoint) -> str:
    """exact (name or address), alias (alias / English name) or fuzzy, as the resolver reports it."""
    if point.source == "geo":
        note = point.confidence_note or ""
        return "exact" if (" on name " in note or " on address " in note) else "alias"
    return "fuzzy"


def check_scenarios(pack: RegionPack, settings: Settings, rep: Report) -> None:
    from core.geo.offline import OfflineProvider
    from core.models.route import RawStop
    from core.route.resolver import resolve_point
    from core.route.scenarios import list_scenarios

    provider = OfflineProvider(pack)
    try:
        scenarios = list_scenarios(pack.name, data_dir=settings.data_dir)
    except ValidationError as exc:
        rep.error(f"scenarios: a file does not validate: {exc.errors()[0].get('msg')}")
        return
    if not scenarios:
        rep.warn(f"no demo scenarios for region {pack.name}")
    for sc in scenarios:
        req = sc.request
        tag = f"scenario {sc.id}"
        if not (sc.title.get("zh") and sc.title.get("en")):
            rep.error(f"{tag}: title needs zh and en")
        endpoints: list[tuple[str, RawStop]] = []
        if (origin := req.origin_stop()) is not None:
            endpoints.append(("origin", origin))
        endpoints += [(f"stop{n}", s) for n, s in enumerate(req.stops, 1)]
        endpoints.append(("destination", req.destination_stop()))
        rep.lines.append(
            f"  {sc.id}: {req.transport_mode}/{req.route_strategy}, origin_mode={req.origin_mode}, "
            f"{len(req.stops)} stops"
        )
        variants, ids = 0, []
        for role, raw in endpoints:
            # each field the scenario gives (name, address) on its own, as the resolver would take it
            found: list[tuple[str, str, str | None, str]] = []
            for what, text in (("name", raw.name), ("address", raw.address)):
                if not text or (what == "address" and text == raw.name):
                    continue
                try:
                    res = resolve_point(
                        RawStop(address=text, city=raw.city),
                        role="stop",
                        provider=provider,
                        settings=settings,
                        default_city=pack.city,
                    )
                except OmniError as exc:
                    rep.error(f"{tag}: {role} {what} {text!r} does not resolve: {exc.message}")
                    continue
                found.append((what, text, res.point.poi_id, _resolution_kind(res.point)))
            pids = {pid for _, _, pid, _ in found}
            if len(pids) > 1:
                rep.error(f"{tag}: {role} name and address resolve to different places {sorted(map(str, pids))}")
            if not found:
                continue
            variants += sum(kind != "exact" for *_, kind in found)
            ids.append(found[0][2])
            desc = "; ".join(
                f"{what}={kind}" + ("" if kind == "exact" else f" {text!r}") for what, text, _, kind in found
            )
            rep.lines.append(f"    {role:<11} -> {found[0][2] or '?':<34} {desc}")
        repeated = [k for k, v in Counter(ids).items() if v > 1]
        if repeated and not (req.round_trip and repeated == [ids[0]] and ids[0] == ids[-1]):
            rep.error(f"{tag}: the same place appears more than once: {repeated}")
        if variants == 0:
            rep.error(f"{tag}: contains no deliberate variant input (alias / English name / typo)")
        rep.lines.append(f"    deliberate variants: {variants}")


def validate_pack(name: str, *, settings: Settings) -> tuple[Report, RegionPack | None]:
    rep = Report()
    try:
        pack = load_region(name, settings.data_dir)
    except (OmniError, ValidationError, OSError, ValueError) as exc:
        rep.error(f"the pack does not load: {getattr(exc, 'message', None) or exc}")
        return rep, None
    places_csv = settings.region_dir(name) / "places.csv"
    raw = _raw_rows(places_csv, rep) if places_csv.is_file() else []
    check_places(pack, raw, rep)
    check_entrances(pack, settings.region_dir(name) / ENTRANCES_FILE, rep)
    check_coverage(pack, rep)
    check_region(pack, rep)
    check_queues(pack, rep)
    check_scenarios(pack, settings, rep)
    return rep, pack


def format_report(rep: Report, pack: RegionPack | None, *, strict: bool) -> str:
    out: list[str] = []
    if pack is not None:
        cats = Counter(p.category for p in pack.places)
        districts = Counter(p.district for p in pack.places)
        out.append(f"Region pack: {pack.name}")
        out.append(f"  places: {len(pack.places)}   districts: {len(districts)}")
        out.append("  per category: " + ", ".join(f"{k}={v}" for k, v in sorted(cats.items())))
        for label, minimum in (pack.validation or PackRules()).minimums.items():
            n = sum(cats[c] for c in label.split("+"))
            out.append(f"    {label:<24} {n:>4}  (min {minimum}) {'OK' if n >= minimum else 'FAIL'}")
        out.append(f"  bbox: {list(pack.bbox)}  center: {list(pack.center)}")
    out.append("Scenarios:")
    out += rep.lines
    out += [f"WARNING: {w}" for w in rep.warnings]
    out += [f"ERROR: {e}" for e in rep.errors]
    verdict = "FAIL" if rep.failed(strict=strict) else "PASS"
    out.append(f"\nRESULT: {verdict} ({len(rep.errors)} errors, {len(rep.warnings)} warnings)")
    return "\n".join(out)
