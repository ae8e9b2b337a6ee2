"""The place-scope reader (core/packs/coverage.py): which installed region covers the places a text names (issue 31).

Inputs are new phrasings, not the issue's; every verdict is read against the two installed packs."""

from __future__ import annotations

import pytest

from core.packs.coverage import mentions, scope_of
from core.packs.loader import list_regions, load_region


@pytest.fixture(scope="module")
def packs():
    return [load_region(name) for name in list_regions()]


def _scope(text, packs, active="shanghai"):
    pack = next(p for p in packs if p.name == active)
    return scope_of(text, active=pack, packs=packs)


@pytest.mark.parametrize(
    ("text", "named", "place"),
    [
        ("大阪两日游，想吃章鱼烧", "大阪", "Osaka"),
        ("Seoul food tour for two days", "Seoul", "Seoul"),
        ("伦敦三天怎么玩", "伦敦", "London"),
        ("a weekend in Barcelona", "Barcelona", "Barcelona"),
        ("plan 2 days in tokyo", "tokyo", "Tokyo"),  # lower case: a city of millions is still the city
        ("下周去纽约出差顺便逛逛", "纽约", "New York City"),  # GeoNames has 紐約; its Simplified form is read too
    ],
)
def test_another_city_no_pack_covers_is_not_covered(packs, text, named, place):
    scope = _scope(text, packs)
    assert (scope.verdict, scope.named, scope.place, scope.region) == ("NOT_COVERED", named, place, "shanghai")
    assert scope.regions == ("helsinki", "shanghai")


@pytest.mark.parametrize(
    ("text", "named"),
    [("去赫尔辛基玩两天", "赫尔辛基"), ("Helsinki cathedral", "Helsinki"), ("a week in Finland", "Finland")],
)
def test_a_place_another_installed_pack_covers_switches_to_it(packs, text, named):
    scope = _scope(text, packs)
    assert (scope.verdict, scope.region, scope.active, scope.named) == ("SWITCH", "helsinki", "shanghai", named)


def test_shanghai_named_from_helsinki_switches_back(packs):
    scope = _scope("周末去上海外滩", packs, active="helsinki")
    assert (scope.verdict, scope.region, scope.named) == ("SWITCH", "shanghai", "上海")


@pytest.mark.parametrize(
    "text",
    [
        "南京路步行街",  # a street of the pack that holds a city's name
        "从北京东路走到外滩",
        "中山公园附近喝咖啡",  # 中山 is a city too; 中山公园 is a park
        "外滩 | 中山东一路",  # the Bund's road, as its address writes it after the district
        "沿着中山南二路走",  # a numbered road of the same name the pack does not list
        "晚上想吃北京烤鸭",  # a dish
        "a nice walk by the river",  # Nice, in lower case: a word
        "Reading list of museums",  # Reading, opening a sentence: a word
        "Nanjing West Road then Jing'an Temple",
        "浦东一日游",  # a district of the active region: named, and covered
    ],
)
def test_the_pack_own_names_and_ordinary_words_are_no_other_city(packs, text):
    assert _scope(text, packs).verdict == "IN_REGION"
    shanghai = next(p for p in packs if p.name == "shanghai")
    named = [m.places[0].name for m in mentions(text, pack=shanghai, packs=packs)]
    assert named in ([], ["Pudong"])


def test_the_pack_city_is_covered_and_a_neighbour_outside_its_bounds_is_not(packs):
    # the Helsinki pack holds central Helsinki only: the city is its own, Vantaa (the airport's town) is not
    assert _scope("a slow day in Helsinki", packs, active="helsinki").verdict == "IN_REGION"
    scope = _scope("a slow day in Vantaa", packs, active="helsinki")
    assert (scope.verdict, scope.place, scope.country) == ("NOT_COVERED", "Vantaa", "FI")


def test_the_first_place_outside_decides_and_facts_carry_no_words(packs):
    scope = _scope("先逛外滩，然后去大阪", packs)
    assert scope.verdict == "NOT_COVERED"
    assert scope.facts() == {
        "named": "大阪",
        "place": "Osaka",
        "active": "shanghai",
        "region": "shanghai",
        "regions": "helsinki, shanghai",
    }


@pytest.mark.parametrize(
    ("text", "named", "place"),
    [
        ("国庆想去广岛看原爆圆顶", "广岛", "Hiroshima"),  # GeoNames holds 広島: its Chinese form through OpenCC's jp2t
        ("鹿儿岛的樱岛火山值得去吗", "鹿儿岛", "Kagoshima"),
        ("滨松有什么好吃的鳗鱼", "滨松", "Hamamatsu"),
    ],
)
def test_a_japanese_city_written_in_chinese_characters_is_that_city(packs, text, named, place):
    scope = _scope(text, packs)
    assert (scope.verdict, scope.named, scope.place, scope.country) == ("NOT_COVERED", named, place, "JP")


@pytest.mark.parametrize(
    ("text", "named", "country", "verdict"),
    [
        ("明年春天去意大利自驾", "意大利", "IT", "NOT_COVERED"),
        ("瑞典有什么适合亲子的地方", "瑞典", "SE", "NOT_COVERED"),
        ("我们打算去芬蘭過聖誕", "芬蘭", "FI", "SWITCH"),  # traditional script; the Helsinki pack is Finland's
    ],
)
def test_a_country_named_in_chinese_is_that_country(packs, text, named, country, verdict):
    scope = _scope(text, packs)
    assert (scope.verdict, scope.named, scope.country) == (verdict, named, country)
    assert scope.region == ("helsinki" if verdict == "SWITCH" else "shanghai")


@pytest.mark.parametrize(
    "text",
    [
        "下榻香格里拉，酒店有接机服务吗",
        "香格里拉大酒店楼下有什么早餐",
        "We're staying at the Shangri-La; is the hotel near the Bund?",
    ],
)
def test_a_hotel_that_shares_a_city_s_name_is_the_hotel_when_the_text_says_hotel(packs, text):
    assert _scope(text, packs).verdict == "IN_REGION"


def test_the_city_that_shares_a_hotel_s_name_is_still_the_city_without_a_hotel():
    packs = [load_region(name) for name in list_regions()]
    scope = _scope("秋天去香格里拉看草原，住几天合适", packs)  # 住 follows the name: where to stay, not a hotel
    assert (scope.verdict, scope.place) == ("NOT_COVERED", "Shangri-La")


@pytest.mark.parametrize(
    ("text", "named", "city", "active", "verdict", "region"),
    [
        ("伏见稻荷大社的千本鸟居几点人少", "伏见稻荷大社", "Kyoto", "shanghai", "NOT_COVERED", "shanghai"),
        ("Is the Colosseum open on Monday mornings?", "Colosseum", "Rome", "shanghai", "NOT_COVERED", "shanghai"),
        ("坐船去芬兰堡要多久", "芬兰堡", "Helsinki", "shanghai", "SWITCH", "helsinki"),
        ("How long should we queue for the Oriental Pearl Tower?", "Oriental Pearl Tower", "Shanghai", "helsinki",
         "SWITCH", "shanghai"),
        # the longest name first: the Louvre of another city is that city's
        ("Can we see the Louvre Abu Dhabi dome at night?", "Louvre Abu Dhabi", "Abu Dhabi", "shanghai",
         "NOT_COVERED", "shanghai"),
        ("东京塔的观景台要提前买票吗", "东京塔", "Tokyo", "shanghai", "NOT_COVERED", "shanghai"),
    ],
)  # fmt: skip
def test_a_landmark_implies_its_city_and_its_source_is_in_the_facts(packs, text, named, city, active, verdict, region):
    scope = _scope(text, packs, active=active)
    assert (scope.verdict, scope.named, scope.place, scope.region) == (verdict, named, city, region)
    assert scope.facts()["landmark"] == named and scope.facts()["landmark_source"].startswith(
        "https://en.wikipedia.org/"
    )


def test_the_answer_says_which_landmark_implied_which_city_in_both_languages(packs):
    from core.words.scope import scope_sentence

    refused = _scope("伏见稻荷大社的千本鸟居几点人少", packs)
    assert scope_sentence(refused, "zh").startswith("您提到了伏见稻荷大社，它位于京都，目前安装的地区都不包含京都")
    assert scope_sentence(refused, "en").startswith("You named 伏见稻荷大社, which is in Kyoto; no installed region")
    switched = _scope("Suomenlinna by ferry, then lunch", packs)
    assert scope_sentence(switched, "en").startswith(
        "You named Suomenlinna, which is in Helsinki; the Helsinki region covers Helsinki"
    )
    assert scope_sentence(switched, "zh").startswith("您提到了Suomenlinna，它位于赫尔辛基，赫尔辛基在赫尔辛基地区之内")


def test_every_landmark_row_names_a_city_geonames_holds_and_a_source():
    from core.packs.coverage import _gazetteer, landmarks

    gaz = _gazetteer()
    for mark in landmarks():
        assert (mark.city, mark.country) in gaz.cities, mark
        assert mark.source.startswith("https://") and mark.city_zh, mark
