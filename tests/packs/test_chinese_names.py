"""The curated Chinese names of a pack (data/names/helsinki_zh.csv, core/packs/names.py): the table's name becomes
the place's Chinese name, OSM's stays an alias, and a curated name another place carried is taken off it."""

from __future__ import annotations

import csv

import pytest

from core.errors import InputError
from core.packs.build import build_pack
from core.packs.names import ChineseName, apply_chinese_names, read_names
from tests.support.paths import ROOT

PBF = ROOT / ".omni" / "extracts" / "Helsinki.osm.pbf"
TABLE = ROOT / "data" / "names" / "helsinki_zh.csv"


def place(pid: str, name_zh: str, name_en: str, aliases: str) -> dict[str, str]:
    return {"id": pid, "name_zh": name_zh, "name_en": name_en, "aliases": aliases}


def test_the_first_row_names_the_place_later_rows_and_osm_s_name_are_aliases():
    rows = [
        place("x-w7", "蓝桥座堂", "Blue Bridge Church", "Sininen kirkko|藍橋座堂"),
        place("x-n9", "蓝桥大教堂", "Statue of a Poet", "Runoilija"),  # OSM's name:zh on the wrong object
        place("x-n3", "Kahvila", "", ""),
    ]
    names = [
        ChineseName(osm_id="w7", name_zh="蓝桥主教座堂", source="https://zh.wikipedia.org/wiki/A"),
        ChineseName(osm_id="w7", name_zh="蓝桥大教堂", source="https://example.org/b"),
        ChineseName(osm_id="r404", name_zh="不存在的地方", source="https://zh.wikipedia.org/wiki/C"),
    ]
    applied = apply_chinese_names(rows, names, prefix="x-")
    church, statue, cafe = rows
    assert church["name_zh"] == "蓝桥主教座堂"
    assert church["aliases"].split("|") == ["蓝桥大教堂", "蓝桥座堂", "Sininen kirkko", "藍橋座堂"]
    assert statue["name_zh"] == "Runoilija" and "蓝桥大教堂" not in statue["aliases"]  # its local name again
    assert cafe == place("x-n3", "Kahvila", "", "")
    assert (applied.named, applied.taken_from_others, applied.missing) == (1, 1, ["r404"])


def test_a_row_without_a_source_url_is_refused_with_its_line(tmp_path):
    table = tmp_path / "names.csv"
    table.write_text("osm_id,name_zh,source\nw1,甲,https://zh.wikipedia.org/wiki/甲\nw2,乙,a book\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_names(table)
    assert "line 3" in info.value.message


def test_every_row_of_the_helsinki_table_has_a_source_and_names_one_place_once():
    names = read_names(TABLE)
    assert len({n.name_zh for n in names}) == len(names)
    assert all(n.source.startswith("https://") for n in names)


def test_the_helsinki_build_puts_the_cathedral_s_names_on_the_cathedral(tmp_path):
    assert PBF.is_file(), "make install (scripts/build_packs.py) keeps the extract here"
    report = build_pack(PBF, name="hki-names", data_dir=tmp_path, tiles=False, names_zh=TABLE)
    with (tmp_path / "regions" / "hki-names" / "places.csv").open(encoding="utf-8") as fh:
        by_id = {r["id"]: r for r in csv.DictReader(fh)}
    cathedral, statue = by_id["hki-w419479428"], by_id["hki-n1375995138"]
    assert cathedral["name_zh"] == "赫尔辛基主教座堂"
    assert {"赫尔辛基大教堂", "赫尔辛基座堂", "Helsingin tuomiokirkko"} <= set(cathedral["aliases"].split("|"))
    assert statue["name_zh"] == "Aleksanteri II" and "赫尔辛基大教堂" not in statue["aliases"]
    assert by_id["hki-w122595207"]["name_zh"] == "芬兰国家剧院"
    assert "Suomen Kansallisteatteri" in by_id["hki-w122595207"]["aliases"].split("|")
    assert report.chinese_names is not None
    assert (report.chinese_names.named, report.chinese_names.taken_from_others) == (5, 1)
    assert report.chinese_names.missing == []
