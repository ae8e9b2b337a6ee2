"""A stop whose name and address are two places is asked, not guessed (issue 31 §2): before, the address won, the
stop was labelled with the name, nothing warned, and the route reached the named place from another stop. Now the
resolver raises the choice (AMBIGUOUS_PLACE, reason ``name_address``, the name's place first) and the place
picker names both, in both languages."""

from __future__ import annotations

import pytest

from components.route.place_picker import choices_of, reason_text
from core.config import Settings
from core.errors import AmbiguousPlaceError
from core.geo.coords import haversine_m
from core.geo.registry import make_provider
from core.models.route import RawStop, RoutePlanRequest
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
