"""What a half-day planner reads about a place beyond where it is: cuisine, minimum age, diet tags (places.csv) and
typical queues by day type and hour (queues.json, core/packs/queues.py), on a tiny pack written here and on the
bundled Shanghai pack."""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime

import pytest

from core.config import Settings
from core.errors import InputError
from core.models.region import RegionPlace
from core.packs.loader import load_region
from core.packs.queues import queue_estimate
from core.packs.validate import COLUMNS, CUISINES, validate_pack
from tests.support.paths import ROOT

REGION = {
    "name": "facts",
    "display_name": {"zh": "上海", "en": "Shanghai"},
    "city": "上海",
    "country": "CN",
    "timezone": "Asia/Shanghai",
    "bbox": [121.3, 31.1, 121.6, 31.3],
    "center": [121.47, 31.23],
    "estimate": {
        "driving": {"circuity": 1.35, "speed_kmh": 28, "fixed_overhead_s": 120},
        "walking": {"circuity": 1.25, "speed_kmh": 4.8, "fixed_overhead_s": 0},
    },
}


def _row(pid, zh, en, address, lon, lat, category, tags, cuisine="", min_age=""):
    return [pid, zh, en, "", address, "黄浦区", lon, lat, category, tags, "Mo-Su 09:00-23:00", "50", "4.5", "60",
            "false", cuisine, min_age]  # fmt: skip


ROWS = [
    _row("f-dumplings", "汤包馆", "Dumpling House", "黄浦区河南中路1号", "121.48000", "31.23000", "restaurant",
         "food|vegetarian_friendly|light_options", "shanghainese|dumplings"),
    _row("f-bar", "屋顶酒吧", "Rooftop Bar", "黄浦区中山东一路2号", "121.49000", "31.24000", "restaurant",
         "night_view|alcohol", "bar", "18"),
    _row("f-noodles", "面馆", "Noodle Shop", "黄浦区福州路3号", "121.48200", "31.23400", "restaurant",
         "food|spicy|vegan_options", "sichuan|noodles"),
    _row("f-museum", "博物馆", "Museum", "黄浦区人民大道4号", "121.47500", "31.22800", "museum", "indoor"),
    _row("f-hotel", "饭店", "Hotel", "黄浦区南京东路5号", "121.48600", "31.24100", "hotel", "premium"),
]  # fmt: skip
#: figures written here so the expectations below are the test's own input
QUEUES = {
    "source": "test figures",
    "profiles": {
        "quiet": {"weekday": {"0-23": 0}, "weekend": {"0-11": 0, "12-23": 5}},
        "meals": {
            "weekday": {"0-10": 0, "11-13": 20, "14-23": 5},
            "weekend": {"0-10": 5, "11-13": 60, "14-23": 15},
        },
    },
    "by_category": {"restaurant": "quiet", "museum": "quiet"},
    "by_place": {"f-dumplings": "meals"},
}
FRIDAY_NOON = datetime(2026, 11, 27, 12, 30)
SATURDAY_NOON = datetime(2026, 11, 28, 12, 30)
NATIONAL_DAY_NOON = datetime(2026, 10, 1, 12, 30)  # a Thursday and a public holiday in China


def write_pack(root, *, rows=ROWS, queues=QUEUES, region=REGION):
    folder = root / "regions" / region["name"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "region.json").write_text(json.dumps(region, ensure_ascii=False), encoding="utf-8")
    with (folder / "places.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        writer.writerows(rows)
    if queues is not None:
        (folder / "queues.json").write_text(json.dumps(queues, ensure_ascii=False), encoding="utf-8")
    return load_region(region["name"], root)


@pytest.fixture
def pack(tmp_path):
    return write_pack(tmp_path)


def test_the_loader_reads_cuisine_min_age_and_diet_tags(pack):
    dumplings, bar, noodles, museum = (pack.place_by_id(i) for i in ("f-dumplings", "f-bar", "f-noodles", "f-museum"))
    assert dumplings.cuisine == ["shanghainese", "dumplings"] and dumplings.min_age is None
    assert {"vegetarian_friendly", "light_options"} <= set(dumplings.tags)
    assert bar.cuisine == ["bar"] and bar.min_age == 18 and "alcohol" in bar.tags
    assert noodles.cuisine == ["sichuan", "noodles"] and {"spicy", "vegan_options"} <= set(noodles.tags)
    assert museum.cuisine == [] and museum.min_age is None  # blank: unknown


def test_suits_age_is_false_only_below_a_stated_minimum(pack):
    bar, museum = pack.place_by_id("f-bar"), pack.place_by_id("f-museum")
    assert not bar.suits_age(5) and not bar.suits_age(17)
    assert bar.suits_age(18) and bar.suits_age(40)
    assert museum.suits_age(0) and museum.suits_age(90)


def test_a_pack_without_the_new_columns_loads_them_as_unknown():
    place = RegionPlace.model_validate(
        {"id": "x", "name_zh": "某地", "address": "某路", "lon": "121.4", "lat": "31.2", "category": "park"}
    )
    assert place.cuisine == [] and place.min_age is None and place.suits_age(3)


def test_min_age_that_is_not_whole_years_does_not_load():
    with pytest.raises(ValueError):
        RegionPlace.model_validate(
            {"id": "x", "name_zh": "某地", "address": "某路", "lon": 121.4, "lat": 31.2, "category": "bar",
             "min_age": "eighteen"}
        )  # fmt: skip


def test_a_named_place_queues_longer_at_a_weekend_lunch_than_on_a_weekday(pack):
    weekday = queue_estimate(pack, "f-dumplings", FRIDAY_NOON)
    weekend = queue_estimate(pack, "f-dumplings", SATURDAY_NOON)
    assert (weekday.minutes, weekday.day_type, weekday.profile) == (20, "weekday", "meals")
    assert (weekend.minutes, weekend.day_type, weekend.profile) == (60, "weekend", "meals")
    assert weekday.source == weekend.source == "pack_estimate:queues.json"
    # bands include both ends: 13:59 is still lunch, 14:00 is not
    assert queue_estimate(pack, "f-dumplings", datetime(2026, 11, 28, 13, 59)).minutes == 60
    assert queue_estimate(pack, "f-dumplings", datetime(2026, 11, 28, 14, 0)).minutes == 15


def test_a_place_without_its_own_profile_takes_its_categorys(pack):
    weekday = queue_estimate(pack, "f-noodles", FRIDAY_NOON)
    weekend = queue_estimate(pack, "f-noodles", SATURDAY_NOON)
    assert (weekday.profile, weekday.minutes) == ("quiet", 0)
    assert (weekend.profile, weekend.minutes) == ("quiet", 5)
    assert queue_estimate(pack, "f-museum", SATURDAY_NOON).profile == "quiet"


def test_a_public_holiday_counts_as_a_weekend_day(pack):
    holiday = queue_estimate(pack, "f-dumplings", NATIONAL_DAY_NOON)
    assert holiday.day_type == "public_holiday" and holiday.minutes == 60
    assert queue_estimate(pack, "f-dumplings", datetime(2026, 10, 8, 12, 30)).day_type == "weekday"  # a Thursday


def test_an_aware_time_is_read_in_the_packs_timezone(pack):
    # 04:30 UTC is 12:30 in Shanghai on Saturday; 16:30 UTC on Friday is 00:30 on Saturday there
    assert queue_estimate(pack, "f-dumplings", datetime(2026, 11, 28, 4, 30, tzinfo=UTC)).minutes == 60
    late = queue_estimate(pack, "f-dumplings", datetime(2026, 11, 27, 16, 30, tzinfo=UTC))
    assert (late.day_type, late.minutes) == ("weekend", 5)


def test_no_estimate_for_an_unknown_place_an_uncovered_category_or_a_pack_without_queues(tmp_path, pack):
    assert queue_estimate(pack, "f-nowhere", SATURDAY_NOON) is None
    assert queue_estimate(pack, "f-hotel", SATURDAY_NOON) is None  # no profile for hotels: unknown, not zero
    bare = write_pack(tmp_path / "bare", queues=None)
    assert queue_estimate(bare, "f-dumplings", SATURDAY_NOON) is None


def test_a_queue_file_that_does_not_read_is_an_input_error(tmp_path):
    broken = write_pack(tmp_path, queues={"source": "x", "profiles": {"p": {"weekday": {"0-23": -5}}}})
    with pytest.raises(InputError) as err:
        queue_estimate(broken, "f-dumplings", SATURDAY_NOON)
    assert err.value.code == "PACK_INVALID" and "queues.json" in err.value.message


def _errors(root):
    report, _ = validate_pack("facts", settings=Settings(data_dir=root, region="facts"))
    return report


def test_the_validator_accepts_the_tiny_pack(tmp_path):
    write_pack(tmp_path)
    report = _errors(tmp_path)
    assert report.errors == []
    assert any("queues.json: 2 profiles" in line for line in report.lines)


def test_the_validator_refuses_a_cuisine_outside_the_vocabulary_and_a_bad_min_age(tmp_path):
    rows = [*ROWS[:3], _row("f-sushi", "寿司", "Sushi", "黄浦区九江路6号", "121.48300", "31.23600", "restaurant",
                            "food", "sushi|japanese", "12.5")]  # fmt: skip
    folder = tmp_path / "regions" / "facts"
    folder.mkdir(parents=True)
    (folder / "region.json").write_text(json.dumps(REGION, ensure_ascii=False), encoding="utf-8")
    with (folder / "places.csv").open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([COLUMNS, *rows])
    report = _errors(tmp_path)  # min_age 12.5 does not load: the loader's message is the error
    assert any("does not load" in e and "min_age" in e for e in report.errors), report.errors
    rows[-1][-1] = ""
    with (folder / "places.csv").open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([COLUMNS, *rows])
    load_region.cache_clear()
    errors = _errors(tmp_path).errors
    assert errors == ["line 5 (f-sushi): unknown cuisine 'sushi' (one of " + ", ".join(sorted(CUISINES)) + ")"]


def test_the_validator_refuses_a_profile_that_does_not_exist_and_hours_left_uncovered(tmp_path):
    queues = {
        **QUEUES,
        "profiles": {**QUEUES["profiles"], "gappy": {"weekday": {"0-10": 0, "12-23": 5}, "weekend": {"0-23": 1}}},
        "by_category": {**QUEUES["by_category"], "cafe": "gappy", "spaceship": "quiet"},
        "by_place": {**QUEUES["by_place"], "f-bar": "crowded", "f-gone": "meals"},
    }
    write_pack(tmp_path, queues=queues)
    errors = _errors(tmp_path).errors
    assert "queues.json: by_place 'f-bar' names profile 'crowded', which does not exist" in errors
    assert "queues.json: profile 'gappy' weekday does not cover hours [11]" in errors
    assert "queues.json: by_category names unknown category 'spaceship'" in errors
    assert "queues.json: by_place names 'f-gone', which is not in places.csv" in errors
    assert len(errors) == 4


def test_the_validator_refuses_overlapping_bands(tmp_path):
    queues = {**QUEUES, "profiles": {**QUEUES["profiles"], "quiet": {"weekday": {"0-12": 0, "12-23": 3},
                                                                      "weekend": {"0-23": 0}}}}  # fmt: skip
    write_pack(tmp_path, queues=queues)
    assert _errors(tmp_path).errors == ["queues.json: profile 'quiet' weekday hour 12 in '0-12' and '12-23'"]


# the bundled pack ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shanghai():
    return load_region("shanghai", ROOT / "data")


def test_every_restaurant_and_cafe_in_shanghai_has_a_cuisine_and_the_bars_an_age(shanghai):
    food = [p for p in shanghai.places if p.category in {"restaurant", "cafe"}]
    assert len(food) == 37 and all(p.cuisine for p in food)
    bars = {p.id: p for p in shanghai.places if "bar" in p.cuisine and p.category == "restaurant"}
    assert set(bars) == {"sh-bar-rouge", "sh-flair-rooftop"}
    assert all(p.min_age == 18 and not p.suits_age(10) and "alcohol" in p.tags for p in bars.values())
    gongdelin = shanghai.place_by_id("sh-gongdelin")
    assert "vegetarian" in gongdelin.cuisine and "vegan_options" in gongdelin.tags


@pytest.mark.parametrize("place_id", ["sh-nanxiang-mantou", "sh-disneyland", "sh-oriental-pearl", "sh-shanghai-museum"])
def test_shanghais_named_places_peak_at_the_weekend(shanghai, place_id):
    for hour in (10, 11, 12):
        weekday = queue_estimate(shanghai, place_id, FRIDAY_NOON.replace(hour=hour))
        weekend = queue_estimate(shanghai, place_id, SATURDAY_NOON.replace(hour=hour))
        assert weekday.profile == weekend.profile != "none"
        assert weekend.minutes > weekday.minutes, (place_id, hour)


def test_shanghai_queues_are_indicative_and_say_where_they_come_from(shanghai):
    raw = json.loads((ROOT / "data" / "regions" / "shanghai" / "queues.json").read_text(encoding="utf-8"))
    assert raw["indicative"] is True and "general knowledge" in raw["source"]
    lao_jesse = queue_estimate(shanghai, "sh-lao-jesse", SATURDAY_NOON)  # no override: the restaurant default
    assert lao_jesse.profile == raw["by_category"]["restaurant"] and "sh-lao-jesse" not in raw["by_place"]
    assert "airport" not in raw["by_category"]
    assert queue_estimate(shanghai, "sh-pvg-t2", SATURDAY_NOON) is None  # not covered: unknown, not zero
