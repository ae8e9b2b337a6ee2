"""Provider registry: a geocoder and a router chosen separately (docs/ARCHITECTURE.md, "Adding a provider").

A provider is named ``GEOCODER+ROUTER`` (``pack+valhalla``, ``nominatim+osrm``, ``amap+amap``) or by a short
name: ``offline`` (the pack's gazetteer, and its road network through embedded Valhalla when the pack has one,
else the straight-line estimate), ``amap`` (AMap's REST APIs for places, travel and weather) and ``amap-mcp``
(AMap's MCP tools, REST filling the positions and paths they omit, and the links only MCP makes).

Geocoders: ``pack`` (the region pack), ``amap``, ``amap-mcp``, ``nominatim``. Routers: ``estimate`` (straight
line x circuity), ``valhalla`` (embedded over the pack's tiles, or the server at ``OMNI_VALHALLA_URL``),
``osrm``, ``amap``, ``amap-mcp``. A remote service is offered only when configured (its URL or key is set),
and it degrades to the pack with a warning when it fails.
"""

from __future__ import annotations

from typing import Any

from core.config import Settings
from core.errors import InputError, ProviderAuthError
from core.geo.base import Geocoder, Router, WarningLog, WeatherService
from core.geo.composite import MapServices
from core.geo.offline import OfflineProvider
from core.packs.loader import RegionPack, load_region

GEOCODERS = ("pack", "amap", "amap-mcp", "nominatim")
ROUTERS = ("estimate", "valhalla", "osrm", "amap", "amap-mcp")
SHORT_NAMES = {"offline": None, "amap": ("amap", "amap")}


def _configured(service: str, settings: Settings, pack: RegionPack | None) -> bool:
    if service in ("pack", "estimate"):
        return True
    if service in ("amap", "amap-mcp"):
        key = settings.amap_key
        return bool(key and key.get_secret_value().strip())
    if service == "nominatim":
        return bool(settings.nominatim_url)
    if service == "osrm":
        return bool(settings.osrm_url)
    if service == "valhalla":
        return bool(settings.valhalla_url) or (pack is not None and pack.tile_dir is not None)
    return False


def available_geocoders(*, settings: Settings) -> list[str]:
    return [g for g in GEOCODERS if _configured(g, settings, None)]


def available_routers(*, region: str | None = None, settings: Settings) -> list[str]:
    """Routers usable for ``region`` (``valhalla`` needs the pack's tiles or a server)."""
    pack = load_region(region or settings.region, settings.data_dir)
    return [r for r in ROUTERS if _configured(r, settings, pack)]


def available_providers(*, region: str | None = None, settings: Settings, configured_only: bool = False) -> list[str]:
    """The short names and every configured ``GEOCODER+ROUTER`` pair. ``amap`` stays listed without a key (the
    CLI and the API explain what is missing) unless ``configured_only``: a picker offers only what can work."""
    pairs = [
        f"{g}+{r}"
        for g in available_geocoders(settings=settings)
        for r in available_routers(region=region, settings=settings)
    ]
    short = ["offline", "amap", "amap-mcp"]
    if configured_only and not _configured("amap", settings, None):
        short = ["offline"]
    return [*short, *[p for p in pairs if p not in ("amap+amap", "amap-mcp+amap-mcp")]]


def parse_provider(name: str | None, *, pack: RegionPack, settings: Settings) -> tuple[str, str]:
    """(geocoder, router) for a provider name; an unknown or unconfigured one is an InputError on ``provider``."""
    spec = (name or settings.provider or "offline").strip().lower()
    if spec == "offline":
        return "pack", "valhalla" if pack.tile_dir is not None else "estimate"
    if spec in ("amap", "amap-mcp"):
        return spec, spec
    geocoder, plus, router = spec.partition("+")
    if not plus or geocoder not in GEOCODERS or router not in ROUTERS:
        raise InputError(
            f"unknown provider '{name}'; choose offline, amap or GEOCODER+ROUTER with a geocoder from "
            f"{', '.join(GEOCODERS)} and a router from {', '.join(ROUTERS)}",
            field="provider",
        )
    for service in (geocoder, router):
        if service not in ("amap", "amap-mcp") and not _configured(service, settings, pack):
            raise InputError(_not_configured(service, pack), field="provider")
    return geocoder, router


def _not_configured(service: str, pack: RegionPack) -> str:
    return {
        "nominatim": "Nominatim is not configured: set OMNI_NOMINATIM_URL",
        "osrm": "OSRM is not configured: set OMNI_OSRM_URL",
        "valhalla": f"the region '{pack.name}' has no road network; build one with `python -m core pack build` "
        "or set OMNI_VALHALLA_URL",
    }.get(service, f"{service} is not configured")


def make_provider(name: str | None = None, *, region: str | None = None, settings: Settings) -> MapServices:
    """The services for a region (see the module docstring for the names)."""
    pack = load_region(region or settings.region, settings.data_dir)
    geocoder_name, router_name = parse_provider(name, pack=pack, settings=settings)
    offline = OfflineProvider(pack)
    warnings = WarningLog()
    built: dict[str, Any] = {}

    def amap() -> Any:
        if "amap" not in built:
            from core.geo.resilience import make_amap_provider

            built["amap"] = make_amap_provider(settings, fallback=offline, warnings=warnings)
        return built["amap"]

    def amap_mcp() -> Any:
        if "amap-mcp" not in built:
            from core.geo.amap_mcp import AMapMcpProvider
            from core.geo.ratelimit import shared_bucket, shared_hold

            assert settings.amap_key is not None
            key = settings.amap_key.get_secret_value()  # as make_amap_provider names the bucket and the hold
            inner = AMapMcpProvider(
                key=key,
                url=settings.amap_mcp_url,
                timeout_s=settings.amap_mcp_timeout_s,
                rest=amap().inner,  # what MCP leaves out (positions, drawn paths) comes from REST
                # the tools call AMap's REST APIs under the key: one bucket and one hold for MCP and REST alike
                limiter=shared_bucket("amap", key, rate=settings.amap_qps),
                hold=shared_hold("amap", key),
                rate_limit_retries=settings.http_retries,
            )
            built["amap-mcp"] = _resilient(inner, settings, offline, warnings, retries=0)
        return built["amap-mcp"]

    if {"amap", "amap-mcp"} & {geocoder_name, router_name} and not _configured("amap", settings, pack):
        raise ProviderAuthError(
            "No AMap key is configured; set OMNI_AMAP_KEY to a Web服务 key or use the offline provider.",
            field="amap_key",
        )
    geocoder: Geocoder
    if geocoder_name == "pack":
        geocoder = offline
    elif geocoder_name == "amap":
        geocoder = amap()
    elif geocoder_name == "amap-mcp":
        geocoder = amap_mcp()
    else:
        geocoder = _nominatim(settings, offline, warnings)
    router: Router
    if router_name == "estimate":
        router = offline
    elif router_name == "amap":
        router = amap()
    elif router_name == "amap-mcp":
        router = amap_mcp()
    elif router_name == "valhalla":
        router = _valhalla(settings, pack, offline, warnings)
    else:
        router = _osrm(settings, offline, warnings)
    weather: WeatherService | None = amap() if "amap" in built else None
    return MapServices(
        geocoder=geocoder, router=router, weather=weather, region=pack, warnings=warnings, cache=_cache(settings)
    )


#: services whose answers are worth keeping on disk: remote, metered or rate-limited
REMOTE = ("amap", "nominatim", "osrm")


def _cache(settings: Settings) -> Any:
    if settings.cache_dir is None:
        return None  # MapServices keeps its own in-memory cache
    from core.geo.cache import DiskResponseCache

    return DiskResponseCache(settings.cache_dir, persist=REMOTE)


def _resilient(
    inner: Any, settings: Settings, offline: OfflineProvider, warnings: WarningLog, *, retries: int | None = None
) -> Any:
    from core.geo.resilience import resilient

    return resilient(inner, settings, fallback=offline, warnings=warnings, retries=retries)


def _valhalla(settings: Settings, pack: RegionPack, offline: OfflineProvider, warnings: WarningLog) -> Any:
    from core.geo.doors import entrance_index
    from core.geo.valhalla import EmbeddedValhalla, HttpValhalla, ValhallaRouter

    engine: Any
    if settings.valhalla_url:
        engine = HttpValhalla(base_url=settings.valhalla_url, timeout_s=settings.http_timeout_s)
        retries = settings.http_retries
    else:
        assert pack.tile_dir is not None  # parse_provider checked
        engine = EmbeddedValhalla(pack.tile_dir)
        retries = 0  # in-process: a failure is not transient
    router = ValhallaRouter(
        engine,
        snap_cutoff_m=settings.snap_cutoff_m,
        snap_options=None if settings.snap_ground_level else {},
        entrances=entrance_index(pack.places) if settings.snap_entrances else None,
    )
    return _resilient(router, settings, offline, warnings, retries=retries)


def _osrm(settings: Settings, offline: OfflineProvider, warnings: WarningLog) -> Any:
    from core.geo.osrm import OsrmRouter

    assert settings.osrm_url
    inner = OsrmRouter(
        base_url=settings.osrm_url, timeout_s=settings.http_timeout_s, max_table_size=settings.osrm_max_table_size
    )
    return _resilient(inner, settings, offline, warnings)


def _nominatim(settings: Settings, offline: OfflineProvider, warnings: WarningLog) -> Any:
    from core.geo.nominatim import NominatimGeocoder

    assert settings.nominatim_url
    inner = NominatimGeocoder(
        base_url=settings.nominatim_url, timeout_s=settings.http_timeout_s, user_agent=settings.nominatim_user_agent
    )
    return _resilient(inner, settings, offline, warnings)
