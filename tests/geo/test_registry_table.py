"""The provider registry's behaviour by name: what it offers, what it refuses and how, what it builds. Written before
the registry became a table (core/geo/registry.py SERVICES) and kept as its contract."""

from __future__ import annotations

import pytest

from core.config import Settings
from core.errors import InputError, ProviderAuthError
from core.geo.offline import OfflineProvider
from core.geo.registry import available_providers, make_provider, parse_provider
from core.packs.loader import load_region

KEY = "0123456789abcdef0123456789abcdef"


def bare() -> Settings:
    return Settings(region="shanghai", cache_dir=None)


def everything() -> Settings:
    return Settings(
        region="helsinki",
        cache_dir=None,
        amap_key=KEY,
        nominatim_url="http://nominatim.test",
        osrm_url="http://osrm.test",
    )


def test_without_keys_or_addresses_the_short_names_and_the_pack_are_offered():
    assert available_providers(region="shanghai", settings=bare()) == ["offline", "amap", "amap-mcp", "pack+estimate"]
    assert available_providers(region="shanghai", settings=bare(), configured_only=True) == [
        "offline",
        "pack+estimate",
    ]


def test_every_configured_pair_is_offered_geocoder_by_geocoder_and_a_both_service_alone_by_its_short_name():
    geocoders = ["pack", "amap", "amap-mcp", "nominatim"]
    routers = ["estimate", "valhalla", "osrm", "amap", "amap-mcp"]
    pairs = [f"{g}+{r}" for g in geocoders for r in routers if not (g == r and g in ("amap", "amap-mcp"))]
    offered = available_providers(region="helsinki", settings=everything())
    assert offered == ["offline", "amap", "amap-mcp", *pairs]
    assert available_providers(region="helsinki", settings=everything(), configured_only=True) == offered


def test_valhalla_is_offered_by_a_server_address_without_tiles():
    served = Settings(region="shanghai", cache_dir=None, valhalla_url="http://valhalla.test")
    assert "pack+valhalla" in available_providers(region="shanghai", settings=served)
    assert parse_provider("pack+valhalla", pack=load_region("shanghai"), settings=served) == ("pack", "valhalla")


def test_names_are_read_case_blind_and_the_settings_name_the_default():
    pack = load_region("shanghai")
    assert parse_provider(" Offline ", pack=pack, settings=bare()) == ("pack", "estimate")
    assert parse_provider(None, pack=pack, settings=bare()) == ("pack", "estimate")
    chosen = Settings(region="shanghai", cache_dir=None, provider="amap-mcp")
    assert parse_provider(None, pack=pack, settings=chosen) == ("amap-mcp", "amap-mcp")
    assert parse_provider("amap", pack=pack, settings=bare()) == ("amap", "amap")  # the key is asked for later
    assert parse_provider("PACK+ESTIMATE", pack=pack, settings=bare()) == ("pack", "estimate")


@pytest.mark.parametrize("name", ["foo", "pack", "pack+", "+estimate", "pack+google", "google+estimate"])
def test_an_unknown_name_is_refused_with_every_choice_listed(name):
    with pytest.raises(InputError) as info:
        parse_provider(name, pack=load_region("shanghai"), settings=bare())
    assert info.value.field == "provider"
    assert info.value.message == (
        f"unknown provider '{name}'; choose offline, amap or GEOCODER+ROUTER with a geocoder from "
        "pack, amap, amap-mcp, nominatim and a router from estimate, valhalla, osrm, amap, amap-mcp"
    )


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("pack+osrm", "OSRM is not configured: set OMNI_OSRM_URL"),
        ("nominatim+estimate", "Nominatim is not configured: set OMNI_NOMINATIM_URL"),
        (
            "pack+valhalla",
            "the region 'shanghai' has no road network; build one with `python -m core pack build` or set "
            "OMNI_VALHALLA_URL",
        ),
        ("amap+osrm", "OSRM is not configured: set OMNI_OSRM_URL"),  # the name is refused before the key is asked
    ],
)
def test_a_service_without_its_address_is_refused_as_a_choice(name, message):
    with pytest.raises(InputError) as info:
        make_provider(name, region="shanghai", settings=bare())
    assert info.value.field == "provider" and info.value.message == message


@pytest.mark.parametrize("name", ["amap", "amap-mcp", "pack+amap", "amap-mcp+estimate", "amap+amap-mcp"])
def test_an_amap_service_without_its_key_is_refused_for_the_key(name):
    blank = Settings(region="shanghai", cache_dir=None, amap_key="  ")
    for settings in (bare(), blank):
        with pytest.raises(ProviderAuthError) as info:
            make_provider(name, region="shanghai", settings=settings)
        assert info.value.field == "amap_key"
        assert info.value.message == (
            "No AMap key is configured; set OMNI_AMAP_KEY to a Web服务 key or use the offline provider."
        )


def test_the_pack_answers_alone_offline():
    services = make_provider("offline", region="shanghai", settings=bare())
    assert isinstance(services.geocoder, OfflineProvider) and services.geocoder is services.router
    assert services.weather_service is None and services.region.name == "shanghai"


def test_amap_is_one_service_for_places_travel_and_weather():
    keyed = Settings(region="shanghai", cache_dir=None, amap_key=KEY)
    services = make_provider("amap", region="shanghai", settings=keyed)
    assert services.geocoder is services.router is services.weather_service
    assert services.geocoder.name == "amap"
    mixed = make_provider("pack+amap", region="shanghai", settings=keyed)
    assert isinstance(mixed.geocoder, OfflineProvider) and mixed.weather_service is mixed.router


def test_amap_mcp_answers_weather_through_the_rest_service_it_holds():
    keyed = Settings(region="shanghai", cache_dir=None, amap_key=KEY)
    services = make_provider("amap-mcp", region="shanghai", settings=keyed)
    assert services.geocoder is services.router and type(services.geocoder.inner).__name__ == "AMapMcpProvider"
    weather = services.weather_service
    assert weather is not None and type(weather.inner).__name__ == "AMapProvider"
    assert services.geocoder.inner.rest is weather.inner  # what MCP leaves out comes from the same REST service
    both = make_provider("amap+amap-mcp", region="shanghai", settings=keyed)
    assert both.weather_service is both.geocoder  # one AMap REST service, built once


def test_open_services_answer_no_weather():
    services = make_provider("nominatim+osrm", region="helsinki", settings=everything())
    assert (services.geocoder.name, services.router.name, services.weather_service) == ("nominatim", "osrm", None)
