"""A name said with a word of its kind (issue 32, "honest look-ups"): Finnish genitives and compounds ("Ateneumin
taidemuseo"), Swedish and English forms ("Konstmuseet Ateneum", "Ateneum art museum") and Chinese ("奇亚斯玛美术馆")
find the place the pack has, of that kind; a place the pack lacks stays "not found", with no suggestion."""

from __future__ import annotations

import pytest

from core.config import get_settings
from core.errors import AmbiguousPlaceError, ResolutionError
from core.geo.kind_words import name_without_kind, stems
from core.geo.registry import make_provider
from core.i18n import t
from core.models.route import RawStop
from core.route.resolver import resolve_point
from core.words.route import found_by_words

ATENEUM = "hel-w8033120"  # a museum named "Ateneum" alone in the pack
KIASMA = "hel-w8042215"  # 奇亚斯玛当代艺术博物馆 / Museum of Modern Art Kiasma
KOLMIKULMA = "hel-w123911186"  # a park named "Kolmikulma"


@pytest.fixture(scope="module")
def helsinki():
    return make_provider("offline", region="helsinki", settings=get_settings())


def stop(text, provider, *, as_name=False):
    raw = RawStop(name=text) if as_name else RawStop(address=text)
    return resolve_point(raw, role="stop", provider=provider, index=0, default_city="Helsinki", settings=get_settings())


@pytest.mark.parametrize(
    ("text", "poi"),
    [
        ("Ateneumin taidemuseo", ATENEUM),  # the issue's own words
        ("ateneumin museo", ATENEUM),
        ("Ateneums konstmuseum", ATENEUM),
        ("Konstmuseet Ateneum", ATENEUM),
        ("Ateneum Art Museum", ATENEUM),
        ("Kiasman nykytaidemuseo", KIASMA),  # a compound of kind: nyky|taide|museo
        ("Museet Kiasma", KIASMA),
        ("Kolmikulman puisto", KOLMIKULMA),
        ("Kolmikulma Park", KOLMIKULMA),
    ],
)
def test_a_name_with_a_word_of_its_kind_is_the_place_of_that_name_and_kind(helsinki, text, poi):
    for as_name in (False, True):
        res = stop(text, helsinki, as_name=as_name)
        assert res.point.poi_id == poi and res.warnings == []
        assert res.point.matched_on == "name_kind"
    said = {lang: found_by_words(res.point, lang) for lang in ("en", "zh")}
    assert said == {"en": t("route.found.match.kind", "en"), "zh": t("route.found.match.kind", "zh")}
    assert "kind" in said["en"] and "类别" in said["zh"]


@pytest.mark.parametrize("text", ["奇亚斯玛美术馆", "奇亚斯玛博物馆"])
def test_a_chinese_name_with_another_word_of_its_kind_is_taken_and_said_to_be_fuzzy(helsinki, text):
    res = stop(text, helsinki)
    assert res.point.poi_id == KIASMA
    assert [n.code for n in res.notices] == ["FUZZY_MATCH"]  # the pack says 当代艺术博物馆: the reader is told


@pytest.mark.parametrize(
    "text",
    [
        "Uspenskin katedraali",
        "Temppeliaukion kirkko",
        "Designmuseo",
        "Sinebrychoffs konstmuseum",
        "National Museum of Finland",
        "Kiasman puisto",  # Kiasma is a museum, not a park
        "设计博物馆",
        "乌斯别斯基教堂",
    ],
)
def test_a_place_the_pack_lacks_is_not_found_and_nothing_is_suggested(helsinki, text):
    with pytest.raises(ResolutionError) as info:
        stop(text, helsinki)
    assert not isinstance(info.value, AmbiguousPlaceError) and not info.value.candidates


def test_a_word_of_kind_never_stands_for_a_place_of_another_kind(helsinki):
    # "Ateneum" is a museum: a park said with its name is not it (the text search may still offer what it finds)
    try:
        res = stop("Ateneumin puisto", helsinki)
    except ResolutionError as exc:
        offered = {o["poi_id"] for c in exc.candidates.values() for o in c["options"]}
        assert ATENEUM not in offered
    else:
        assert res.point.poi_id != ATENEUM


@pytest.mark.parametrize(
    ("word", "forms"),
    [
        ("ateneumin", ["ateneumin", "ateneum", "ateneumi"]),
        ("kaisaniemen", ["kaisaniemen", "kaisaniemi", "kaisanieme"]),
        ("kiasman", ["kiasman", "kiasma"]),
        ("ateneums", ["ateneums", "ateneum"]),
        ("puin", ["puin"]),  # never under four letters
    ],
)
def test_the_forms_of_a_genitive(word, forms):
    assert stems(word) == forms


def test_what_is_read_as_a_name_beside_its_kind():
    named = name_without_kind("Amos Andersonin taidemuseo")
    assert named is not None and named.forms[:2] == ("amos andersonin", "amos anderson")
    assert named.kinds == {"museum"}
    assert name_without_kind("National Museum of Finland") is None  # only general words beside the kind
    assert name_without_kind("Helsingin museo", cities=frozenset({"Helsingin"})) is None  # the city is no name
    assert name_without_kind("Ateneum") is None  # no word of kind: the ordinary look-up answers
    assert name_without_kind("Senaatintori") is None  # "tori" ends a name, it is no compound of kind
    assert name_without_kind("上海美术馆", cities=frozenset({"上海"})) is None  # only the city beside the kind


class _KindlessGeocoder:
    """The pack's places behind a service whose answers carry no kind (as AMap's), each query recorded."""

    name = "kindless"

    def __init__(self, inner):
        self.inner_places, self.region, self.asked = inner, inner.region, []

    def geocode(self, address, *, city=None):
        self.asked.append(("geocode", address))
        return [p.model_copy(update={"category": None}) for p in self.inner_places.geocode(address, city=city)]

    def search(self, keywords, *, city=None, near=None, limit=10):
        self.asked.append(("search", keywords))
        found = self.inner_places.search(keywords, city=city, near=near, limit=limit)
        return [p.model_copy(update={"category": None}) for p in found]

    def detail(self, poi_id):
        return self.inner_places.detail(poi_id)


def test_a_service_whose_places_carry_no_kind_is_not_asked_for_the_name_without_its_word_of_kind(helsinki):
    """On AMap (no category in its answers) the step could never find a place of the kind: none of its calls are
    spent (a day's search quota is 100 calls on a personal key)."""
    kindless = _KindlessGeocoder(helsinki.geocoder)
    assert helsinki.places_carry_kinds and not getattr(kindless, "places_carry_kinds", False)
    with pytest.raises(ResolutionError):
        stop("Ateneumin taidemuseo", kindless)
    forms = name_without_kind("Ateneumin taidemuseo", cities=frozenset({"Helsinki"}))
    assert forms is not None and "ateneum" in forms.forms  # what the step would ask for
    asked = {query for _, query in kindless.asked}
    assert asked == {"Ateneumin taidemuseo"}, asked  # the other steps still ask, for the whole text only
