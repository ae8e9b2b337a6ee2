"""A stop whose name and address are two places is asked, not guessed (issue 31 §2): before, the address won, the
stop was labelled with the name, nothing warned, and the route reached the named place from another stop. Now the
resolver raises the choice (AMBIGUOUS_PLACE, reason ``name_address``, the name's place first) and the place
picker names both, in both languages."""

from __future__ import annotations

import pytest

from components.route.place_picker import choices_of, reason_text
from components.route_words import notice_words
from core.config import Settings
from core.errors import AmbiguousPlaceError
from core.geo.base import Place
from core.geo.coords import haversine_m
from core.geo.registry import make_provider
from core.models.route import RawStop, RoutePlanRequest
from core.models.route_views import PlaceNames
from core.route.planner import plan_route
from core.route.resolver import NAME_ADDRESS_APART_M, resolve_point

SETTINGS = Settings(region="shanghai", provider="offline", cache_dir=None)


@pytest.fixture(scope="module")
def shanghai():
    return make_provider("offline", region="shanghai", settings=SETTINGS)


def _stop(provider, name, address, **kw):
    raw = RawStop(name=name, address=address, **kw)
    return resolve_point(raw, role="stop", provider=provider, index=0, default_city="上海", settings=SETTINGS)


@pytest.mark.parametrize(
    ("name", "address", "named_id", "address_id"),
    [
        ("豫园", "南京东路", "sh-yuyuan-garden", "sh-nanjing-road"),
        ("Shanghai Museum", "The Bund", "sh-shanghai-museum", "sh-bund"),
    ],
)
def test_a_name_and_an_address_that_are_two_places_are_asked(shanghai, name, address, named_id, address_id):
    with pytest.raises(AmbiguousPlaceError) as asked:
        _stop(shanghai, name, address)
    [choice] = choices_of(asked.value).values()
    assert (choice.field, choice.reason, choice.input) == ("stops.0", "name_address", name)
    assert [o.poi_id for o in choice.options] == [named_id, address_id]
    assert choice.options[1].distance_to_first_m > NAME_ADDRESS_APART_M
    assert "has a name and an address that are different places" in asked.value.message


@pytest.mark.parametrize(
    ("name", "address", "place_id"),
    [
        ("Yu Garden", "黄浦区安仁街218号", "sh-yuyuan-garden"),  # one place, in two languages
        ("上海博物馆", "人民大道201号", "sh-shanghai-museum"),
        ("外滩", "外滩", "sh-bund"),
    ],
)
def test_a_name_and_an_address_of_one_place_resolve_without_asking(shanghai, name, address, place_id):
    assert _stop(shanghai, name, address).point.poi_id == place_id


def test_either_place_once_chosen_is_taken(shanghai):
    for chosen in ("sh-yuyuan-garden", "sh-nanjing-road"):
        assert _stop(shanghai, "豫园", "南京东路", poi_id=chosen).point.poi_id == chosen


def test_the_picker_names_both_places_in_both_languages(shanghai):
    with pytest.raises(AmbiguousPlaceError) as asked:
        _stop(shanghai, "豫园", "南京东路")
    [choice] = choices_of(asked.value).values()
    zh, en = reason_text(choice, "zh"), reason_text(choice, "en")
    assert zh.startswith("名称指向豫园，地址却指向南京路步行街，两者不是同一个地方")
    assert en.startswith("The name points to Yu Garden and the address to Nanjing Road Pedestrian Street")


def test_a_route_with_such_a_stop_asks_before_planning(shanghai):
    request = RoutePlanRequest.model_validate(
        {
            "origin_mode": "fixed",
            "origin_address": "人民广场",
            "destination_address": "新天地",
            "stops": ["外滩", {"name": "City God Temple", "address": "静安寺"}],
        }
    )
    with pytest.raises(AmbiguousPlaceError) as asked:
        plan_route(request, provider=shanghai, settings=SETTINGS)
    choice = choices_of(asked.value)["stops.1"]
    assert [o.poi_id for o in choice.options] == ["sh-city-god-temple", "sh-jingan-temple"]
    a, b = choice.options
    assert haversine_m(a.lon, a.lat, b.lon, b.lat) > 3000


def test_a_chain_s_name_is_told_apart_by_its_address():
    # the Helsinki pack (OpenStreetMap) has several Burger Kings: the name fits them all, the address picks one
    settings = Settings(region="helsinki", provider="offline", cache_dir=None)
    helsinki = make_provider("offline", region="helsinki", settings=settings)
    chain = [p for p in helsinki.geocode("Burger King", city="Helsinki") if p.level in ("exact", "poi")]
    assert len({p.poi_id for p in chain}) >= 2
    raw = RawStop(name="Burger King", address="Aleksanterinkatu 11, 00100 Helsinki")
    res = resolve_point(raw, role="stop", provider=helsinki, index=0, default_city="Helsinki", settings=settings)
    assert res.point.poi_id in {p.poi_id for p in chain}


class AddressPointGeocoder:
    """A geocoder whose address answers are bare address points (no POI id, as AMap's maps_geo gives them) and whose
    name answers are POIs: what the MCP provider hands the resolver."""

    name = "amap-mcp"

    def __init__(self, places: dict[str, Place]) -> None:
        self.places = places

    def geocode(self, address: str, *, city: str | None = None) -> list[Place]:
        return [self.places[address]] if address in self.places else []

    def search(self, keywords: str, *, city: str | None = None, near=None, limit: int = 10) -> list[Place]:
        return []

    def detail(self, poi_id: str) -> Place | None:
        return next((p for p in self.places.values() if p.poi_id == poi_id), None)


TOWER = Place(name="东方明珠", poi_id="B00155L3IY", lon=121.49980, lat=31.23970, level="poi", source="amap-mcp")
SKYWALK = Place(name="陆家嘴环路", address="陆家嘴环路", lon=121.50620, lat=31.23560, level="house_number")
NEAR_TOWER = Place(name="世纪大道1号", address="世纪大道1号", lon=121.50010, lat=31.23950, level="house_number")


def _at_address_point(name: str, address: str):
    geocoder = AddressPointGeocoder({"东方明珠": TOWER, "陆家嘴环路": SKYWALK, "世纪大道1号": NEAR_TOWER})
    raw = RawStop(name=name, address=address)
    return resolve_point(raw, role="stop", provider=geocoder, index=0, default_city="上海", settings=SETTINGS)


def test_an_address_point_far_from_the_named_place_is_labelled_by_its_address_and_both_are_named():
    found = _at_address_point("东方明珠", "陆家嘴环路")
    apart = round(haversine_m(TOWER.lon, TOWER.lat, SKYWALK.lon, SKYWALK.lat))
    assert apart > NAME_ADDRESS_APART_M
    # the route goes where the address is, and is never labelled with the name of the place it is not
    assert (found.point.lon, found.point.lat) == (SKYWALK.lon, SKYWALK.lat)
    assert found.point.resolved_name == "陆家嘴环路"
    [said] = [n for n in found.notices if n.code == "NAME_ADDRESS_APART"]
    assert said.params["named"] == "东方明珠" and said.params["address"] == "陆家嘴环路"
    assert said.params["metres"] == apart
    names = PlaceNames(route={"stops.0": "陆家嘴环路"}, found={"stops.0": "陆家嘴环路"})
    zh, en = notice_words(said, "zh", names)[0], notice_words(said, "en", names)[0]
    assert "东方明珠" in zh and "陆家嘴环路" in zh and f"{apart} 米" in zh
    assert "东方明珠" in en and "陆家嘴环路" in en and f"{apart} m" in en


def test_an_address_point_beside_the_named_place_keeps_the_name_without_a_warning():
    found = _at_address_point("东方明珠", "世纪大道1号")
    assert haversine_m(TOWER.lon, TOWER.lat, NEAR_TOWER.lon, NEAR_TOWER.lat) < NAME_ADDRESS_APART_M
    assert found.point.resolved_name == "东方明珠"
    assert not [n for n in found.notices if n.code == "NAME_ADDRESS_APART"]
