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
