"""``python -m core pack validate NAME`` on a tiny pack written here: it reads the pack with the app's loader,
compares labels the way the resolver does (core/geo/text.py) and resolves scenarios with the real resolver."""

from __future__ import annotations

import csv
import json

import pytest

from core.__main__ import main
from core.config import get_settings
from core.packs.validate import COLUMNS
from tests.support.region_packs import write_region

REGION = {
    "name": "tiny",
    "display_name": {"zh": "上海", "en": "Shanghai"},
    "city": "上海",
    "city_aliases": ["上海市"],
    "timezone": "Asia/Shanghai",
    "bbox": [121.3, 31.1, 121.6, 31.3],
    "center": [121.47, 31.23],
    "estimate": {
        "driving": {"circuity": 1.35, "speed_kmh": 28, "fixed_overhead_s": 120},
        "walking": {"circuity": 1.25, "speed_kmh": 4.8, "fixed_overhead_s": 0},
    },
}


def _row(pid, zh, en, aliases, address, lon, lat, category="landmark"):
    return [pid, zh, en, aliases, address, "黄浦区", lon, lat, category, "historic", "24/7", "0", "4.5", "60", "false"]


ROWS = [
    _row("t-square", "人民广场", "People's Square", "", "黄浦区人民大道120号", "121.47370", "31.23040"),
    _row("t-bund", "外滩", "The Bund", "Bund", "黄浦区中山东一路", "121.49030", "31.24000"),
    _row("t-yuyuan", "豫园", "Yu Garden", "Yuyuan Garden", "黄浦区安仁街218号", "121.49210", "31.22720"),
    _row("t-museum", "上海博物馆", "Shanghai Museum", "上博", "黄浦区人民大道201号", "121.47550", "31.22830", "museum"),
]
SCENARIO = {
    "id": "tiny-walk",
    "title": {"zh": "小走", "en": "A short walk"},
    "region": "tiny",
    "request": {
        "origin_mode": "fixed",
        "origin_address": "人民广场",
        "destination_address": "外滩",
        "stops": [{"name": "Yuyuan Garden", "address": "黄浦区安仁街218号"}, {"address": "上海博物馆"}],
        "transport_mode": "walking",
    },
}


@pytest.fixture()
def data_dir(tmp_path, monkeypatch):
    """A data folder with the tiny pack and one scenario; the CLI reads it through OMNI_DATA_DIR."""
    monkeypatch.setenv("OMNI_DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "tiny-walk.json").write_text(json.dumps(SCENARIO, ensure_ascii=False), encoding="utf-8")
    yield tmp_path
    get_settings.cache_clear()


def test_a_clean_pack_passes_strict(data_dir, capsys):
    write_region(data_dir, REGION, ROWS)
    assert main(["pack", "validate", "tiny", "--strict"]) == 0
    out = capsys.readouterr().out
    assert "Region pack: tiny" in out and "places: 4" in out
    assert "stop1       -> t-yuyuan" in out and "name=alias 'Yuyuan Garden'" in out
    assert out.rstrip().endswith("RESULT: PASS (0 errors, 0 warnings)")


def test_labels_that_the_resolver_reads_as_one_collide(data_dir, capsys):
    # "Peoples Square" and "People's Square" differ only in punctuation: one lookup key for the resolver
    rows = [
        *ROWS,
        _row("t-other", "人民公园", "People's Park", "Peoples Square", "黄浦区南京西路231号", "121.47020", "31.23300"),
    ]
    write_region(data_dir, REGION, rows)
    assert main(["pack", "validate", "tiny"]) == 1
    out = capsys.readouterr().out
    assert "ERROR: t-other: name/alias 'Peoples Square' collides with t-square" in out
    assert "RESULT: FAIL" in out


def test_warnings_fail_only_when_strict(data_dir, capsys):
    write_region(data_dir, REGION, ROWS)
    (data_dir / "scenarios" / "tiny-walk.json").unlink()
    assert main(["pack", "validate", "tiny"]) == 0
    assert "WARNING: no demo scenarios for region tiny" in capsys.readouterr().out
    assert main(["pack", "validate", "tiny", "--strict"]) == 1


def test_an_unknown_pack_is_reported_not_raised(data_dir, capsys):
    assert main(["pack", "validate", "nowhere"]) == 1
    assert "ERROR: the pack does not load: unknown region 'nowhere'" in capsys.readouterr().out


def _with_parts(data_dir, whole_lonlat, *, parent="t-airport", approximate="true", t2_lat="31.20800"):
    """The tiny pack plus an airport (a whole) and its two terminals, written with every column."""

    def row(base, *, approx="", of=""):
        return [*base, "", "", "", approx, of]

    lon, lat = whole_lonlat
    airport = _row("t-airport", "机场", "Airport", "", "黄浦区机场路", lon, lat, "airport")
    t1 = _row("t-t1", "机场T1航站楼", "Airport T1", "", "黄浦区机场路1号", "121.40000", "31.20000", "airport")
    t2 = _row("t-t2", "机场T2航站楼", "Airport T2", "", "黄浦区机场路2号", "121.40000", t2_lat, "airport")
    rows = [row(r) for r in ROWS] + [row(airport, approx=approximate), row(t1, of=parent), row(t2, of=parent)]
    write_region(data_dir, REGION, [])
    with (data_dir / "regions" / "tiny" / "places.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        writer.writerows(rows)


def test_a_whole_between_its_parts_passes(data_dir, capsys):
    _with_parts(data_dir, ("121.40000", "31.20400"))  # halfway between the terminals, 890 m apart
    assert main(["pack", "validate", "tiny", "--strict"]) == 0, capsys.readouterr().out


def test_a_whole_away_from_its_parts_is_an_error(data_dir, capsys):
    _with_parts(data_dir, ("121.45000", "31.20400"))  # 4.8 km east of both terminals
    assert main(["pack", "validate", "tiny"]) == 1
    assert "ERROR: t-airport: its point is 4776 m from a part, farther than its parts are apart" in (
        capsys.readouterr().out
    )


def test_a_part_of_a_whole_the_pack_lacks_is_an_error(data_dir, capsys):
    _with_parts(data_dir, ("121.40000", "31.20400"), parent="t-nowhere")
    assert main(["pack", "validate", "tiny"]) == 1
    assert "ERROR: t-t1, t-t2: parent 't-nowhere' is not a place of the pack" in capsys.readouterr().out


def test_a_whole_not_marked_approximate_is_a_warning(data_dir, capsys):
    _with_parts(data_dir, ("121.40000", "31.20400"), approximate="false")
    assert main(["pack", "validate", "tiny", "--strict"]) == 1
    assert "WARNING: t-airport: a whole place's point comes from its parts: mark it approximate" in (
        capsys.readouterr().out
    )


def test_a_whole_between_far_apart_parts_is_an_error_naming_its_arrival_rule(data_dir, capsys):
    # terminals 1.78 km apart (across a runway): the point halfway is the airfield, where no route can end
    _with_parts(data_dir, ("121.40000", "31.20800"), t2_lat="31.21600")
    assert main(["pack", "validate", "tiny"]) == 1
    assert (
        "ERROR: t-airport: its parts are 1779 m apart and its point is 890 m from the nearest: put it at its arrival"
        " part's point (within 50 m)"
    ) in capsys.readouterr().out


def test_a_whole_at_one_of_its_far_apart_parts_passes(data_dir, capsys):
    _with_parts(data_dir, ("121.40010", "31.21590"), t2_lat="31.21600")  # 14 m from T2's point
    assert main(["pack", "validate", "tiny", "--strict"]) == 0, capsys.readouterr().out
